"""What opens a prompt the client sends: the person's queued words (revise notes, a task), then
on a session's first prompt the plan's context block, then any notice of the session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp import text_block

from ..context import context_block

if TYPE_CHECKING:
    from ...session import PlanSession


def opening_blocks(session: PlanSession, first: bool, told: set[int]) -> list[dict[str, Any]]:
    """The text blocks to put before the client's own (run in the store's thread: it takes
    the session's deliverable messages). Messages of `told` are taken but not repeated."""
    delivered = [m for m in session.deliver() if m.message_id not in told]
    texts = [m.text for m in delivered if m.source == "person"]
    if first:
        texts.append(context_block(session))
    for message in delivered:
        if message.source != "person":
            label = (
                "A notice from the plan session"
                if message.source == "notice"
                else ("Automatic work")
            )
            texts.append(f"{label} (not the person's words):\n{message.text}")
    return [
        text_block(text).model_dump(mode="json", by_alias=True, exclude_none=True) for text in texts
    ]
