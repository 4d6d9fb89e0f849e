"""What the client is told of a tool call the bridge answered in its place: a refusal of the
plan guard, the end of a turn's follow-ups, a permission request the person decided on another
surface. Each is the tool call's own `tool_call_update` (status and one line of text), so the
chat shows what happened where it shows the call; a request decided elsewhere also names the
option the agent got (`_meta`), with which a client that holds the request open (Jupyter AI's
persona) closes it."""

from __future__ import annotations

from typing import Any

from .methods import UPDATE
from .ports import Replies

META_KEY = "jupyter-plans"  # the bridge's own `_meta` of an update it sends


def tool_call_update(tool_call_id: str, status: str, line: str, option: str | None = None) -> dict:
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_call_id,
        "status": status,
        "content": [{"type": "content", "content": {"type": "text", "text": line}}],
        "rawOutput": {"jupyter_plans": line},
    }
    if option is not None:
        update["_meta"] = {META_KEY: {"answered": option}}
    return update


async def tell(
    client: Replies,
    session_id: Any,
    tool_call_id: Any,
    status: str,
    line: str,
    option: str | None = None,
) -> None:
    """Send the client the tool call's update (nothing where the call or session is unknown)."""
    if not isinstance(session_id, str) or not isinstance(tool_call_id, str) or not tool_call_id:
        return
    update = tool_call_update(tool_call_id, status, line, option)
    await client.notify(UPDATE, {"sessionId": session_id, "update": update})
