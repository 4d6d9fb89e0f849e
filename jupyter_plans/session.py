"""PlanSession: the operations on one durable plan, each one transaction that appends its events."""

from __future__ import annotations

import re
import sys
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import pydantic_core

from . import policy
from ._lazy import LazyModule
from ._plan import body_hash, build_plan, describe_diff, diff_steps, proposal_body
from ._review import check_finishable, reviewed
from ._stored import decode_plan_event, encode_plan_event
from .errors import ConnectionLost, DecisionRefused, PlanStoreError
from .store import check_session_id
from .store._tx import ATTEMPTS as _ATTEMPTS
from .store._tx import Tx
from .store._tx import reconnecting as _reconnecting
from .tools import CATALOG
from .validation import (
    MAX_CALL_ID_BYTES,
    CheckedPlan,
    Refused,
    call_digest,
    check_expected_revision,
    check_ids,
    id_refusal,
    person_text_refusal,
    quote,
    recorded_tool_name,
    tool_name_refusal,
)

if TYPE_CHECKING:
    from .models import Event, FinalReview, Message, Question, Snapshot, ToolResult
    from .store import PlanStore

# The models load with the first call that returns one: showing the card needs none.
models = LazyModule(f"{__package__}.models")

ENFORCEMENT = "session-metadata-only"

# What this process has shown the person of each store's sessions: the hash of the waiting
# proposal that a card last displayed. A bare `%plan approve` binds that, never whatever is
# waiting by the time it commits.
_shown: weakref.WeakKeyDictionary[PlanStore, dict[str, str]] = weakref.WeakKeyDictionary()
_HASH = re.compile("[0-9a-f]{64}")


def _dumps(value: Any) -> str:
    return pydantic_core.to_json(value).decode()


_loads = pydantic_core.from_json


def _decode_event(kind: str, text: str) -> dict:
    return decode_plan_event(text) if kind == "plan_updated" else _loads(text)


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

    def values(self) -> tuple:
        """The fields in order, as `_State(*values)` takes them back."""
        return (
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
        )

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
        )


