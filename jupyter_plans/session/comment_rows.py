"""The person's comments as rows read back: a comment's JSON data, the ones a snapshot shows and
the ones that wait for the agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plan.comments import RESOLVED_SHOWN, comment_id, comment_number
from .events import loads

if TYPE_CHECKING:
    from ..store.transaction import Tx


def comment_of(row: Any) -> dict:
    """A comment's JSON data from its row."""
    return {
        "id": comment_id(row.number),
        "step_id": row.step_id,
        "anchor": row.anchor,
        "text": row.text,
        "by": loads(row.by) if row.by else None,
        "status": row.status,
        "reply": row.reply,
    }


def shown_comments(tx: Tx, session_id: str) -> list[dict]:
    """The snapshot's comments: every one not resolved and the most recently resolved."""
    key = {"sid": session_id}
    rows = tx.all("SELECT_UNRESOLVED_COMMENTS", key)
    rows += tx.all("SELECT_RESOLVED_COMMENTS", {**key, "limit": RESOLVED_SHOWN})
    return sorted((comment_of(row) for row in rows), key=lambda c: comment_number(c["id"]))


def open_comments(tx: Tx, session_id: str) -> list[dict]:
    """The comments that wait for the agent (status open), in the order they were made."""
    rows = sorted(tx.all("SELECT_UNRESOLVED_COMMENTS", {"sid": session_id}), key=by_number)
    return [comment_of(row) for row in rows if row.status == "open"]


def by_number(row: Any) -> int:
    """A sort key: the order comments were made in."""
    return row.number
