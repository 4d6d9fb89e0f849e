"""POST /api/plans/comment: the person's comments through the server (DESIGN section 14). The body
adds a comment (`{"step_id", "text"}`, `step_id` null for the plan as a whole) or resolves or
reopens one (`{"resolve": CID}`, `{"reopen": CID}`): 200 with the snapshot, 409 when refused,
400 when malformed. Who is the identity Jupyter authenticated, as for the decision route."""

from __future__ import annotations

from typing import Literal

from jupyter_server.auth.decorator import authorized
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from tornado import web

from ..errors import DecisionRefused, PlanStoreError
from ..plan.comments import no_plan_to_comment_on
from ..plan.models import Snapshot
from ..session.verbs import run
from .handlers import PlansHandler, person_by
from .threads import off_loop


class CommentBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    step_id: str | None = None
    text: str | None = None
    resolve: str | None = None
    reopen: str | None = None
    via: Literal["panel", "card"] | None = None  # where the person clicked

    @model_validator(mode="after")
    def _one_act(self) -> CommentBody:
        acts = [name for name in ("text", "resolve", "reopen") if getattr(self, name) is not None]
        if len(acts) != 1:
            found = ", ".join(acts) or "none of them"
            raise ValueError(
                f"give exactly one of text (with step_id), resolve or reopen; found {found}"
            )
        if self.step_id is not None and self.text is None:
            raise ValueError("step_id goes with text: it names the step a new comment is on")
        return self


class CommentHandler(PlansHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            body = CommentBody.model_validate_json(self.request.body or b"")
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            message = first["msg"].removeprefix("Value error, ")
            self.fail(400, f"malformed comment: {where}: {message}")
            return
        try:
            snapshot = await off_loop(self._act, body)
        except (DecisionRefused, PlanStoreError) as refusal:
            self.fail(409, str(refusal))
            return
        self.finish(snapshot.model_dump(mode="json"))

    def _act(self, body: CommentBody) -> Snapshot:
        # A comment is on a plan: where there is no plan file, none is made to refuse it in.
        session, _ = self.session(create=False)
        if session is None:
            raise DecisionRefused(no_plan_to_comment_on(body.resolve or body.reopen))
        # Who: the identity Jupyter authenticated for this request, never one the body names.
        by = person_by(self.current_user, body.via or "server")
        if body.text is None:  # resolve or reopen CID, as the person's verbs read it
            verb = "resolve" if body.resolve is not None else "reopen"
            run(session, verb, body.resolve or body.reopen or "", by)
        else:
            session.comment(body.step_id, body.text, by=by)
        return session.snapshot()
