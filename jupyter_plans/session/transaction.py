"""The write transaction of a session: its state under the write lock, the events an operation
emits (a `Change`), and their commit together with the session row."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CallIdTaken, ConnectionLost, PlanStoreError
from ..plan.stored import encode_plan_event
from ..store.transaction import ATTEMPTS, Tx
from .events import by_person, dumps, iso, plan_at

MAX_HOPS = 8  # ids a write takes, at most, while its session is renamed again and again

if TYPE_CHECKING:
    from ..store import Store


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class State:
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

    def copy(self) -> State:
        return State(
            self.session_id,
            self.cursor,
            self.revision,
            self.mode,
            self.pending_proposal_hash,
            self.approved_proposal_hash,
            self.plan,
            self.plan_seq,
            self.newest_turn_id,
            self.newest_turn_ordinal,
            self.newest_turn_cancelled,
            self.finished_seq,
            self.agent_seq,
        )

    @classmethod
    def from_row(cls, row: Any, plan: dict | None) -> State:
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
class Change:
    """The writes of one operation, applied together when it ends."""

    tx: Tx
    state: State
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
        if self.by is not None and by_person(kind, data):
            data = {**data, "by": self.by}
        result_text = None if result is None else dumps(result)
        if kind == "plan_updated":  # as plan/stored.py says, with the texts already made
            text = encode_plan_event(data, body, result_text)
        else:
            text = dumps(data)
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

    def savepoint(self) -> tuple[State, int, int]:
        """What the change holds now, for `roll_back`: the state (its plan is replaced, never
        changed in place, so a shallow copy keeps it) and how many writes wait."""
        return self.state.copy(), len(self.events), len(self.rows)

    def roll_back(self, point: tuple[State, int, int]) -> None:
        """Undo every write made since `point`: none of them will be committed."""
        state, events, rows = point
        self.state = state
        del self.events[events:]
        del self.rows[rows:]


def _write_state(change: Change) -> None:
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


def _check_state_written(change: Change) -> None:
    if change.tx.rowcount != 1:
        # The row lock (or SQLite's write lock) makes this unreachable unless another writer
        # ignored the locking protocol; refuse rather than lose its update.
        s = change.state
        raise PlanStoreError(f"session {s.session_id!r} was changed by another writer; retry")


def _write_rows(change: Change) -> None:
    for statement, params in change.rows:
        change.tx.execute(statement, params)


def _append_events(change: Change) -> None:
    if len(change.events) == 1:
        change.tx.execute("INSERT_EVENT", change.events[0])
    else:
        change.tx.execute_many("INSERT_EVENT", change.events)


class Writing:
    """The context of one change (a class, not a generator: it runs on every tool call).

    The session's state comes from its row, read under the write lock; or, on SQLite, from
    what this connection itself last committed to the row when no other connection has
    committed since (connections.written_states), which spares the read. The entry is taken out
    while the change runs (the change works on it) and put back only once the change has
    committed: a change that failed, or wrote nothing, leaves the next one to read the row.

    With a `call_id`, the result recorded for an accepted call of that id comes too; with
    `look_later` as well, not while the state is known (see tools.py, run_call).
    """

    __slots__ = ("session", "store", "session_id", "call_id", "look_later", "tx", "change")
    __slots__ += ("written",)

    def __init__(self, session: Any, call_id: str | None = None, look_later: bool = False) -> None:
        self.session, self.store, self.session_id = session, session.store, session.session_id
        self.call_id = call_id
        self.look_later = look_later and call_id is not None

    def __enter__(self) -> Change:
        store, sid = self.store, self.session_id
        tx = self.tx = store.write(sid).__enter__()
        try:
            self.written = store.connections.written_states(tx)
            known = self.written.pop(sid, None)
            if known is not None:
                later = self.look_later
                key = {"sid": sid, "call_id": self.call_id}
                found = None if self.call_id is None or later else tx.first("SELECT_RECORDED", key)
                recorded, digest = (None, None) if found is None else found
                self.change = Change(tx, known, recorded, digest, known.cursor, unlooked=later)
                return self.change
            row = self._locked_row(tx)
            plan = plan_at(tx, store, self.session_id, row.plan_seq)
            self.change = Change(
                tx, State.from_row(row, plan), row.recorded, row.recorded_digest, row.cursor
            )
        except BaseException:
            tx.__exit__(*sys.exc_info())
            raise
        return self.change

    def _locked_row(self, tx: Tx) -> Any:
        """The session's row under the write lock, made where there is none; where the session
        was renamed with its notebook since this object knew it, the row of its new id (the
        change is then written, and told, under that id)."""
        select_state = "SELECT_STATE" if self.call_id is not None else "SELECT_STATE_ONLY"
        for _hop in range(MAX_HOPS):
            row = tx.first(select_state, {"sid": self.session_id, "call_id": self.call_id})
            if not self.session.moved(tx, row, self.session_id, writing=True):
                break
            self.session_id = self.session.session_id
            tx.tell_session(self.session_id)
        if row is None:
            key = {"sid": self.session_id, "call_id": self.call_id}
            tx.execute(
                self.store.insert_session, {"sid": self.session_id, "created_at": iso(_now_ms())}
            )
            row = tx.first(select_state, key)
            self.session.born = row.created_at
        return row

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
                self.written[self.session_id] = change.state
        except ConnectionLost as lost:
            # The commit was on its way when the connection went: look, do not assume.
            if not (changed and lost.committing and landed(self.store, change.events[-1])):
                raise
        if changed:
            state = change.state
            if state.plan_seq is not None:
                self.store.plan_cache[self.session_id] = (state.plan_seq, state.plan)
            self.store.notify(self.session_id, state.cursor)


def landed(store: Store, last_event: dict) -> bool:
    """Whether the last event of a commit whose outcome is unknown is in the store."""
    key = {"sid": last_event["session_id"], "seq": last_event["seq"]}
    for attempt in range(ATTEMPTS):
        try:
            with store.read() as tx:
                row = tx.first("SELECT_EVENT_CHECK", key)
            break
        except ConnectionLost:
            if attempt == ATTEMPTS - 1:
                raise
    return row is not None and (row.kind, row.data, row.at) == (
        last_event["kind"],
        last_event["data"],
        last_event["at"],
    )
