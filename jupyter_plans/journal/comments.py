"""The person's comments in the journal (DESIGN section 14): under each step of plan.md, on the
plan as a whole and on removed steps; and the comments' events told in progress.md."""

from __future__ import annotations

from ..plan.comments import anchor_words, anchoring
from ..plan.who import who_and_where
from .markdown import clipped, inert


def _comment_item(comment: dict, plan: dict | None, indent: str) -> list[str]:
    name = (comment.get("by") or {}).get("name")
    where = anchor_words(comment, plan)
    where = f" ({inert(where)})" if where else ""
    lines = [
        f"{indent}- Comment {comment['id']} by {inert(name) if name else 'the person'}, "
        f"{comment['status']}{where}: {inert(comment['text'])}"
    ]
    if comment["reply"]:
        lines.append(f"{indent}  - The agent replied: {inert(comment['reply'])}")
    return lines


def step_comments(comments: list[dict], plan: dict, step_id: str) -> list[str]:
    """The comments on one step, as items under it."""
    lines: list[str] = []
    for comment in comments:
        if comment["step_id"] == step_id:
            lines += _comment_item(comment, plan, "  ")
    return lines


def other_comments(comments: list[dict], plan: dict | None) -> list[str]:
    """The sections of comments on the plan as a whole and on steps no longer in it."""
    lines: list[str] = []
    for where, title in (
        ("plan", "Comments on the plan"),
        ("removed", "Comments on removed steps"),
    ):
        found = [c for c in comments if anchoring(c, plan) == where]
        if found:
            lines += ["", f"## {title}", ""]
            for comment in found:
                lines += _comment_item(comment, plan, "")
    return lines


def approved_with(ids: list[str], said: dict[str, dict]) -> list[str]:
    """Under an approval in decisions.md: the comments it was approved with, to follow."""
    lines = []
    for cid in ids:
        data = said.get(cid)
        if data is None:
            continue
        on = "the plan" if data["step_id"] is None else f"step **{inert(data['step_id'])}**"
        lines.append(f"  - {cid} on {on}: {inert(data['text'])}")
    return lines


def comment_event_line(kind: str, data: dict) -> str:
    """A comment's event in progress.md."""
    cid = data["comment_id"]
    name, where = who_and_where(data.get("by"))
    who = inert(name) if name else "The person"
    where = f" {where}" if where else ""
    if kind == "comment_added":
        on = "the plan" if data["step_id"] is None else f"step **{inert(data['step_id'])}**"
        return f"{who} commented on {on}{where} ({cid}): {inert(clipped(data['text']))}"
    if kind == "comment_addressed":
        return f"The agent replied to comment {cid}: {inert(clipped(data['reply']))}"
    verb = "resolved" if kind == "comment_resolved" else "reopened"
    return f"{who} {verb} comment {cid}{where}."
