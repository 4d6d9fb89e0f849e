"""The plan routes. Every verb is authenticated and authorized on the "plans" resource; input is
parsed with pydantic (400 when malformed), a refused decision is 409, and nothing is a 500.
The store's work (locating files, reading, committing) runs off the event loop (threads.py).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pydantic_core
from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from pydantic import BaseModel, ConfigDict, ValidationError
from tornado import web

from ..card.guards import guard_data, guard_warning, heard
from ..card.view import card_data
from ..errors import DecisionRefused, PlanStoreError
from ..plan.intake import MAX_SEQ, session_id_refusal
from ..plan.models import Snapshot
from ..plan.who import jupyter_name
from ..session import PlanSession
from ..session.verbs import run
from .files import Forbidden, Place, PlanFiles
from .sse import MAX_PAGE, event_json, stream_events, stream_sessions
from .threads import off_loop, off_loop_page


class DecisionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    action: Literal["on", "off", "approve", "revise"]
    hash: str | None = None
    notes: str | None = None
    via: Literal["panel", "palette", "card"] | None = None  # where the person clicked


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

    def place(self) -> Place:
        return self.files.locate(self.get_query_argument("path", None))

    def session(
        self, create: bool = False, must_exist: bool = True
    ) -> tuple[PlanSession | None, str]:
        """The session asked for (else the notebook's, else the file's current one), and the
        notebook's file name; files.py says when there is none."""
        place = self.place()
        requested = self.get_query_argument("session", None)
        if requested is not None and session_id_refusal(requested):
            raise web.HTTPError(400, reason=session_id_refusal(requested))
        try:
            session = self.files.session(place, requested, create, must_exist)
        except PlanStoreError as exc:
            if place.where.beside:
                raise Forbidden(str(exc)) from None
            raise web.HTTPError(503, reason=str(exc)) from None  # the database, not the path
        return session, place.notebook.name

    def snapshot_of(self, session: PlanSession | None) -> dict:
        if session is None:
            requested = self.get_query_argument("session", None) or "default"
            return Snapshot.empty(requested).model_dump(mode="json")
        return session.snapshot().model_dump(mode="json")


class SessionsHandler(PlansHandler):
    """The file's sessions; with `Accept: text/event-stream`, again after each change."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        data = await off_loop(self._sessions)  # a bad path is refused before any stream
        if "text/event-stream" in self.request.headers.get("Accept", ""):
            await stream_sessions(self, lambda: self.session(must_exist=False), self._sessions)
            return
        self.finish(data)

    def _sessions(self) -> dict:
        place = self.place()
        session, _ = self.session(must_exist=False)
        if session is None:
            return {"current": place.where.session or "default", "sessions": []}
        store = session.store
        if place.where.beside or place.where.session is None:
            data = {"current": store.current_session_id(), "sessions": store.sessions()}
        else:  # a database kept elsewhere: the notebook's own session, once it has one
            data = {"current": session.session_id, "sessions": store.sessions(session.session_id)}
        return data | heard(store)


class SnapshotHandler(PlansHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.finish(await off_loop(lambda: self.snapshot_of(self.session()[0])))


class CardHandler(PlansHandler):
    """What the Plan panel renders: the snapshot, the notebook's name, a proposal's changes."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.finish(await off_loop(self._card))

    def _card(self) -> dict:
        session, name = self.session()
        if session is None:
            return {"snapshot": self.snapshot_of(None), "notebook": name, "changes": None}
        data = card_data(session, name)
        place = self.place()
        notebook, plan = place.notebook, place.plan
        warning = guard_warning(session, data["snapshot"], notebook, plan)
        if warning:
            data["guard_warning"] = warning
        guards = guard_data(session, data["snapshot"], notebook)
        if guards:
            data["guards"] = guards
        return data


class EventsHandler(PlansHandler):
    """The events after N, a page at a time: `limit` (default and most 1000) and `more`."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        after, limit = self._after(), self._limit()
        session, _ = await off_loop(self.session)
        if "text/event-stream" in self.request.headers.get("Accept", ""):
            await stream_events(self, self.session, session, after)
            return
        if session is None:
            self.finish({"events": [], "more": False})
            return
        # Serialized on the plan thread too: a page of 1000 events is work.
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.finish(await off_loop_page(_events_text, session, after, limit))

    def _after(self) -> int:
        # A Last-Event-ID header, when given, wins over ?after= (it is how a stream resumes).
        raw = self.request.headers.get("Last-Event-ID") or self.get_query_argument("after", "0")
        return _whole(raw, "after", 0, MAX_SEQ)

    def _limit(self) -> int:
        # More than a page is asked for as a page: `more` then says that more follow.
        raw = self.get_query_argument("limit", str(MAX_PAGE))
        return min(_whole(raw, "limit", 1, MAX_SEQ), MAX_PAGE)


def _events_text(session: PlanSession, after: int, limit: int) -> bytes:
    page, more = session.event_page(after, limit)
    return pydantic_core.to_json({"events": [event_json(e) for e in page], "more": more})


def _whole(raw: str, name: str, low: int, high: int) -> int:
    """A whole number from a query string or header, within [low, high]; 400 otherwise."""
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or not low <= int(text) <= high:
        shown = raw if len(raw) <= 40 else raw[:37] + "..."
        raise web.HTTPError(
            400, reason=f"{name} must be a whole number from {low} to {high}; found {shown!r}"
        )
    return int(text)


class DecisionHandler(PlansHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            body = DecisionBody.model_validate_json(self.request.body or b"")
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            self.fail(400, f"malformed decision: {where}: {first['msg']}")
            return
        if body.action == "approve" and not body.hash:
            # An approval binds the text the person read: the client says which one.
            self.fail(
                400,
                "malformed decision: hash: approve needs the 64-hex hash of the "
                "proposal that was shown; found none",
            )
            return
        try:
            snapshot = await off_loop(self._decide, body)
        except (DecisionRefused, PlanStoreError) as refusal:
            self.fail(409, str(refusal))
            return
        self.finish(snapshot.model_dump(mode="json"))

    def _decide(self, body: DecisionBody) -> Snapshot:
        session, _ = self.session(create=True)
        # Who: the identity Jupyter authenticated for this request, never one the body names.
        by = person_by(self.current_user, body.via or "server")
        # The words after the verb are the field it takes; on and off take none, so a field
        # given with them is refused as the words after them are.
        fields = {"approve": body.hash, "revise": body.notes}
        words = fields.get(body.action, body.hash or body.notes)
        run(session, body.action, words or "", by)
        return session.snapshot()


def person_by(user: Any, via: str) -> dict:
    """`by` of a person's act through the routes: the identity's name (see `person_name`), and
    its display name to show beside it where that says another."""
    display = getattr(user, "display_name", None) if user is not None else None
    return {"name": person_name(user), "via": via, "display": display}


def person_name(user: Any) -> str | None:
    """The name a person's act records for the request's Jupyter identity (see `jupyter_name`)."""
    if user is None:
        return None
    display = getattr(user, "display_name", None) or getattr(user, "name", None)
    return jupyter_name(getattr(user, "username", None), display)
