"""The write transaction of a session: its state under the write lock, the events an operation
emits, and their commit together with the session row."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import pydantic_core

from ..errors import CallIdTaken, ConnectionLost, PlanStoreError
from ..lazy import LazyModule
from ..plan.stored import USER_EDIT, decode_plan_event, encode_plan_event
from ..plan.who import PERSON_KINDS
from ..store.transaction import Tx

if TYPE_CHECKING:
    from .plan_session import PlanSession

    pass

# The models load with the first call that returns one: showing the card needs none.
models = LazyModule("jupyter_plans.plan.models")


def _dumps(value: Any) -> str:
    return pydantic_core.to_json(value).decode()


_loads = pydantic_core.from_json


def _decode_event(kind: str, text: str) -> dict:
    if kind == "plan_updated":
        return decode_plan_event(text)
    data = _loads(text)
    if kind in PERSON_KINDS and "by" not in data:
        # A person's act written before who decided was kept.
        if kind != "message_queued" or data.get("source") == "person":
            data["by"] = None
    return data


def _by_person(kind: str, data: dict) -> bool:
    """Whether an event of this change is the person's act (the change's `by` goes with it)."""
    if kind == "message_queued":
        return data.get("source") == "person"
    if kind == "plan_updated":
        return data.get("name") == USER_EDIT
    return kind in PERSON_KINDS


class EventData(NamedTuple):
    """An event as plain data: what `events()` returns as models."""

    seq: int
    kind: str
    data: dict
    at: str  # UTC, ISO 8601


def _now_ms() -> int:
    return int(time.time() * 1000)


def _iso(ms: int) -> str:
    """Milliseconds since the epoch as UTC ISO 8601, as events show their time."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


@dataclass(slots=True)
class _State:
    """The session row: the fold of the session's events, kept current in every write."""

    session_id: str
    cursor: int = 0
    revision: int = 0
    mode: str = "default"
    pending_proposal_hash: str | None = None
    approved_proposal_hash: str | None = None
    plan: dict | None = None
    plan_seq: int | None = None
    newest_turn_id: str | None = None
    newest_turn_ordinal: int = 0
    newest_turn_cancelled: bool = False
    finished_seq: int | None = None  # the plan_finished event, while the plan is finished
    agent_seq: int | None = None  # the last agent_status event of a bridged agent

    @classmethod
    def from_row(cls, row: Any, plan: dict | None) -> _State:
        return cls(
            session_id=row.session_id,
            cursor=row.cursor,
            revision=row.revision,
            mode=row.mode,
            pending_proposal_hash=row.pending_proposal_hash,
            approved_proposal_hash=row.approved_proposal_hash,
            plan=plan,
            plan_seq=row.plan_seq,
            newest_turn_id=row.newest_turn_id,
            newest_turn_ordinal=row.newest_turn_ordinal,
            newest_turn_cancelled=bool(row.newest_turn_cancelled),
            finished_seq=row.finished_seq,
            agent_seq=row.agent_seq,
        )


class EarlierUse(Exception):
    """A change made without looking for an earlier use of its call id may repeat one: it is
    undone, and made again looking first."""


@dataclass(slots=True)
class _Change:
    """The writes of one operation, applied together when it ends."""

    tx: Tx
    state: _State
    recorded: str | None  # the result of an accepted call of this call id, if any
    recorded_digest: str | None  # and the digest of that call's name and arguments
    loaded_cursor: int
    digest: str | None = None  # the digest of this call, recorded with its accepted event
    unlooked: bool = False  # an earlier use of the call id was not looked for (EarlierUse)
    events: list[dict] = field(default_factory=list)
    rows: list[tuple[Any, dict]] = field(default_factory=list)
    by: dict | None = None  # the person whose act this change is (plan/who.py)

    def emit(
        self,
        kind: str,
        data: dict,
        call_id: str | None = None,
        result: Any = None,
        body: str | None = None,  # a plan's body, as stored, when it was made before
    ) -> int:
        self.state.cursor += 1
        if self.by is not None and _by_person(kind, data):
            data = {**data, "by": self.by}
        result_text = None if result is None else _dumps(result)
        if kind == "plan_updated":  # as plan/stored.py says, with the texts already made
            text = encode_plan_event(data, body, result_text)
        else:
            text = _dumps(data)
        self.events.append(
            {
                "session_id": self.state.session_id,
                "seq": self.state.cursor,
                "kind": kind,
                "data": text,
                "at": _now_ms(),
                "call_id": call_id,
                "result": result_text,
                "call_digest": None if call_id is None else self.digest,
            }
        )
        return self.state.cursor

    def add(self, statement: Any, params: dict) -> None:
        self.rows.append((statement, params))


