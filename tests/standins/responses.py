"""A stand-in for OpenAI's Responses API on 127.0.0.1, for Codex: `POST /v1/responses`
answered from a script and streamed as Server-Sent Events as the API streams them
(response.created, response.in_progress, response.output_item.added, the content part and
output_text deltas of a message, the arguments deltas of a function_call, the input deltas of
a custom (freeform) tool call, response.output_item.done, response.completed).

Use:

    from tests.standins.responses import ResponsesStandin, after_tool
    from tests.standins.script import call, text, turn

    script = [
        [text("Looking first."), call("shell", {"command": ["touch", "x"]})],  # 1st request
        turn(text("It was refused."), when=after_tool("shell")),  # the request after its output
        [text("Done.")],
    ]
    with ResponsesStandin(script) as model:
        # Codex: a model provider in CODEX_HOME/config.toml
        #   [model_providers.standin]
        #   base_url = "<model.url>/v1"     wire_api = "responses"
        ...
        model.requests        # every request: .path, .body (dict), .answer, .turn
        model.turns()         # the requests the script answered
        model.script.left     # turns never asked for

A script is a list of turns. A turn is a list of items (`text(...)`, `call(name, input)`) or
`turn(*items, when=predicate)`: a predicate turn answers the first request it is true for and
is checked before the turns in order; `Turn(function)` computes the items from the request.
A request past the end is answered "Done." (no tool call, so the agent ends its turn), recorded
with answer "over". `call` with a dict input is a `function_call` (its `arguments` the JSON
text); with a str input, a `custom_tool_call` (Codex's freeform `apply_patch` takes the patch
text so, when the request offers it as a `custom` tool). A request `is_side` (a Codex helper
request that offers no tools) is answered "OK" and uses no turn. Other paths (`/v1/models`)
get a sane answer and are recorded as "other".
"""

from __future__ import annotations

import itertools
import json
import time
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
    call,
    pieces,
    send_json,
    text,
    turn,
)

__all__ = ["ResponsesStandin", "after_tool", "call", "text", "turn", "outputs", "is_side"]
MODEL = "gpt-5.1-codex"
TOOL_SEARCH = "tool_search"


def is_side(body: dict) -> bool:
    return not body.get("tools")


def after_tool(name: str) -> Any:
    """A `when`: the request's input ends with the output of a call of tool NAME."""

    def holds(body: dict) -> bool:
        return name in [called for called, _ in outputs(body)]

    holds.__name__ = f"after_tool({name!r})"
    return holds