@dataclass(slots=True)
class _Change:
    """The writes of one operation, applied together when it ends."""

    tx: Tx
    state: _State
    recorded: str | None  # the result of an accepted call of this call id, if any
    recorded_digest: str | None  # and the digest of that call's name and arguments
    loaded_cursor: int
    digest: str | None = None  # the digest of this call, recorded with its accepted event
    events: list[dict] = field(default_factory=list)
    rows: list[tuple[Any, dict]] = field(default_factory=list)

    def emit(
        self,
        kind: str,
        data: dict,
        call_id: str | None = None,
        result: Any = None,
        body: str | None = None,  # a plan's body, as stored, when it was made before
    ) -> int:
        self.state.cursor += 1
        result_text = None if result is None else _dumps(result)
        if kind == "plan_updated":  # as _stored.py says, with the texts already made
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
    }
    if change.tx.execute("UPDATE_STATE", params) != 1:
        # The row lock (or SQLite's write lock) makes this unreachable unless another writer
        # ignored the locking protocol; refuse rather than lose its update.
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
    out while the change runs and put back only once it has committed.
    """

    __slots__ = ("session", "call_id", "tx", "change", "written", "loaded")

    def __init__(self, session: PlanSession, call_id: str | None) -> None:
        self.session, self.call_id = session, call_id

    def __enter__(self) -> _Change:
        session = self.session
        key = {"sid": session.session_id, "call_id": self.call_id}
        tx = self.tx = session.store.write().__enter__()
        try:
            self.written = session.store.written_states(tx)
            known = self.loaded = self.written.pop(session.session_id, None)
            if known is not None:
                found = None if self.call_id is None else tx.first("SELECT_RECORDED", key)
                recorded, digest = (None, None) if found is None else found
                self.change = _Change(tx, _State(*known), recorded, digest, known[1])
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
            self.loaded = self.change.state.values()
        except BaseException:
            tx.__exit__(*sys.exc_info())
            raise
        return self.change

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        change = self.change
        changed = kind is None and bool(change.events)
        if changed:
            try:
                _write_state(change)
                _write_rows(change)
                _append_events(change)
            except BaseException:
                self.tx.__exit__(*sys.exc_info())
                raise
        try:
            self.tx.__exit__(kind, error, traceback)
            if kind is None:  # committed on this connection: the row now holds this
                written = change.state.values() if changed else self.loaded
                self.written[change.state.session_id] = written
        except ConnectionLost as lost:
            # The commit was on its way when the connection went: look, do not assume.
            if not (changed and lost.committing and self.session._landed(change.events[-1])):
                raise
        if changed:
            session, state = self.session, change.state
            if state.plan_seq is not None:
                session.store.plan_cache[session.session_id] = (state.plan_seq, state.plan)
            session.store.notify(session.session_id, state.cursor)


class PlanSession:
    """One durable plan. Every method that changes it is one transaction with its events."""

    def __init__(self, store: PlanStore, session_id: str) -> None:
        check_session_id(session_id)
        self.store = store
        self.session_id = session_id

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

    def _writing(self, call_id: str | None = None) -> _Writing:
        """The session's state under the write lock; what the block emits commits with it.

        With a `call_id`, the result recorded for an accepted call of that id comes too.
        """
        return _Writing(self, call_id)

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
            plan = self._plan_at(tx, row.plan_seq) if row is not None else None
        return {
            "session_id": self.session_id,
            "cursor": row.cursor if row is not None else 0,
            "mode": row.mode if row is not None else "default",
            "pending_proposal_hash": row.pending_proposal_hash if row is not None else None,
            "approved_proposal_hash": row.approved_proposal_hash if row is not None else None,
            "plan": plan,
            "decisions": [
                {"title": d.title, "rationale": d.rationale, "sources": _loads(d.sources)}
                for d in decided
            ],
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

    # Agent tools.

    @_reconnecting
    def call_tool(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run a tool call from an agent; never raises for bad input, returns is_error instead.

        `turn_id` and `call_id` come from the integration, not the model: one that is not a
        string raises TypeError, and one that is not valid Unicode or not 1 to 128 bytes
        raises ValueError. A repeat of an accepted call's `call_id` with the same tool and
        equal arguments returns the recorded result; with another call it is refused.
        """
        if turn_id is not None or call_id is not None:
            check_ids(turn_id, call_id)
        # The bounds that need no stored state are checked before the write lock is taken,
        # so a writer holds it only for what depends on the session.
        bad_name = tool_name_refusal(name)
        spec, parsed, invalid = None if bad_name else CATALOG.get(name), None, None
        if spec is not None:
            try:
                parsed = spec.parse(args)
            except Refused as refusal:
                invalid = refusal
        digest = None if call_id is None else call_digest(name, args)
        with self._writing(call_id) as change:
            change.digest = digest
            # Before every other check: a retry of an accepted call changes nothing.
            if change.recorded is not None and change.recorded_digest in (None, digest):
                return models.ToolResult.model_validate_json(change.recorded)
            try:
                if change.recorded is not None:
                    raise Refused(
                        f"call id {quote(call_id)} was already used for a different call (another "
                        "tool or other arguments); this call was not applied: send it under a "
                        "new call id"
                    )
                if bad_name:
                    raise Refused(bad_name)
                self._see_turn(change, turn_id)
                refusal = policy.refusal_for_tool(name, change.state.mode)
                if refusal:
                    raise Refused(refusal)
                if invalid is not None:
                    raise invalid
                content = getattr(self, f"_tool_{name}")(change, parsed, turn_id, call_id)
                return models.ToolResult(is_error=False, content=content)
            except Refused as refusal:
                result = models.ToolResult(is_error=True, content=str(refusal))
                change.emit(
                    "tool_finished",
                    {
                        "name": recorded_tool_name(name),
                        "call_id": call_id,
                        "result": result.model_dump(),
                    },
                )
                return result

    @_reconnecting
    def record_refusal(self, name: Any, content: str, *, call_id: str | None = None) -> ToolResult:
        """Record a call an integration refused itself (an unknown tool of its own catalog)
        as any refused call is recorded, and return its error result."""
        result = models.ToolResult(is_error=True, content=content)
        if call_id is not None and id_refusal("call_id", call_id, MAX_CALL_ID_BYTES):
            call_id = None  # the refusal is recorded; an id it cannot keep is left out
        with self._writing() as change:
            change.emit(
                "tool_finished",
                {
                    "name": recorded_tool_name(name),
                    "call_id": call_id,
                    "result": result.model_dump(),
                },
            )
        return result

    def _see_turn(self, change: _Change, turn_id: str | None) -> None:
        """Refuse a call from a cancelled or older turn; register a new turn as the newest."""
        if turn_id is None:
            return
        s = change.state
        if turn_id == s.newest_turn_id and not s.newest_turn_cancelled:
            return
        found = change.tx.first("SELECT_TURN", {"sid": s.session_id, "turn_id": turn_id})
        if found is not None and found.cancelled:
            raise Refused(
                f"turn {turn_id!r} was cancelled when the person left plan mode; "
                "this call is late and was not applied"
            )
        if found is not None:
            raise Refused(
                f"turn {turn_id!r} is older than the newest turn {s.newest_turn_id!r}; "
                "this call is late and was not applied"
            )
        s.newest_turn_ordinal += 1
        s.newest_turn_id = turn_id
        s.newest_turn_cancelled = False
        change.add(
            "INSERT_TURN",
            {
                "session_id": s.session_id,
                "turn_id": turn_id,
                "ordinal": s.newest_turn_ordinal,
                "cancelled": False,
            },
        )

    def _tool_update_plan(self, change: _Change, args: CheckedPlan, turn_id, call_id) -> str:
        s = change.state
        check_expected_revision(args.expected_revision, s.revision, required=True)
        plan, reopened = build_plan(args.body, s.plan, s.revision + 1, turn_id, call_id)
        body = None if reopened else args.text  # reopening changed the steps
        content = f"Plan updated to revision {plan['revision']}."
        if reopened:
            content += (
                " Reopened as pending, because a step they depend on is no longer completed: "
                + ", ".join(reopened)
                + "."
            )
        if s.pending_proposal_hash is not None:
            content += (
                " Your proposal still waits for the person's decision and stays bound to the "
                "text you submitted; call plan_submit again if the proposal should change."
            )
        return self._store_plan(change, "update_plan", plan, content, turn_id, call_id, body)

    def _tool_plan_submit(self, change: _Change, args: CheckedPlan, turn_id, call_id) -> str:
        s = change.state
        check_expected_revision(args.expected_revision, s.revision, required=False)
        plan, reopened = build_plan(args.body, s.plan, s.revision + 1, turn_id, call_id)
        stored = None if reopened else args.text
        body = proposal_body(plan)
        digest = body_hash(body)
        content = (
            f"Proposal submitted as revision {plan['revision']} (hash {digest}). "
            "End your turn now and wait: the person will approve it, ask for changes, "
            "or leave plan mode."
        )
        content = self._store_plan(change, "plan_submit", plan, content, turn_id, call_id, stored)
        self._propose(change, digest, body)
        return content

    def _tool_record_decision(self, change: _Change, decision: dict, turn_id, call_id) -> str:
        content = f"Decision recorded: {decision['title']}"
        seq = change.emit(
            "decision_recorded",
            decision,
            call_id=call_id,
            result={"is_error": False, "content": content},
        )
        change.add(
            "INSERT_DECISION",
            {
                "session_id": change.state.session_id,
                "seq": seq,
                "title": decision["title"],
                "rationale": decision["rationale"],
                "sources": _dumps(decision["sources"]),
            },
        )
        return content

    def _tool_ask_user(self, change: _Change, question: str, turn_id, call_id) -> str:
        s = change.state
        if s.pending_proposal_hash is not None:
            raise Refused(
                "ask_user is refused while your proposal waits for the person's decision; "
                "end your turn and wait"
            )
        if self._open_question(change.tx) is not None:
            raise Refused(
                "ask_user is refused: your earlier question is still open; end your turn and "
                "wait for the person's answer"
            )
        content = (
            "Your question is shown to the person. End your turn now; their answer will "
            "arrive as their next message."
        )
        seq = change.emit(
            "question_asked",
            {"question": question, "turn_id": turn_id, "call_id": call_id},
            call_id=call_id,
            result={"is_error": False, "content": content},
        )
        change.add(
            "INSERT_QUESTION",
            {
                "session_id": s.session_id,
                "asked_seq": seq,
                "turn_id": turn_id,
                "question": question,
                "closed_seq": None,
            },
        )
        return content

    def _open_question(self, tx: Tx) -> Question | None:
        row = tx.first("SELECT_OPEN_QUESTION", {"sid": self.session_id})
        if row is None:
            return None
        return models.Question(question=row.question, turn_id=row.turn_id, asked_seq=row.asked_seq)

    def _close_question(self, change: _Change, action: str, message_id: int | None) -> None:
        question = self._open_question(change.tx)
        if question is None:
            return
        seq = change.emit(
            "question_closed",
            {"asked_seq": question.asked_seq, "action": action, "message_id": message_id},
        )
        change.add(
            "CLOSE_QUESTION",
            {"sid": self.session_id, "b_asked_seq": question.asked_seq, "b_closed_seq": seq},
        )

    @_reconnecting
    def open_question(self) -> Question | None:
        """The question the agent asked with ask_user that waits for the person's answer."""
        with self.store.read() as tx:
            return self._open_question(tx)

    @_reconnecting
    def open_question_text(self) -> str | None:
        """The open question's text, read without the models (as the card shows it)."""
        with self.store.read() as tx:
            row = tx.first("SELECT_OPEN_QUESTION", {"sid": self.session_id})
        return row.question if row is not None else None

    @_reconnecting
    def answer(self, text: str) -> Message:
        """The person's answer to the open question, queued as the person's message."""
        _check_person_text("the answer", text)
        with self._writing() as change:
            if self._open_question(change.tx) is None:
                raise DecisionRefused("nothing to answer: the agent has no open question")
            return self._queue(change, "person", text)

    def _store_plan(self, change, name, plan, content, turn_id, call_id, body=None) -> str:
        """Store an accepted plan; returns the result's content (a finished plan it reopens
        says so). `body` is the stored text of the plan's body, when validation made it."""
        s = change.state
        if s.finished_seq is not None:
            # First, so that plan_submit's proposal_submitted still follows its plan_updated.
            s.finished_seq = None
            change.emit("plan_reopened", {"revision": plan["revision"], "name": name})
            content += (
                " This change reopens the finished plan; call finish_plan again once every "
                "step is completed."
            )
        s.plan = plan
        s.revision = plan["revision"]
        result = {"is_error": False, "content": content}
        s.plan_seq = change.emit(
            "plan_updated",
            {
                "name": name,
                "call_id": call_id,
                "turn_id": turn_id,
                "plan": plan,
                "result": result,
                "enforcement": ENFORCEMENT,
            },
            call_id=call_id,
            result=result,
            body=body,
        )
        return content

    def _tool_finish_plan(self, change: _Change, items: list[dict], turn_id, call_id) -> str:
        s = change.state
        check_finishable(s.plan)
        review = reviewed(s.plan, items)
        again = " (it replaces the earlier review)" if s.finished_seq is not None else ""
        content = (
            f"The plan is finished at revision {s.revision}: the review of its "
            f"{len(review)} objectives is shown to the person{again}. A later change to the "
            "plan reopens it."
        )
        result = {"is_error": False, "content": content}
        s.finished_seq = change.emit(
            "plan_finished",
            {
                "name": "finish_plan",
                "call_id": call_id,
                "turn_id": turn_id,
                "revision": s.revision,
                "review": review,
                "result": result,
            },
            call_id=call_id,
            result=result,
        )
        return content

    @_reconnecting
    def review(self) -> FinalReview | None:
        """The accepted final review of the current plan; None while the plan is not finished."""
        data = self.review_data()
        return None if data is None else models.FinalReview.model_validate(data)

    @_reconnecting
    def review_data(self) -> dict | None:
        """The final review as JSON data (`revision` and `review`), made without the models."""
        with self.store.read() as tx:
            seq = tx.scalar("SELECT_FINISHED", {"sid": self.session_id})
            if seq is None:
                return None
            data = _loads(tx.scalar("SELECT_EVENT_DATA", {"sid": self.session_id, "seq": seq}))
        return {"revision": data["revision"], "review": data["review"]}

    def _propose(self, change: _Change, digest: str, body: dict) -> None:
        s = change.state
        s.pending_proposal_hash = digest
        seq = change.emit("proposal_submitted", {"hash": digest, "revision": s.revision})
        change.add(
            "INSERT_PROPOSAL",
            {
                "session_id": s.session_id,
                "seq": seq,
                "hash": digest,
                "revision": s.revision,
                "body": _dumps(body),
            },
        )

    # The person's verbs. Each raises DecisionRefused, changing nothing, when refused.

    @_reconnecting
    def on(self) -> Snapshot:
        """Enter plan mode; a proposal still waiting is dropped."""
        with self._writing() as change:
            self._enter_plan_mode(change)
        return self.snapshot()

    @_reconnecting
    def start_planning(self, task: str) -> Snapshot:
        """Enter plan mode and queue `task` as the person's message: the task to plan."""
        _check_person_text("the task", task)
        with self._writing() as change:
            self._enter_plan_mode(change)
            self._queue(change, "person", task)
        return self.snapshot()

    @_reconnecting
    def off(self) -> Snapshot:
        """Leave plan mode: clear any wait and cancel the newest turn."""
        with self._writing() as change:
            s = change.state
            if s.pending_proposal_hash is not None:
                self._decide(change, "left")
            self._set_mode(change, "default")
            if s.newest_turn_id is not None and not s.newest_turn_cancelled:
                s.newest_turn_cancelled = True
                change.add("CANCEL_TURN", {"sid": s.session_id, "b_turn_id": s.newest_turn_id})
                change.emit("turn_cancelled", {"turn_id": s.newest_turn_id})
            self._close_question(change, "dropped", None)
        return self.snapshot()

    @_reconnecting
    def approve(self, hash: str | None = None) -> Snapshot:  # noqa: A002 - the documented name
        """Approve the waiting proposal (only it: a given hash must match in full)."""
        with self._writing() as change:
            s = change.state
            pending = s.pending_proposal_hash
            if pending is None:
                raise DecisionRefused("nothing to approve: no proposal is waiting for a decision")
            if hash is not None and hash != pending:
                raise DecisionRefused(self._wrong_hash(change, hash, pending))
            if body_hash(proposal_body(s.plan)) != pending:
                raise DecisionRefused(
                    f"the plan changed after proposal {pending[:12]} was submitted; "
                    "ask the agent to submit it again before approving"
                )
            s.approved_proposal_hash = pending
            self._decide(change, "approved")
            self._set_mode(change, "default")
            self._queue(change, "notice", _approval_notice(s.plan, pending))
        return self.snapshot()

    def mark_shown(self, digest: Any) -> None:
        """Record that this process showed the person the proposal of hash `digest` (a card
        displayed it); anything but a full hash is ignored."""
        if isinstance(digest, str) and _HASH.fullmatch(digest):
            _shown.setdefault(self.store, {})[self.session_id] = digest

    def shown_proposal(self) -> str | None:
        """The hash of the proposal a card of this process last showed, if any."""
        return _shown.get(self.store, {}).get(self.session_id)

    def approve_shown(self) -> Snapshot:
        """Approve the proposal this process last showed, and only while it is the one
        waiting: what the person read is what is approved."""
        shown = self.shown_proposal()
        if shown is None:
            waiting = self.waiting_proposal()
            if waiting is None:
                raise DecisionRefused("nothing to approve: no proposal is waiting for a decision")
            raise DecisionRefused(
                f"proposal {waiting[:12]} waits but has not been shown here; show it with "
                "%plan, read it, then approve"
            )
        return self.approve(shown)

    @_reconnecting
    def revise(self, notes: str) -> Snapshot:
        """Ask for changes: the wait ends, plan mode stays, and NOTES go to the agent."""
        with self._writing() as change:
            if change.state.pending_proposal_hash is None:
                raise DecisionRefused("nothing to revise: no proposal is waiting for a decision")
            _check_person_text("the notes", notes)
            self._decide(change, "changes_requested")
            self._queue(change, "person", notes)
        return self.snapshot()

    @_reconnecting
    def edit_plan(self, changes: dict) -> Snapshot:
        """The person's edit of the plan: the same input as update_plan, authored by the user.

        Explanation, findings and objectives left out are kept. If a proposal is waiting, the
        wait moves to the edited text, and the agent is told exactly what changed.
        """
        try:
            args: CheckedPlan = CATALOG["update_plan"].parse(changes)
        except Refused as refusal:
            raise DecisionRefused(f"edit refused: {refusal}") from None
        with self._writing() as change:
            s = change.state
            try:
                check_expected_revision(args.expected_revision, s.revision, required=True)
            except Refused as refusal:
                raise DecisionRefused(f"edit refused: {refusal}") from None
            body = dict(args.body)
            for kept in ("explanation", "findings", "objectives"):
                if kept not in args.given and s.plan is not None:
                    body[kept] = s.plan[kept]
            plan, reopened = build_plan(body, s.plan, s.revision + 1, None, None)
            lines = describe_diff(diff_steps(s.plan["steps"] if s.plan else [], plan["steps"]))
            if reopened:
                lines.append("reopened: " + ", ".join(reopened))
            summary = "; ".join(lines) or "no step changed"
            content = f"The person edited the plan (revision {plan['revision']}): {summary}."
            content = self._store_plan(change, "user_edit", plan, content, None, None)
            if s.pending_proposal_hash is not None:
                body = proposal_body(plan)
                digest = body_hash(body)
                self._propose(change, digest, body)
                content += f" The proposal waiting for approval is now this text (hash {digest})."
            self._queue(change, "notice", content)
        return self.snapshot()

    def _enter_plan_mode(self, change: _Change) -> None:
        if change.state.pending_proposal_hash is not None:
            self._decide(change, "dropped")
        self._set_mode(change, "plan")

    def _decide(self, change: _Change, action: str) -> None:
        digest = change.state.pending_proposal_hash
        change.state.pending_proposal_hash = None
        change.emit("decision", {"action": action, "hash": digest})

    def _set_mode(self, change: _Change, mode: str) -> None:
        if change.state.mode != mode:
            change.state.mode = mode
            change.emit("mode_changed", {"mode": mode})

    def _wrong_hash(self, change: _Change, given: str, pending: str) -> str:
        if not isinstance(given, str) or not _HASH.fullmatch(given):
            return (
                f"{given!r} is not a proposal hash: give all 64 lowercase hex digits of the "
                f"waiting proposal {pending[:12]}..., or approve without a hash"
            )
        if change.tx.first("PROPOSAL_KNOWN", {"sid": self.session_id, "hash": given}) is not None:
            return f"proposal {given[:12]} was superseded by {pending[:12]}; review the new one"
        return f"{given[:12]} is not the waiting proposal {pending[:12]}"

    # The queue.

    @_reconnecting
    def queue_message(self, text: str, source: str = "automatic") -> Message:
        """Queue a message for the agent: a person's words, automatic work, or a notice."""
        if source not in ("person", "automatic", "notice"):
            raise ValueError(f"source is {source!r}; it must be person, automatic or notice")
        _check_person_text("the message", text)
        with self._writing() as change:
            return self._queue(change, source, text)

    @_reconnecting
    def deliver(self) -> list[Message]:
        """Take the messages the agent may have now, in order, and mark them delivered."""
        with self._writing() as change:
            rows = change.tx.all("SELECT_WAITING", {"sid": self.session_id})
            waiting = [
                models.Message(message_id=r.message_id, source=r.source, text=r.text) for r in rows
            ]
            ready = policy.deliverable(waiting, change.state.pending_proposal_hash is not None)
            for message in ready:
                seq = change.emit("message_delivered", {"message_id": message.message_id})
                change.add(
                    "MARK_DELIVERED",
                    {"sid": self.session_id, "b_message_id": message.message_id, "b_seq": seq},
                )
        return ready

    def _queue(self, change: _Change, source: str, text: str) -> Message:
        # Messages queued earlier in this same change are not in the table yet.
        queued_now = [p["message_id"] + 1 for stmt, p in change.rows if stmt == "INSERT_MESSAGE"]
        next_in_table = change.tx.scalar("NEXT_MESSAGE_ID", {"sid": self.session_id})
        message_id = max([next_in_table, *queued_now])
        seq = change.emit(
            "message_queued", {"message_id": message_id, "source": source, "text": text}
        )
        change.add(
            "INSERT_MESSAGE",
            {
                "session_id": self.session_id,
                "message_id": message_id,
                "source": source,
                "text": text,
                "queued_seq": seq,
                "delivered_seq": None,
            },
        )
        if source == "person":  # the person's words answer the agent's open question
            self._close_question(change, "answered", message_id)
        return models.Message(message_id=message_id, source=source, text=text)


def _check_person_text(what: str, text: Any) -> None:
    problem = person_text_refusal(what, text)
    if problem:
        raise DecisionRefused(problem)


def _body_steps(body: dict) -> list[dict]:
    return [step for phase in body["phases"] for step in phase["steps"]]


def _approval_notice(plan: dict, digest: str) -> str:
    """Tell the agent its proposal was approved, quoting it as the agent's own words."""
    lines = [
        f"The person approved your proposal {digest[:12]} (revision {plan['revision']}).",
        "Carry out the plan as you proposed it, below; it is your own text, quoted:",
    ]
    for step in plan["steps"]:
        lines.append(f"- [{step['id']}] {step['description']}")
    lines.append(
        "Each action that changes the world still asks the person unless they opted into "
        "automatic runs."
    )
    return "\n".join(lines)
