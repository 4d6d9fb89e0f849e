"""A stand-in for Anthropic's Messages API on 127.0.0.1, for Claude Code: `POST /v1/messages`
answered from a script (see `script.py`), streamed as the API streams (message_start,
content_block_start/delta/stop for text and tool_use with input_json_delta, message_delta with
the stop reason, message_stop) or whole when the request does not stream.

    from tests.standins.anthropic import AnthropicStandin, after_tool
    from tests.standins.script import call, text, turn

    with AnthropicStandin([[call("Write", {"file_path": "x", "content": "1"})],
                           turn(text("Refused, fine."), when=after_tool("Write"))]) as model:
        env = {"ANTHROPIC_BASE_URL": model.url, ...}

Claude Code also asks the model small things of its own (a session title, a topic, a
classifier's verdict): a request that is not the conversation (`is_side`) gets a short text
and uses no turn. `count_tokens` and any other path get a sane answer. Every request is kept in
`requests` (path, body, how it was answered).
"""

from __future__ import annotations

import itertools
import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from .script import (
    OVER_TEXT,
    SIDE_TEXT,
    Call,
    EventStream,
    Item,
    StandinServer,
    Text,
    pieces,
    send_json,
)

MODEL = "claude-sonnet-4-5"
# Tools only the conversation is offered; a request with none of them is Claude Code's own.
CONVERSATION_TOOLS = {"Bash", "Read", "Write", "Edit", "ToolSearch", "Glob", "Grep"}


def is_side(body: dict) -> bool:
    """Claude Code's own small requests (titles, topics, the auto mode's classifier) offer none
    of the conversation's tools; its prompt suggestion carries them but asks in its own words."""
    names = {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}
    return not names & CONVERSATION_TOOLS or last_user_text(body).startswith(SIDE_PROMPTS)


# The prompts of side requests that carry the conversation and its tools (for its cache).
SIDE_PROMPTS = ("[SUGGESTION MODE",)


def last_user_text(body: dict) -> str:
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return ""
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    texts = [b.get("text", "") for b in content or [] if isinstance(b, dict)]
    return "".join(t for t in texts if t)


def system_text(body: dict) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return system if isinstance(system, str) else ""


def classifier_form(body: dict) -> str | None:
    """How the auto mode's classifier asks for its verdict: "severity" (Claude Code 2.1.3xx:
    `<severity>N</severity>`, stop sequence `</severity>`), "block" (`<block>yes|no`), or None
    when the request is no classifier's."""
    if "</severity>" in (body.get("stop_sequences") or []):
        return "severity"
    words = system_text(body) + json.dumps(body.get("messages") or [])[-2000:]
    if "<severity>" in words:
        return "severity"
    if "<block>" in words:
        return "block"
    return None


def after_tool(name: str) -> Any:
    """A `when`: the request's last message answers a call of tool NAME (a tool_result)."""

    def holds(body: dict) -> bool:
        return name in answered_tools(body)

    holds.__name__ = f"after_tool({name!r})"
    return holds


def answered_tools(body: dict) -> list[str]:
    """The names of the tools whose results the request's last message carries."""
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return []
    ids = [block.get("tool_use_id") for block in tool_results(body)]
    names = {}
    for message in messages[:-1]:
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    names[block.get("id")] = block.get("name")
    return [names[i] for i in ids if i in names]


def tool_results(body: dict) -> list[dict]:
    """The tool_result blocks of the request's last message."""
    messages = body.get("messages") or []
    if not messages or not isinstance(messages[-1].get("content"), list):
        return []
    return [
        b for b in messages[-1]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


class AnthropicStandin(StandinServer):
    """The Messages API at `url` (give it as ANTHROPIC_BASE_URL)."""

    def __init__(self, script=(), side=is_side, classifier: str = "allow") -> None:
        super().__init__(script)
        self.is_side = side
        self.classifier = classifier  # the auto mode classifier's verdict: "allow" or "block"
        self._ids = itertools.count(1)

    def side_reply(self, body: dict) -> tuple[str, str | None]:
        """A side request's answer and the stop sequence it ends on: the classifier's verdict
        in the form its prompt asks for, else "OK"."""
        verdict = classifier_form(body)
        allow = self.classifier == "allow"
        if verdict == "severity":  # `<severity>N</severity>`, N < 50 allows; stops at the tag
            return ("<severity>5" if allow else "<severity>95"), "</severity>"
        if verdict == "block":
            return ("<block>no</block>" if allow else "<block>yes</block>"), None
        return SIDE_TEXT, None

    def serve(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        route = path.split("?")[0].rstrip("/")
        if route.endswith("/v1/messages/count_tokens"):
            self.record(path, body, "other")
            send_json(handler, 200, {"input_tokens": _count(body)})
        elif route.endswith("/v1/messages") and isinstance(body, dict):
            if self.is_side(body):
                self.record(path, body, "side")
                words, stop = self.side_reply(body)
                self._reply(handler, body, [Text(words)], stop)
                return
            index, items = self.script.next(body)
            self.record(path, body, "turn" if index is not None else "over", index)
            self._reply(handler, body, items)
        elif route.endswith("/v1/models"):
            self.record(path, body, "other")
            send_json(handler, 200, {"data": [{"id": MODEL, "type": "model"}], "has_more": False})
        else:
            self.record(path, body, "other")
            send_json(handler, 404, _error("not_found_error", f"no route {route} here"))

    def _reply(
        self,
        handler: BaseHTTPRequestHandler,
        body: dict,
        items: list[Item],
        stop_sequence: str | None = None,
    ) -> None:
        blocks = [self._block(item) for item in items] or [{"type": "text", "text": OVER_TEXT}]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        stop = "stop_sequence" if stop_sequence else stop
        message = {
            "id": f"msg_standin{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model") or MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _usage(body, 0),
        }
        if not body.get("stream"):
            whole = {
                **message,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": stop_sequence,
            }
            send_json(handler, 200, {**whole, "usage": _usage(body, _out(blocks))})
            return
        stream = EventStream(handler)
        stream.send("message_start", {"type": "message_start", "message": message})
        stream.send("ping", {"type": "ping"})
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                start, deltas = (
                    {"type": "text", "text": ""},
                    [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])],
                )
            else:
                start = {**block, "input": {}}
                deltas = [
                    {"type": "input_json_delta", "partial_json": piece}
                    for piece in ["", *pieces(json.dumps(block["input"]), 40)]
                ]
            stream.send(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
            for delta in deltas:
                stream.send(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            stream.send("content_block_stop", {"type": "content_block_stop", "index": index})
        stream.send(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": stop_sequence},
                "usage": {"output_tokens": _out(blocks)},
            },
        )
        stream.send("message_stop", {"type": "message_stop"})

    def _block(self, item: Item) -> dict:
        if isinstance(item, Call):
            return {
                "type": "tool_use",
                "id": f"toolu_standin{next(self._ids):04d}",
                "name": item.name,
                "input": item.input,
            }
        return {"type": "text", "text": item.text}


def _count(body: Any) -> int:
    return max(1, len(json.dumps(body)) // 4) if body else 1


def _out(blocks: list[dict]) -> int:
    return max(1, len(json.dumps(blocks)) // 4)


def _usage(body: dict, output_tokens: int) -> dict:
    return {
        "input_tokens": _count(body.get("messages")),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}
