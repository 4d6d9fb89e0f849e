"""The person's side of a session: the decision verbs, edits, and the queue of messages to the
agent (what this process has shown the person is read in reads.py).

A verb here returns nothing (approve: the hash it approved) and loads no model: the magic and
the card show the plan their own way. PlanSession's verbs return the snapshot after them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import DecisionRefused
from ..plan import policy
from ..plan.catalog import CATALOG
from ..plan.comments import comment_line
from ..plan.intake import MAX_PERSON_TEXT_BYTES, person_text_refusal
from ..plan.revision import (
    body_hash,
    build_plan,
    describe_diff,
    diff_steps,
    proposal_body,
    proposal_hashes,
)
from ..plan.rules import CheckedPlan, check_expected_revision
from ..plan.stored import USER_EDIT
from ..plan.text import counted
from ..plan.validation import Refused, quote, utf8_len
from ..plan.who import person
from ..store.transaction import reconnecting as _reconnecting
from .comment_rows import open_comments
from .events import models
from .steps import close_question, decide, propose, queue, set_mode, store_plan

if TYPE_CHECKING:
    from ..plan.models import Message
    from .reads import SessionReads
    from .transaction import Change

_HASH = re.compile("[0-9a-f]{64}")


@_reconnecting
def on(session: SessionReads, by: Any = None) -> None:
    """Enter plan mode; a proposal still waiting is dropped. `by`: who (plan/who.py), the
    agent too (its EnterPlanMode: plan mode is the safe direction)."""
    by = person(by, entering_plan_mode=True)
    with session.writing() as change:
        change.by = by
        _enter_plan_mode(change)


@_reconnecting
def start_planning(session: SessionReads, task: str, by: Any = None) -> None:
    """Enter plan mode and queue `task` as the person's message: the task to plan."""
    check_person_text("the task", task)
    by = person(by)
    with session.writing() as change:
        change.by = by
        _enter_plan_mode(change)
        queue(change, "person", task)


@_reconnecting
def off(session: SessionReads, by: Any = None) -> None:
    """Leave plan mode: clear any wait and cancel the newest turn."""
    by = person(by)
    with session.writing() as change:
        change.by = by
        s = change.state
        if s.pending_proposal_hash is not None:
            decide(change, "left")
        set_mode(change, "default")
        if s.newest_turn_id is not None and not s.newest_turn_cancelled:
            s.newest_turn_cancelled = True
            change.add("CANCEL_TURN", {"sid": s.session_id, "b_turn_id": s.newest_turn_id})
            change.emit("turn_cancelled", {"turn_id": s.newest_turn_id})
        close_question(change, "dropped", None)


@_reconnecting
def approve(
    session: SessionReads,
    hash: str | None = None,  # noqa: A002
    by: Any = None,
    asking: str | None = None,
) -> str:
    """Approve the waiting proposal (only it: a given hash must match in full); returns its
    hash. `asking`: what the approval's notice tells the agent of what asks from now on, where
    the approver knows better than that each action still asks (a client's option that stops
    edits asking)."""
    by = person(by)
    with session.writing() as change:
        change.by = by
        s = change.state
        pending = s.pending_proposal_hash
        if pending is None:
            raise DecisionRefused("nothing to approve: no proposal is waiting for a decision")
        if hash is not None and hash != pending:
            raise DecisionRefused(_wrong_hash(change, hash, pending))
        if pending not in proposal_hashes(s.plan):
            raise DecisionRefused(
                f"the plan changed after proposal {pending[:12]} was submitted; "
                "ask the agent to submit it again before approving"
            )
        s.approved_proposal_hash = pending
        # Approved with the comments still open: they are the person's to follow.
        follow = open_comments(change.tx, s.session_id)
        decide(change, "approved", [c["id"] for c in follow])
        set_mode(change, "default")
        queue(change, "notice", _approval_notice(s.plan, pending, follow, asking))
    return pending


def approve_shown(session: SessionReads, by: Any = None) -> str:
    """Approve the proposal this process last showed, and only while it is the one
    waiting: what the person read is what is approved."""
    shown = session.shown_proposal()
    if shown is None:
        waiting = session.waiting_proposal()
        if waiting is None:
            raise DecisionRefused("nothing to approve: no proposal is waiting for a decision")
        raise DecisionRefused(
            f"proposal {waiting[:12]} waits but has not been shown here; show it with "
            "%plan, read it, then approve"
        )
    return approve(session, shown, by=by)


@_reconnecting
def revise(session: SessionReads, notes: str, by: Any = None) -> None:
    """Ask for changes: the wait ends, plan mode stays, and NOTES go to the agent, followed
    by the person's open comments (NOTES may be left empty when comments are open)."""
    by = person(by)
    with session.writing() as change:
        change.by = by
        if change.state.pending_proposal_hash is None:
            raise DecisionRefused("nothing to revise: no proposal is waiting for a decision")
        comments = open_comments(change.tx, change.state.session_id)
        if not (comments and isinstance(notes, str) and not notes.strip()):
            check_person_text("the notes", notes)
        decide(change, "changes_requested")
        queue(change, "person", with_comments(notes if notes.strip() else "", comments))


