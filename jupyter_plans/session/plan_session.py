"""PlanSession: the operations on one durable plan, each one transaction that appends its events.

Its reading is here; its tool calls, its person's verbs and its write transaction each have a
module of their own in this folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConnectionLost
from ..plan.revision import diff_steps
from ..plan.stored import decode_plan_event
from ..store import Store, check_session_id
from ..store.transaction import ATTEMPTS as _ATTEMPTS
from ..store.transaction import Tx
from ..store.transaction import reconnecting as _reconnecting

if TYPE_CHECKING:
    from ..plan.models import Event, Message, Snapshot
from ..plan.cells import cells_view
from .bridged import BridgedWrites
from .cells import CellLinks
from .comments import Comments, shown_comments
from .decisions import Decisions
from .tools import AgentTools
from .transaction import EventData, _decode_event, _iso, _loads, _Writing, models


class PlanSession(AgentTools, Decisions, BridgedWrites, CellLinks, Comments):
    """One durable plan. Every method that changes it is one transaction with its events."""

    def __init__(self, store: Store, session_id: str) -> None:
        check_session_id(session_id)
        self.store = store
        self.session_id = session_id

    @classmethod
    def of(cls, store: Any, session_id: str | None = None) -> PlanSession:
        """The session named `session_id` in `store`, or the store's current one."""
        return cls(store, store.current_session_id() if session_id is None else session_id)

    def __repr__(self) -> str:
        return f"<PlanSession {self.session_id!r} in {self.store!r}>"

    # The transaction every change goes through.

    def _landed(self, last_event: dict) -> bool:
        """Whether the last event of a commit whose outcome is unknown is in the store."""
        for attempt in range(_ATTEMPTS):
            try:
                with self.store.read() as tx:
                    row = tx.first(
                        "SELECT_EVENT_CHECK", {"sid": self.session_id, "seq": last_event["seq"]}
                    )
                break
            except ConnectionLost:
                if attempt == _ATTEMPTS - 1:
                    raise
        return row is not None and (row.kind, row.data, row.at) == (
            last_event["kind"],
            last_event["data"],
            last_event["at"],
        )

    def _writing(self, call_id: str | None = None, look_later: bool = False) -> _Writing:
        """The session's state under the write lock; what the block emits commits with it.

        With a `call_id`, the result recorded for an accepted call of that id comes too
        (`look_later`: see AgentTools._run_call).
        """
        return _Writing(self, call_id, look_later)

    def _agent_at(self, tx: Tx, agent_seq: int | None) -> dict | None:
        """The bridged agent's status stored in event `agent_seq` (session/bridged.py)."""
        if agent_seq is None:
            return None
        data = tx.scalar("SELECT_EVENT_DATA", {"sid": self.session_id, "seq": agent_seq})
        return None if data is None else _loads(data)

    def _plan_at(self, tx: Tx, plan_seq: int | None) -> dict | None:
        """The plan stored in event `plan_seq`, parsed once per process and then shared.

        Events never change, so a plan parsed once stays right; callers must not mutate it.
        """
        if plan_seq is None:
            return None
        cached = self.store.plan_cache.get(self.session_id)
        if cached is not None and cached[0] == plan_seq:
            return cached[1]
        data = tx.scalar("SELECT_EVENT_DATA", {"sid": self.session_id, "seq": plan_seq})
        plan = decode_plan_event(data)["plan"]
        self.store.plan_cache[self.session_id] = (plan_seq, plan)
        return plan

    # Reading.

    @_reconnecting
    def snapshot(self) -> Snapshot:
        return models.Snapshot.model_validate(self.snapshot_data())

    @_reconnecting
    def snapshot_data(self) -> dict[str, Any]:
        """The snapshot as JSON data, made without the models (the card shows this form).

        It shares the stored plan with this process's cache: do not change it.
        """
        with self.store.read() as tx:
            row = tx.first("SELECT_ROW", {"sid": self.session_id})
            decided = tx.all("SELECT_DECISIONS", {"sid": self.session_id})
            ran = tx.all("SELECT_CELLS", {"sid": self.session_id}) if row is not None else ()
            plan = self._plan_at(tx, row.plan_seq) if row is not None else None
            comments = shown_comments(tx, self.session_id) if row is not None else []
            agent = self._agent_at(tx, row.agent_seq) if row is not None else None
        return {
            "session_id": self.session_id,
            "cursor": row.cursor if row is not None else 0,
            "mode": row.mode if row is not None else "default",
            "pending_proposal_hash": row.pending_proposal_hash if row is not None else None,
            "approved_proposal_hash": row.approved_proposal_hash if row is not None else None,
            "plan": plan,
            "decisions": [
                {
                    "title": d.title,
                    "rationale": d.rationale,
                    "sources": _loads(d.sources),
                    "by": None,
                }
                for d in decided
            ],
            "cells": cells_view(ran),
            "comments": comments,
            "agent_mode": None if agent is None else agent.get("mode"),
        }

    @_reconnecting
    def events(self, after: int = 0) -> list[Event]:
        return [models.Event(**event._asdict()) for event in self.event_data(after)]

    @_reconnecting
    def event_data(self, after: int = 0) -> list[EventData]:
        """The events after `after` as plain tuples (seq, kind, data, at), made without the
        models: what %load_ext tells about the time since the notebook last looked."""
        with self.store.read() as tx:
            rows = tx.all("SELECT_EVENTS", {"sid": self.session_id, "after": after})
        return [EventData(r.seq, r.kind, _decode_event(r.kind, r.data), _iso(r.at)) for r in rows]

    @_reconnecting
    def event_page(self, after: int = 0, limit: int = 1000) -> tuple[list[EventData], bool]:
        """At most `limit` events after `after`, and whether more follow them: how a long
        history is read a page at a time (the server's routes and streams)."""
        with self.store.read() as tx:
            rows = tx.all(
                "SELECT_EVENTS_PAGE", {"sid": self.session_id, "after": after, "limit": limit + 1}
            )
        page = [EventData(r.seq, r.kind, _decode_event(r.kind, r.data), _iso(r.at)) for r in rows]
        return page[:limit], len(page) > limit

    @_reconnecting
    def cursor(self) -> int:
        """The seq of the newest event; cheap enough to poll."""
        with self.store.read() as tx:
            row = tx.first("SELECT_HEAD", {"sid": self.session_id})
        return row.cursor if row is not None else 0

    @_reconnecting
    def head(self) -> tuple[int, str | None]:
        """The seq of the newest event and the waiting proposal's hash, in one cheap read."""
        with self.store.read() as tx:
            row = tx.first("SELECT_HEAD", {"sid": self.session_id})
        return (0, None) if row is None else (row.cursor, row.pending_proposal_hash)

    @_reconnecting
    def waiting_proposal(self) -> str | None:
        """The hash of the proposal waiting for a decision; as cheap as cursor()."""
        with self.store.read() as tx:
            row = tx.first("SELECT_HEAD", {"sid": self.session_id})
        return row.pending_proposal_hash if row is not None else None

    @_reconnecting
    def waiting_messages(self) -> list[Message]:
        """The queue as it stands, oldest first, whether or not it may be delivered now."""
        with self.store.read() as tx:
            rows = tx.all("SELECT_WAITING", {"sid": self.session_id})
        return [models.Message(message_id=r.message_id, source=r.source, text=r.text) for r in rows]

    @_reconnecting
    def proposal_changes(self) -> dict | None:
        """What the waiting proposal changed since the one before it: added, removed, reworded
        and reordered steps, and `since_revision`, the revision of the one before.

        None when no proposal waits or it is the first.
        """
        with self.store.read() as tx:
            row = tx.first("SELECT_HEAD", {"sid": self.session_id})
            if row is None or row.pending_proposal_hash is None:
                return None
            found = tx.all("SELECT_LAST_TWO_PROPOSALS", {"sid": self.session_id})
        if len(found) < 2:
            return None
        new, old = (_loads(r.body) for r in found)
        return {
            "since_revision": found[1].revision,
            **diff_steps(_body_steps(old), _body_steps(new)),
        }


def _body_steps(body: dict) -> list[dict]:
    return [step for phase in body["phases"] for step in phase["steps"]]


class PlanStore(Store):
    """A durable home for plan sessions: a SQLite file beside the notebook, or a database URL."""

    def session(self, session_id: str | None = None) -> PlanSession:
        """The session named `session_id`, or the store's current one."""
        return PlanSession.of(self, session_id)
