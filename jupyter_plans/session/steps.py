"""The write steps a session's operations share, as plain functions over the change: storing an
accepted plan, making a proposal wait, deciding on it, the mode, the person's queue and the
agent's open question. Each concern (tools, decisions, bridged, comments) builds on these and
never on another concern."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plan.cells import completion_changes
from .events import dumps, models

if TYPE_CHECKING:
    from ..plan.models import Question
    from ..store.transaction import Tx
    from .transaction import Change

ENFORCEMENT = "session-metadata-only"


def store_plan(
    change: Change,
    name: str,
    plan: dict,
    content: str,
    turn_id: str | None,
    call_id: str | None,
    body: str | None = None,
) -> str:
    """Store an accepted plan under tool name `name`; returns the result's content (a finished
    plan it reopens says so). `body` is the stored text of the plan's body, when validation
    made it."""
    s = change.state
    if s.finished_seq is not None:
        # First, so that plan_submit's proposal_submitted still follows its plan_updated.
        s.finished_seq = None
        change.emit("plan_reopened", {"revision": plan["revision"], "name": name})
        content += (
            " This change reopens the finished plan; call finish_plan again once every "
            "step is completed."
        )
    keep_completed_code(change, s.plan, plan)
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


def keep_completed_code(change: Change, old: dict | None, new: dict) -> None:
    """With a plan change: the code of each newly completed step's cells is what a later run
    is compared with (cells.py); a step no longer completed forgets it."""
    done, undone = completion_changes(old, new)
    sid = change.state.session_id
    for step_id in done:
        change.add("SET_CELL_BASELINES", {"sid": sid, "step_id": step_id})
    for step_id in undone:
        change.add("CLEAR_CELL_BASELINES", {"sid": sid, "step_id": step_id})


def propose(change: Change, digest: str, body: dict, kept: dict | None = None) -> int:
    """Make `body` the waiting proposal; `kept` goes into the event (a bridged agent's whole
    proposal `text`, and what approving it answers the agent). Returns the event's seq."""
    s = change.state
    s.pending_proposal_hash = digest
    data = {"hash": digest, "revision": s.revision, **(kept or {})}
    seq = change.emit("proposal_submitted", data)
    change.add(
        "INSERT_PROPOSAL",
        {
            "session_id": s.session_id,
            "seq": seq,
            "hash": digest,
            "revision": s.revision,
            "body": dumps(body),
        },
    )
    return seq


def decide(change: Change, action: str, comments: list[str] | None = None) -> None:
    """End the wait for the waiting proposal with the person's `action` (approved,
    changes_requested, dropped, left); `comments`, those it was approved with."""
    digest = change.state.pending_proposal_hash
    change.state.pending_proposal_hash = None
    data: dict[str, Any] = {"action": action, "hash": digest}
    if comments:  # approved with these comments open (DESIGN section 14)
        data["comments"] = comments
    change.emit("decision", data)


def set_mode(change: Change, mode: str) -> None:
    if change.state.mode != mode:
        change.state.mode = mode
        change.emit("mode_changed", {"mode": mode})


def queue(change: Change, source: str, text: str) -> int:
    """Queue a message for the agent (returns its id); the person's words answer its open
    question."""
    sid = change.state.session_id
    # Messages queued earlier in this same change are not in the table yet.
    queued_now = [p["message_id"] + 1 for stmt, p in change.rows if stmt == "INSERT_MESSAGE"]
    next_in_table = change.tx.scalar("NEXT_MESSAGE_ID", {"sid": sid})
    message_id = max([next_in_table, *queued_now])
    seq = change.emit("message_queued", {"message_id": message_id, "source": source, "text": text})
    change.add(
        "INSERT_MESSAGE",
        {
            "session_id": sid,
            "message_id": message_id,
            "source": source,
            "text": text,
            "queued_seq": seq,
            "delivered_seq": None,
        },
    )
    if source == "person":  # the person's words answer the agent's open question
        close_question(change, "answered", message_id)
    return message_id


def open_question(tx: Tx, session_id: str) -> Question | None:
    """The question the agent asked with ask_user that waits for the person's answer."""
    row = tx.first("SELECT_OPEN_QUESTION", {"sid": session_id})
    if row is None:
        return None
    return models.Question(question=row.question, turn_id=row.turn_id, asked_seq=row.asked_seq)


def close_question(change: Change, action: str, message_id: int | None) -> None:
    """Close the agent's open question, if there is one: `answered` by the person's message
    `message_id`, or `dropped` as plan mode ends."""
    sid = change.state.session_id
    question = change.tx.first("SELECT_OPEN_QUESTION", {"sid": sid})  # a row: no model loads
    if question is None:
        return
    seq = change.emit(
        "question_closed",
        {"asked_seq": question.asked_seq, "action": action, "message_id": message_id},
    )
    change.add(
        "CLOSE_QUESTION", {"sid": sid, "b_asked_seq": question.asked_seq, "b_closed_seq": seq}
    )