@_reconnecting
def edit_plan(session: SessionReads, changes: dict, by: Any = None) -> None:
    """The person's edit of the plan: the same input as update_plan, authored by the user.

    Explanation, findings and objectives left out are kept. If a proposal is waiting, the
    wait moves to the edited text, and the agent is told exactly what changed.
    """
    try:
        args: CheckedPlan = CATALOG["update_plan"].parse(changes)
    except Refused as refusal:
        raise DecisionRefused(f"edit refused: {refusal}") from None
    by = person(by)
    with session.writing() as change:
        change.by = by
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
        content = store_plan(change, USER_EDIT, plan, content, None, None)
        if s.pending_proposal_hash is not None:
            body = proposal_body(plan)
            digest = body_hash(body)
            propose(change, digest, body)
            content += f" The proposal waiting for approval is now this text (hash {digest})."
        queue(change, "notice", content)


def _enter_plan_mode(change: Change) -> None:
    if change.state.pending_proposal_hash is not None:
        decide(change, "dropped")
    set_mode(change, "plan")


def _wrong_hash(change: Change, given: str, pending: str) -> str:
    if not isinstance(given, str) or not _HASH.fullmatch(given):
        return (
            f"{quote(given)} is not a proposal hash: give all 64 lowercase hex digits of the "
            f"waiting proposal {pending[:12]}..., or approve without a hash"
        )
    known = {"sid": change.state.session_id, "hash": given}
    if change.tx.first("PROPOSAL_KNOWN", known) is not None:
        return f"proposal {given[:12]} was superseded by {pending[:12]}; review the new one"
    return f"{given[:12]} is not the waiting proposal {pending[:12]}"


# The queue.


@_reconnecting
def queue_message(
    session: SessionReads, text: str, source: str = "automatic", by: Any = None
) -> Message:
    """Queue a message for the agent: a person's words (`by` says whose), automatic work,
    or a notice."""
    if source not in ("person", "automatic", "notice"):
        raise ValueError(f"source is {source!r}; it must be person, automatic or notice")
    check_person_text("the message", text)
    by = person(by) if source == "person" else None
    with session.writing() as change:
        change.by = by
        message_id = queue(change, source, text)
    return models.Message(message_id=message_id, source=source, text=text)


@_reconnecting
def deliver(session: SessionReads) -> list[Message]:
    """Take the messages the agent may have now, in order, and mark them delivered (read
    first: with nothing waiting, no write waits for another process's lock)."""
    with session.store.read() as tx:
        if tx.first("SELECT_WAITING", {"sid": session.session_id}) is None:
            return []
    with session.writing() as change:
        rows = change.tx.all("SELECT_WAITING", {"sid": session.session_id})
        waiting = [
            models.Message(message_id=r.message_id, source=r.source, text=r.text) for r in rows
        ]
        ready = policy.deliverable(waiting, change.state.pending_proposal_hash is not None)
        for message in ready:
            seq = change.emit("message_delivered", {"message_id": message.message_id})
            change.add(
                "MARK_DELIVERED",
                {"sid": session.session_id, "b_message_id": message.message_id, "b_seq": seq},
            )
    return ready


def check_person_text(what: str, text: Any) -> None:
    problem = person_text_refusal(what, text)
    if problem:
        raise DecisionRefused(problem)


def with_comments(notes: str, comments: list[dict]) -> str:
    """The person's message of a request for changes: NOTES, then their open comments, each
    on its own line ("On step e3 (Fit the model): use the median, said alice"), as many as
    the bound of a person's text holds."""
    text, left = notes, len(comments)
    for comment in comments:
        line = comment_line(comment)
        joined = f"{text}\n{line}" if text else line
        if utf8_len(joined) + 100 > MAX_PERSON_TEXT_BYTES:
            break
        text, left = joined, left - 1
    if left:
        more = counted(left, "more open comment")
        text += f"\n({more} {'is' if left == 1 else 'are'} on the plan's card.)"
    return text


STILL_ASKS = (
    "Each action that changes the world still asks the person unless they opted into "
    "automatic runs."
)


def _approval_notice(
    plan: dict, digest: str, follow: list[dict] = (), asking: str | None = None
) -> str:
    """Tell the agent its proposal was approved, quoting it as the agent's own words; the
    comments it was approved with, as the person's words; and what asks from now on."""
    lines = [
        f"The person approved your proposal {digest[:12]} (revision {plan['revision']}).",
        "Carry out the plan as you proposed it, below; it is your own text, quoted:",
    ]
    for step in plan["steps"]:
        lines.append(f"- [{step['id']}] {step['description']}")
    if follow:
        lines.append(
            "The person approved it with these comments to follow (their words; reply to each "
            "with comment_reply once you have addressed it):"
        )
        lines.extend(f"- [{c['id']}] {comment_line(c)}" for c in follow)
    lines.append(asking or STILL_ASKS)
    return "\n".join(lines)
