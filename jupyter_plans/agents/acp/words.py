"""What reached an ACP client, in words: one line or a few per message, the same on every run
(the notebook client's transcript)."""

from __future__ import annotations

from .text import first_paragraph

MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


def update_lines(update: dict) -> list[str]:
    """A `session/update` notification's update."""
    kind = update.get("sessionUpdate")
    if kind == "agent_message_chunk":
        return [f"agent: {(update.get('content') or {}).get('text', '')}"]
    if kind == "plan":
        entries = update.get("entries") or []
        return ["agent's plan:"] + [
            f"  {MARKS.get(e.get('status'), '[?]')} {e.get('content')}" for e in entries
        ]
    if kind == "current_mode_update":
        return [f"mode: {update.get('currentModeId')}"]
    if kind == "tool_call":
        return [f"tool call: {update.get('title')} ({update.get('kind')}, {update.get('status')})"]
    if kind == "tool_call_update":
        return [f"tool call {update.get('toolCallId')}: {update.get('status')}"]
    return [f"update: {kind}"]


def request_lines(params: dict) -> list[str]:
    """A `session/request_permission` request: its title, kind, first paragraph, options."""
    tool_call = params.get("toolCall") or {}
    texts = [
        (item.get("content") or {}).get("text", "")
        for item in tool_call.get("content") or []
        if (item.get("content") or {}).get("type") == "text"
    ]
    lines = [f"agent asks: {tool_call.get('title')} ({tool_call.get('kind')})"]
    if texts:
        lines.append(f"  {first_paragraph(texts[0])}")
    options = params.get("options") or []
    listed = ", ".join(f"{o.get('optionId')} ({o.get('kind')})" for o in options)
    return [*lines, f"  options: {listed}"]


def write_line(params: dict) -> str:
    lines = len(str(params.get("content", "")).splitlines())
    return f"agent writes {params.get('path')} through the client ({lines} lines)"


def end_line(message: dict) -> str:
    """The answer to a `session/prompt`: the turn's end."""
    error = (message.get("error") or {}).get("message")
    if error:
        return f"turn failed: {error}"
    return f"turn ended: {(message.get('result') or {}).get('stopReason')}"