def _write_state(change: _Change) -> None:
    s = change.state
    params = {
        "sid": s.session_id,
        "loaded_cursor": change.loaded_cursor,
        "b_cursor": s.cursor,
        "b_revision": s.revision,
        "b_mode": s.mode,
        "b_pending": s.pending_proposal_hash,
        "b_approved": s.approved_proposal_hash,
        "b_plan_seq": s.plan_seq,
        "b_turn_id": s.newest_turn_id,
        "b_turn_ordinal": s.newest_turn_ordinal,
        "b_turn_cancelled": s.newest_turn_cancelled,
        "b_finished_seq": s.finished_seq,
        "b_agent_seq": s.agent_seq,
    }
    change.tx.execute("UPDATE_STATE", params)


def _check_state_written(change: _Change) -> None:
    if change.tx.rowcount != 1:
        # The row lock (or SQLite's write lock) makes this unreachable unless another writer
        # ignored the locking protocol; refuse rather than lose its update.
        s = change.state
        raise PlanStoreError(f"session {s.session_id!r} was changed by another writer; retry")


def _write_rows(change: _Change) -> None:
    for statement, params in change.rows:
        change.tx.execute(statement, params)


def _append_events(change: _Change) -> None:
    if len(change.events) == 1:
        change.tx.execute("INSERT_EVENT", change.events[0])
    else:
        change.tx.execute_many("INSERT_EVENT", change.events)


class _Writing:
    """The context of one change (a class, not a generator: it runs on every tool call).

    The session's state comes from its row, read under the write lock; or, on SQLite, from
    what this connection itself last committed to the row when no other connection has
    committed since (the store's written_states), which spares the read. The entry is taken
    out while the change runs (the change works on it) and put back only once the change has
    committed: a change that failed, or wrote nothing, leaves the next one to read the row.
    """

    __slots__ = ("session", "call_id", "look_later", "tx", "change", "written")

    def __init__(self, session: PlanSession, call_id: str | None, look_later: bool) -> None:
        self.session, self.call_id = session, call_id
        self.look_later = look_later and call_id is not None

    def __enter__(self) -> _Change:
        session = self.session
        key = {"sid": session.session_id, "call_id": self.call_id}
        tx = self.tx = session.store.write(session.session_id).__enter__()
        try:
            self.written = session.store.written_states(tx)
            known = self.written.pop(session.session_id, None)
            if known is not None:
                later = self.look_later
                found = None if self.call_id is None or later else tx.first("SELECT_RECORDED", key)
                recorded, digest = (None, None) if found is None else found
                self.change = _Change(tx, known, recorded, digest, known.cursor, unlooked=later)
                return self.change
            select_state = "SELECT_STATE" if self.call_id is not None else "SELECT_STATE_ONLY"
            row = tx.first(select_state, key)
            if row is None:
                insert = session.store.insert_session
                tx.execute(insert, {"sid": session.session_id, "created_at": _iso(_now_ms())})
                row = tx.first(select_state, key)
            plan = session._plan_at(tx, row.plan_seq)
            self.change = _Change(
                tx, _State.from_row(row, plan), row.recorded, row.recorded_digest, row.cursor
            )
        except BaseException:
            tx.__exit__(*sys.exc_info())
            raise
        return self.change

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        change = self.change
        changed = kind is None and bool(change.events)
        if changed:
            try:
                with change.tx.pipeline():  # one round trip on PostgreSQL
                    _write_rows(change)
                    _append_events(change)
                    _write_state(change)  # last: its count is the one read after the block
                _check_state_written(change)
            except BaseException:
                try:
                    self.tx.__exit__(*sys.exc_info())
                except CallIdTaken:
                    if change.unlooked:  # an accepted call of this id is recorded: look first
                        raise EarlierUse from None
                    raise
                raise
        try:
            self.tx.__exit__(kind, error, traceback)
            if changed:  # committed on this connection: the row now holds this
                self.written[change.state.session_id] = change.state
        except ConnectionLost as lost:
            # The commit was on its way when the connection went: look, do not assume.
            if not (changed and lost.committing and self.session._landed(change.events[-1])):
                raise
        if changed:
            session, state = self.session, change.state
            if state.plan_seq is not None:
                session.store.plan_cache[session.session_id] = (state.plan_seq, state.plan)
            session.store.notify(session.session_id, state.cursor)
