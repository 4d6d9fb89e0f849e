"""The agent's tools, one handler each, and the table that names them beside the catalog
(plan/catalog.py): a handler takes the change, the call's checked arguments, its turn id and
call id, and returns the result's content, or raises Refused. It is run by tools.py's
`run_handler`, which undoes whatever it wrote before a refusal: a refused call records only
its tool_finished event."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..plan.review import check_checks_hold, check_finishable, reviewed
from ..plan.revision import body_hash, build_plan, proposal_body
from ..plan.rules import CheckedPlan, check_expected_revision
from ..plan.validation import Refused
from .check_rows import checks_fold
from .comments import comment_reply
from .events import dumps
from .steps import open_question, propose, store_plan

if TYPE_CHECKING:
    from .transaction import Change

Handler = Callable[["Change", Any, "str | None", "str | None"], str]


def update_plan(change: Change, args: CheckedPlan, turn_id: str | None, call_id: str | None) -> str:
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
    return store_plan(change, "update_plan", plan, content, turn_id, call_id, body)


def plan_submit(change: Change, args: CheckedPlan, turn_id: str | None, call_id: str | None) -> str:
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
    content = store_plan(change, "plan_submit", plan, content, turn_id, call_id, stored)
    propose(change, digest, body)
    return content


def record_decision(
    change: Change, decision: dict, turn_id: str | None, call_id: str | None
) -> str:
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
            "sources": dumps(decision["sources"]),
        },
    )
    return content


def ask_user(change: Change, question: str, turn_id: str | None, call_id: str | None) -> str:
    s = change.state
    if s.pending_proposal_hash is not None:
        raise Refused(
            "ask_user is refused while your proposal waits for the person's decision; "
            "end your turn and wait"
        )
    if open_question(change.tx, s.session_id) is not None:
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


def finish_plan(change: Change, items: list[dict], turn_id: str | None, call_id: str | None) -> str:
    s = change.state
    check_finishable(s.plan)
    fold = checks_fold(change.tx, None, s.session_id, s.cursor, s.plan)
    check_checks_hold(None if fold is None else fold.holding_back())
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


# Every tool of the catalog, and the function that carries it out.
HANDLERS: dict[str, Handler] = {
    "update_plan": update_plan,
    "plan_submit": plan_submit,
    "record_decision": record_decision,
    "comment_reply": comment_reply,
    "finish_plan": finish_plan,
    "ask_user": ask_user,
}