def outputs(body: dict) -> list[tuple[str, str]]:
    """(tool name, output text) of the tool outputs that end the request's input (the
    developer's notices after them aside)."""
    items = body.get("input") if isinstance(body.get("input"), list) else []
    names = {
        item.get("call_id"): item.get("name")
        for item in items
        if isinstance(item, dict) and item.get("type") in ("function_call", "custom_tool_call")
    }
    found: list[tuple[str, str]] = []
    for item in reversed(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if not found and kind == "message" and item.get("role") == "developer":
            continue  # a notice Codex adds after the outputs ("Added deferred tool namespaces")
        if kind not in ("function_call_output", "custom_tool_call_output"):
            break
        output = item.get("output")
        if not isinstance(output, str):
            output = json.dumps(output)
        found.insert(0, (names.get(item.get("call_id"), ""), output))
    return found


class ResponsesStandin(StandinServer):
    """The Responses API under `url` + "/v1"."""

    def __init__(self, script=(), side=is_side) -> None:
        super().__init__(script)
        self.is_side = side
        self._ids = itertools.count(1)

    def serve(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        route = path.split("?")[0].rstrip("/")
        if route.endswith("/responses") and isinstance(body, dict):
            if self.is_side(body):
                self.record(path, body, "side")
                self._reply(handler, body, [Text(SIDE_TEXT)])
                return
            index, items = self.script.next(body)
            self.record(path, body, "turn" if index is not None else "over", index)
            self._reply(handler, body, items)
        elif route.endswith("/models"):
            self.record(path, body, "other")
            send_json(handler, 200, {"object": "list", "data": [], "models": []})
        else:
            self.record(path, body, "other")
            send_json(handler, 404, {"error": {"message": f"no route {route} here"}})

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict, items: list[Item]) -> None:
        items = items or [Text(OVER_TEXT)]
        response = {
            "id": f"resp_standin{next(self._ids):04d}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": body.get("model") or MODEL,
            "output": [],
            "usage": None,
        }
        done = [self._item(item) for item in items]
        usage = {
            "input_tokens": max(1, len(json.dumps(body.get("input"))) // 4),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": max(1, len(json.dumps(done)) // 4),
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        completed = {**response, "status": "completed", "output": done, "usage": usage}
        if body.get("stream") is False:
            send_json(handler, 200, completed)
            return
        stream = _Numbered(EventStream(handler))
        stream.send("response.created", {"response": response})
        stream.send("response.in_progress", {"response": response})
        for index, item in enumerate(done):
            _stream_item(stream, index, item)
        stream.send("response.completed", {"response": completed})

    def _item(self, item: Item) -> dict:
        number = next(self._ids)
        if isinstance(item, Call) and item.name == TOOL_SEARCH:
            # Codex 0.167+ defers MCP tools: the model finds them first with its client-side
            # `tool_search`, and the next request offers what it found.
            return {
                "type": "tool_search_call",
                "id": f"tsc_standin{number:04d}",
                "call_id": f"call_standin{number:04d}",
                "execution": "client",
                "arguments": item.input,
                "status": "completed",
            }
        if isinstance(item, Call) and isinstance(item.input, str):
            return {
                "type": "custom_tool_call",
                "id": f"ctc_standin{number:04d}",
                "call_id": f"call_standin{number:04d}",
                "name": item.name,
                "input": item.input,
                "status": "completed",
            }
        if isinstance(item, Call):
            found = {
                "type": "function_call",
                "id": f"fc_standin{number:04d}",
                "call_id": f"call_standin{number:04d}",
                "name": item.name,
                "arguments": json.dumps(item.input),
                "status": "completed",
            }
            return found if item.namespace is None else {**found, "namespace": item.namespace}
        return {
            "type": "message",
            "id": f"msg_standin{number:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": item.text, "annotations": []}],
        }


class _Numbered:
    """The stream's events, each with its `type` and `sequence_number`."""

    def __init__(self, stream: EventStream) -> None:
        self.stream, self.numbers = stream, itertools.count()

    def send(self, name: str, data: dict) -> None:
        self.stream.send(name, {"type": name, "sequence_number": next(self.numbers), **data})


def _stream_item(stream: _Numbered, index: int, item: dict) -> None:
    where = {"item_id": item["id"], "output_index": index}
    if item["type"] == "message":
        words = item["content"][0]["text"]
        stream.send(
            "response.output_item.added",
            {"output_index": index, "item": {**item, "status": "in_progress", "content": []}},
        )
        part = {"type": "output_text", "text": "", "annotations": []}
        stream.send("response.content_part.added", {**where, "content_index": 0, "part": part})
        for piece in pieces(words):
            stream.send(
                "response.output_text.delta",
                {**where, "content_index": 0, "delta": piece, "logprobs": []},
            )
        stream.send("response.output_text.done", {**where, "content_index": 0, "text": words})
        stream.send(
            "response.content_part.done",
            {**where, "content_index": 0, "part": {**part, "text": words}},
        )
    elif item["type"] == "tool_search_call":
        stream.send(
            "response.output_item.added",
            {"output_index": index, "item": {**item, "status": "in_progress"}},
        )
    else:
        field, delta = (
            ("arguments", "response.function_call_arguments")
            if item["type"] == "function_call"
            else ("input", "response.custom_tool_call_input")
        )
        stream.send(
            "response.output_item.added",
            {"output_index": index, "item": {**item, field: "", "status": "in_progress"}},
        )
        for piece in pieces(item[field], 40):
            stream.send(f"{delta}.delta", {**where, "delta": piece})
        stream.send(f"{delta}.done", {**where, field: item[field]})
    stream.send("response.output_item.done", {"output_index": index, "item": item})
