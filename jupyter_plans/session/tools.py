"""The agent's tool calls on a session: each call one transaction, a repeat of an accepted call
id answered from the record, and a refusal recorded as one tool_finished event (and nothing
else: what a handler wrote before it refused is undone). Its open question and final review,
read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import DecisionRefused
from ..plan import policy
from ..plan.catalog import CATALOG
from ..plan.intake import (
    MAX_CALL_ID_BYTES,
    call_digest,
    check_ids,
    id_refusal,
    recorded_tool_name,
    tool_name_refusal,
)
from ..plan.validation import Refused, quote, read_json
from ..plan.who import person
from ..store.transaction import reconnecting as _reconnecting
from .decisions import check_person_text
from .events import models
from .handlers import HANDLERS
from .recorded import same_as_recorded
from .steps import open_question as _open_question
from .steps import queue
from .transaction import EarlierUse

if TYPE_CHECKING:
    from ..plan.models import FinalReview, Message, Question, ToolResult
    from .reads import SessionReads
    from .transaction import Change


class Call(NamedTuple):
    """A tool call with what was checked of it before the write lock."""

    name: Any
    bad_name: str | None  # why the tool name is refused, if it is
    parsed: Any  # the checked arguments, when they passed
    invalid: Refused | None  # why the arguments are refused, if they are
    digest: str | None  # of the name and arguments, when the call has an id
    turn_id: str | None
    call_id: str | None


@_reconnecting
def call_tool(
    session: SessionReads,
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
    unreadable = None
    if isinstance(args, str | bytes):  # as providers send them: read once, for all below
        try:
            args = read_json(args)
        except Refused as refusal:
            unreadable = refusal
    # The bounds that need no stored state are checked before the write lock is taken,
    # so a writer holds it only for what depends on the session.
    bad_name = tool_name_refusal(name)
    spec, parsed, invalid = None if bad_name else CATALOG.get(name), None, None
    if spec is not None:
        try:
            if unreadable is not None:
                raise unreadable
            parsed = spec.parse(args)
        except Refused as refusal:
            invalid = refusal
    digest = None if call_id is None else call_digest(name, args)
    call = Call(name, bad_name, parsed, invalid, digest, turn_id, call_id)
    try:
        return run_call(session, call, look_later=True)
    except EarlierUse:  # the call id was used before: run it again, looking first
        return run_call(session, call, look_later=False)


def run_call(session: SessionReads, call: Call, look_later: bool) -> ToolResult:
    """The call's result, in one transaction. `look_later`: on SQLite, when the session's
    state is known, an earlier use of the call id is not looked for first; the call id's
    unique index tells at the insert (CallIdTaken), and a refusal looks before it is recorded
    (EarlierUse: the transaction is undone and the call run again, looking first)."""
    name, bad_name, parsed, invalid, digest, turn_id, call_id = call
    with session.writing(call_id, look_later) as change:
        change.digest = digest
        # Before every other check: a retry of an accepted call changes nothing.
        if change.recorded is not None and same_as_recorded(change, session.session_id, call):
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
            see_turn(change, turn_id)  # a new turn is the newest even if its call is refused
            refusal = policy.refusal_for_tool(name, change.state.mode)
            if refusal:
                raise Refused(refusal)
            if invalid is not None:
                raise invalid
            content = run_handler(change, name, parsed, turn_id, call_id)
            return models.ToolResult(is_error=False, content=content)
        except Refused as refusal:
            if change.unlooked:
                raise EarlierUse from None  # a retry of an accepted call is not refused
            return refused(change, name, call_id, str(refusal))


def run_handler(change: Change, name: str, args: Any, turn_id, call_id) -> str:
    """The result's content of tool `name`'s handler (handlers.py). A refusal undoes whatever
    the handler wrote before it, so that the call's refusal is all that is recorded: a
    handler need not take care to refuse before it writes."""
    point = change.savepoint()
    try:
        return HANDLERS[name](change, args, turn_id, call_id)
    except Refused:
        change.roll_back(point)
        raise


@_reconnecting
def record_refusal(
    session: SessionReads, name: Any, content: str, *, call_id: str | None = None
) -> ToolResult:
    """Record a call an integration refused itself (an unknown tool of its own catalog)
    as any refused call is recorded, and return its error result."""
    if call_id is not None and id_refusal("call_id", call_id, MAX_CALL_ID_BYTES):
        call_id = None  # the refusal is recorded; an id it cannot keep is left out
    with session.writing() as change:
        return refused(change, name, call_id, content)


def refused(change: Change, name: Any, call_id: str | None, content: str) -> ToolResult:
    """A refused call's error result, recorded as its one tool_finished event."""
    result = models.ToolResult(is_error=True, content=content)
    data = {"name": recorded_tool_name(name), "call_id": call_id, "result": result.model_dump()}
    change.emit("tool_finished", data)
    return result


def see_turn(change: Change, turn_id: str | None) -> None:
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


# The agent's question and final review, read.


@_reconnecting
def open_question(session: SessionReads) -> Question | None:
    """The question the agent asked with ask_user that waits for the person's answer."""
    with session.store.read() as tx:
        return _open_question(tx, session.session_id)


@_reconnecting
def answer(session: SessionReads, text: str, by: Any = None) -> Message:
    """The person's answer to the open question, queued as the person's message."""
    check_person_text("the answer", text)
    by = person(by)
    with session.writing() as change:
        change.by = by
        if _open_question(change.tx, session.session_id) is None:
            raise DecisionRefused("nothing to answer: the agent has no open question")
        message_id = queue(change, "person", text)
    return models.Message(message_id=message_id, source="person", text=text)


@_reconnecting
def review(session: SessionReads) -> FinalReview | None:
    """The accepted final review of the current plan; None while the plan is not finished."""
    data = session.review_data()
    return None if data is None else models.FinalReview.model_validate(data)
