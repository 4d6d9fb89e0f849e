"""The plan routes. Every verb is authenticated and authorized on the "plans" resource; input is
parsed with pydantic (400 when malformed), a refused decision is 409, and nothing is a 500."""

from __future__ import annotations

import json
from typing import Any, Literal

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from pydantic import BaseModel, ConfigDict, ValidationError
from tornado import web

from .._card import card_data
from ..errors import DecisionRefused, PlanStoreError
from ..models import Snapshot
from ..session import PlanSession
from .app import Forbidden, PlanFiles
from .sse import stream_events


class DecisionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    action: Literal["on", "off", "approve", "revise"]
    hash: str | None = None
    notes: str | None = None


class PlansHandler(APIHandler):
    auth_resource = "plans"

    @property
    def files(self) -> PlanFiles:
        return self.settings["jupyter_plans_files"]

    def fail(self, status: int, message: str) -> None:
        self.set_status(status)
        self.finish({"message": message})

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # Our refusals carry a one-line message; say it, as JSON, rather than a page.
        error = kwargs.get("exc_info", (None, None, None))[1]
        message = getattr(error, "message", None) or getattr(error, "reason", None)
        if message:
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"message": message}))
        else:
            super().write_error(status_code, **kwargs)

    def session(self, create: bool = False) -> tuple[PlanSession | None, str]:
        """The session asked for (or the file's current one), and the notebook's file name."""
        notebook, plan = self.files.locate(self.get_query_argument("path", None))
        try:
            store = self.files.store(plan, create)
        except PlanStoreError as exc:
            raise Forbidden(str(exc)) from None
        requested = self.get_query_argument("session", None)
        if store is None:
            return None, notebook.name
        try:
            return store.session(requested), notebook.name
        except PlanStoreError as exc:
            raise web.HTTPError(400, reason=str(exc)) from None

    def snapshot_of(self, session: PlanSession | None) -> dict:
        if session is None:
            requested = self.get_query_argument("session", None) or "default"
            return Snapshot.empty(requested).model_dump(mode="json")
        return session.snapshot().model_dump(mode="json")


class SessionsHandler(PlansHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        session, _ = self.session()
        if session is None:
            self.finish({"current": "default", "sessions": []})
            return
        store = session.store
        self.finish({"current": store.current_session_id(), "sessions": store.sessions()})


class SnapshotHandler(PlansHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        session, _ = self.session()
        self.finish(self.snapshot_of(session))


class CardHandler(PlansHandler):
    """What the Plan panel renders: the snapshot, the notebook's name, a proposal's changes."""

    @web.authenticated
    @authorized
    def get(self) -> None:
        session, name = self.session()
        if session is None:
            self.finish({"snapshot": self.snapshot_of(None), "notebook": name, "changes": None})
            return
        self.finish(card_data(session, name))


class EventsHandler(PlansHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        after = self._after()
        session, _ = self.session()
        if "text/event-stream" in self.request.headers.get("Accept", ""):
            await stream_events(self, session, after)
            return
        events = [] if session is None else session.events(after=after)
        self.finish({"events": [e.model_dump(mode="json") for e in events]})

    def _after(self) -> int:
        # A Last-Event-ID header, when given, wins over ?after= (it is how a stream resumes).
        raw = self.request.headers.get("Last-Event-ID") or self.get_query_argument("after", "0")
        if not raw.strip().isdigit():
            raise web.HTTPError(
                400, reason=f"after must be a whole number of events; found {raw!r}"
            )
        return int(raw)


class DecisionHandler(PlansHandler):
    @web.authenticated
    @authorized
    def post(self) -> None:
        try:
            body = DecisionBody.model_validate_json(self.request.body or b"")
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            self.fail(400, f"malformed decision: {where}: {first['msg']}")
            return
        if body.action == "approve" and body.hash is None:
            # An approval binds the text the person read: the client says which one.
            self.fail(
                400,
                "malformed decision: hash: approve needs the 64-hex hash of the "
                "proposal that was shown; found none",
            )
            return
        session, _ = self.session(create=True)
        verbs = {
            "on": session.on,
            "off": session.off,
            "approve": lambda: session.approve(body.hash),
            "revise": lambda: session.revise(body.notes or ""),
        }
        try:
            snapshot = verbs[body.action]()
        except (DecisionRefused, PlanStoreError) as refusal:
            self.fail(409, str(refusal))
            return
        self.finish(snapshot.model_dump(mode="json"))
