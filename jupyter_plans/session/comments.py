"""The person's comments on the plan (DESIGN section 14): the person adds, resolves and reopens
them; the agent's one act on them is the comment_reply tool. Each is one transaction with one
event, and none changes the plan's revision or a proposal's hash."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DecisionRefused
from ..plan.comments import (
    MAX_COMMENT_NUMBER,
    MAX_OPEN,
    comment_id,
    comment_id_refusal,
    comment_number,
    comment_text_refusal,
    no_plan_to_comment_on,
    step_descriptions,
)
from ..plan.validation import Refused, quote
from ..plan.who import person
from ..store.transaction import reconnecting as _reconnecting
from .comment_rows import by_number, comment_of, shown_comments
from .events import dumps, loads, models

if TYPE_CHECKING:
    from ..plan.models import Comment, Snapshot
    from .reads import SessionReads
    from .transaction import Change


@_reconnecting
def comment(session: SessionReads, step_id: str | None, text: str, by: Any = None) -> Comment:
    """The person's comment on step `step_id` of the plan or of the waiting proposal (None:
    on the plan as a whole); returns it, with its id. Refused in one line (nothing stored)
    for text that is not 1 to 2,000 characters of the person's words, a step that is in
    neither, or when 64 comments are already open."""
    problem = comment_text_refusal(text)
    if step_id is not None and not isinstance(step_id, str):
        found = type(step_id).__name__
        problem = f"step_id must be a step's id, or None for the plan as a whole; found {found}"
    if problem:
        raise DecisionRefused(problem)
    by = person(by)
    with session.writing() as change:
        comment = _add_comment(change, step_id, text, by)
    return models.Comment.model_validate(comment)


def _add_comment(change: Change, step_id: str | None, text: str, by: dict) -> dict:
    s, tx = change.state, change.tx
    steps = step_descriptions(s.plan)
    if step_id not in steps and s.pending_proposal_hash is not None:
        waiting = tx.first("SELECT_LAST_TWO_PROPOSALS", {"sid": s.session_id})
        steps = step_descriptions(s.plan, loads(waiting.body))
    if s.plan is None and not steps:
        raise DecisionRefused(no_plan_to_comment_on())
    if step_id is not None and step_id not in steps:
        listed = ", ".join(steps) or "none"
        raise DecisionRefused(
            f"step_id {quote(step_id)} is not a step of the plan or of the waiting "
            f"proposal; its steps are {listed}"
        )
    counts = tx.first("COMMENT_COUNTS", {"sid": s.session_id})
    if counts.open >= MAX_OPEN:
        raise DecisionRefused(
            f"comments: {counts.open} comments are open; the limit is {MAX_OPEN}, so "
            "resolve one before adding another"
        )
    number = counts.last_number + 1
    anchor = None if step_id is None else steps[step_id]
    data = {
        "comment_id": comment_id(number),
        "step_id": step_id,
        "anchor": anchor,
        "text": text,
        "by": by,
    }
    seq = change.emit("comment_added", data)
    row = {"step_id": step_id, "anchor": anchor, "text": text, "status": "open"}
    change.add(
        "INSERT_COMMENT",
        {
            "session_id": s.session_id,
            "number": number,
            **row,
            "by": dumps(by),
            "reply": None,
            "status_seq": seq,
            "opened_seq": seq,
        },
    )
    return {"id": data["comment_id"], **row, "by": by, "reply": None}


@_reconnecting
def resolve_comment(session: SessionReads, cid: Any, by: Any = None) -> Snapshot:
    """The person resolves comment `cid` (an id, or a Comment): the thread is done."""
    return _set_comment(session, cid, "resolved", by)


@_reconnecting
def reopen_comment(session: SessionReads, cid: Any, by: Any = None) -> Snapshot:
    """The person reopens comment `cid` (resolved, or addressed by the agent): it waits for
    the agent again."""
    return _set_comment(session, cid, "open", by)


def _set_comment(session: SessionReads, cid: Any, status: str, by: Any) -> Snapshot:
    cid = getattr(cid, "id", cid)
    problem = comment_id_refusal(cid)
    if problem:
        raise DecisionRefused(problem)
    by = person(by)
    verb = "resolve" if status == "resolved" else "reopen"
    with session.writing() as change:
        sid = change.state.session_id
        row = _comment_row(change, cid)
        if row is None:
            raise DecisionRefused(f"nothing to {verb}: there is no comment {cid}")
        if row.status == status:
            raise DecisionRefused(f"comment {cid} is already {row.status}")
        if status == "open":
            counts = change.tx.first("COMMENT_COUNTS", {"sid": sid})
            if counts.open >= MAX_OPEN:
                raise DecisionRefused(
                    f"comments: {counts.open} comments are open; the limit is {MAX_OPEN}, "
                    f"so resolve one before reopening {cid}"
                )
        kind = "comment_resolved" if status == "resolved" else "comment_reopened"
        seq = change.emit(kind, {"comment_id": cid, "by": by})
        params = {"sid": sid, "b_number": row.number, "b_seq": seq}
        if status == "open":
            change.add("REOPEN_COMMENT", params)
        else:
            change.add("SET_COMMENT_STATUS", {**params, "b_status": status})
    return session.snapshot()


@_reconnecting
def comments_data(session: SessionReads, everything: bool = False) -> list[dict]:
    """The comments as JSON data: as the snapshot has them, or `everything` ever made."""
    with session.store.read() as tx:
        if not everything:
            return shown_comments(tx, session.session_id)
        rows = tx.all("SELECT_ALL_COMMENTS", {"sid": session.session_id})
    return [comment_of(row) for row in rows]


@_reconnecting
def comments_opened_after(session: SessionReads, seq: int) -> list[dict]:
    """The open comments added or reopened after event `seq` (what an ACP agent has not
    been told since its last prompt)."""
    with session.store.read() as tx:
        rows = tx.all("SELECT_COMMENTS_OPENED_AFTER", {"sid": session.session_id, "after": seq})
    return [comment_of(row) for row in sorted(rows, key=by_number)]


@_reconnecting
def approved_with_comments(session: SessionReads) -> list[dict]:
    """While the person's approval is the last word on a proposal: the comments it was
    approved with that are still not resolved (those the agent is to follow)."""
    with session.store.read() as tx:
        words = tx.all("SELECT_LAST_VERDICT", {"sid": session.session_id})
        if not words or words[0].kind != "decision":
            return []
        ids = loads(words[0].data).get("comments") or []
        if not ids:
            return []
        rows = tx.all("SELECT_UNRESOLVED_COMMENTS", {"sid": session.session_id})
    wanted = set(ids)
    return [comment_of(r) for r in sorted(rows, key=by_number) if comment_id(r.number) in wanted]


def comment_reply(change: Change, args: dict, turn_id, call_id) -> str:
    cid, reply = args["comment_id"], args["reply"]
    sid = change.state.session_id
    row = _comment_row(change, cid)
    if row is None:
        unresolved = sorted(
            change.tx.all("SELECT_UNRESOLVED_COMMENTS", {"sid": sid}), key=by_number
        )
        listed = ", ".join(comment_id(r.number) for r in unresolved) or "none"
        raise Refused(
            f"comment_id {quote(cid)} is no comment of this session; the comments not "
            f"resolved are {listed}"
        )
    if row.status == "resolved":
        raise Refused(
            f"comment {cid} is resolved: the person closed it, so it takes no reply; "
            "reply only to open or addressed comments"
        )
    content = f"Your reply to comment {cid} is shown to the person beside it; it is addressed."
    result = {"is_error": False, "content": content}
    seq = change.emit(
        "comment_addressed",
        {"comment_id": cid, "reply": reply, "turn_id": turn_id},
        call_id=call_id,
        result=result,
    )
    change.add(
        "ADDRESS_COMMENT", {"sid": sid, "b_number": row.number, "b_reply": reply, "b_seq": seq}
    )
    return content


def _comment_row(change: Change, cid: str):
    """The row of comment `cid` (a well-formed id), None where there is none; a number past
    what any store holds (PostgreSQL's integer) names no comment, and is not asked for."""
    number = comment_number(cid)
    if number > MAX_COMMENT_NUMBER:
        return None
    return change.tx.first("SELECT_COMMENT", {"sid": change.state.session_id, "number": number})
