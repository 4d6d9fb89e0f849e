"""What opens a prompt the client sends: the person's queued words (revise notes, a task), the
person's comments added or reopened since the agent's last prompt, then on a session's first
prompt the plan's context block, then any notice of the session."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from acp import text_block

from ...plan.comments import comment_line
from ..context import context_block

if TYPE_CHECKING:
    from ...session import PlanSession


def opening_blocks(session: PlanSession, first: bool, told: set[int]) -> list[dict[str, Any]]:
    """The text blocks to put before the client's own (run in the store's thread: it takes
    the session's deliverable messages). Messages of `told` are taken but not repeated."""
    delivered = [m for m in session.deliver() if m.message_id not in told]
    texts = [m.text for m in delivered if m.source == "person"]
    commented = _new_comments(session, first, texts)
    if commented:
        texts.append(commented)
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


# Per session the bridge serves: the session's cursor when its agent last had a prompt.
_last_prompt: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _new_comments(session: PlanSession, first: bool, said: list[str]) -> str | None:
    """The person's comments added or reopened since the agent's last prompt, in their words,
    save those their queued words already carry (revise sends the open comments); on the
    first prompt the context block carries them all."""
    after, now = _last_prompt.get(session), session.cursor()
    _last_prompt[session] = now
    if first or after is None:
        return None
    lines = [comment_line(c) for c in session.comments_opened_after(after)]
    lines = [line for line in lines if not any(line in text for text in said)]
    if not lines:
        return None
    return "\n".join(["The person's comments on the plan since your last prompt:", *lines])
