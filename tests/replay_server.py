"""An OpenAI-compatible chat-completions server on 127.0.0.1 that replays a recorded conversation.

Each recorded exchange says what the request must hold (`expect`) and what to answer
(`reply`). A request that breaks an expectation, or one the recording has no reply for, gets
a 400 the SDK raises on, and the reason is kept in `failures`, so a wrong loop fails its test.
Replies stream as Server-Sent Events (`data: {chunk}` lines, then `data: [DONE]`), with text
and each tool call's arguments split across chunks, or come whole when `stream` is false.

A recording (JSON) is `{"model", "api_key"?, "context"?, "exchanges": [{"expect", "reply"}]}`;
every request must carry the plan context block in a system message, or, with `"context":
false`, none may.

- `expect`: `stream` (bool), `tools` (the names offered, in any order), `system` (texts a
  system message must hold and no user message may), `user` (texts some user message holds),
  `not_user` (texts no user message holds), `last` (`{"role", "contains"}` of the last
  message), `tool_results` (`{tool_call_id: text}` the tool message for that call holds).
- `reply`: `content` (a string, or a list of the pieces to stream), `tool_calls` (a list of
  `{"id", "name", "arguments"}`, arguments as an object or as the raw text a model sent),
  `before_chunk` (`{"index", "action"}`: run the named action before streaming that chunk)
  and `before_reply` (an action run before a reply that does not stream); or `error`
  (`{"status", "message"}`: the endpoint refuses the request).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).parent / "recordings"


def load_recording(name: str) -> dict:
    return json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))


class ReplayServer:
    """Serves one recording; use as a context manager. `url` is the base_url to give a client."""

    def __init__(
        self,
        recording: dict,
        actions: dict[str, Callable[[], Any]] | None = None,
        port: int = 0,
    ):
        self.recording = recording
        self.exchanges: list[dict] = recording["exchanges"]
        self.actions = actions or {}
        self.requests: list[dict] = []  # the bodies received, in order
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    @property
    def unused(self) -> int:
        """How many recorded replies were never asked for."""
        return len(self.exchanges) - len(self.requests)

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()

    # Serving one request.

    def take(self, body: dict, authorization: str | None) -> tuple[dict | None, str | None]:
        """The exchange that answers this request, or the reason it is refused."""
        with self._lock:
            number = len(self.requests)
            self.requests.append(body)
            if number >= len(self.exchanges):
                problem = f"request {number + 1} came, but the recording has {number} replies"
                exchange = None
            else:
                exchange = self.exchanges[number]
                problem = self._check(exchange.get("expect", {}), body, authorization)
                problem = problem and f"request {number + 1}: {problem}"
            if problem:
                self.failures.append(problem)
                return None, problem
            return exchange, None

    def _check(self, expect: dict, body: dict, authorization: str | None) -> str | None:
        key = self.recording.get("api_key")
        if key is not None and authorization != f"Bearer {key}":
            return f"authorization is {authorization!r}, not the recording's key"
        if body.get("model") != self.recording["model"]:
            return f"model is {body.get('model')!r}, not {self.recording['model']!r}"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "no messages"
        if messages[0].get("role") != "system":
            return f"the first message is {messages[0].get('role')!r}, not the system prompt"
        problem = _unanswered_calls(messages)
        if problem:
            return problem
        if "stream" in expect and bool(body.get("stream")) != expect["stream"]:
            return f"stream is {body.get('stream')!r}, expected {expect['stream']}"
        if "tools" in expect:
            offered = sorted(t["function"]["name"] for t in body.get("tools") or [])
            if offered != sorted(expect["tools"]):
                return f"tools offered are {offered}, expected {sorted(expect['tools'])}"
        system = [m["content"] for m in messages if m["role"] == "system"]
        user = [m["content"] for m in messages if m["role"] == "user"]
        blocks = [c for c in system if c.startswith('<plan_context source="jupyter-plans"')]
        if self.recording.get("context", True) and len(blocks) != 1:
            return f"{len(blocks)} system messages hold the plan context block, not 1"
        if not self.recording.get("context", True) and any("<plan_context" in c for c in system):
            return "the plan context block was sent to an agent without planning"
        for text in expect.get("system", []):
            if not any(text in content for content in system):
                return f"no system message holds {text!r}"
            if any(text in content for content in user):
                return f"a user message holds {text!r}, which belongs to the context"
        for text in expect.get("user", []):
            if not any(text in content for content in user):
                return f"no user message holds {text!r}"
        for text in expect.get("not_user", []):
            if any(text in content for content in user):
                return f"a user message holds {text!r}"
        if "last" in expect:
            last, wanted = messages[-1], expect["last"]
            if last.get("role") != wanted["role"] or wanted["contains"] not in (
                last.get("content") or ""
            ):
                return f"the last message is {last!r}, expected {wanted!r}"
        results = {m.get("tool_call_id"): m.get("content") for m in messages if m["role"] == "tool"}
        for call_id, text in expect.get("tool_results", {}).items():
            if call_id not in results:
                return f"no tool result for {call_id!r}"
            if text not in results[call_id]:
                return f"the result for {call_id!r} is {results[call_id]!r}, without {text!r}"
        return None

    def act(self, name: str) -> None:
        try:
            self.actions[name]()
        except Exception as error:  # reported by the test, not lost in the server thread
            self.failures.append(f"action {name!r} failed: {error!r}")


def _unanswered_calls(messages: list[dict]) -> str | None:
    """As the real endpoint does: every tool call is answered by a tool message right after."""
    waiting: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            if message.get("tool_call_id") not in waiting:
                return f"a tool message answers {message.get('tool_call_id')!r}, not a call"
            waiting.remove(message["tool_call_id"])
            continue
        if waiting:
            return f"tool calls {waiting} have no tool message"
        if message["role"] == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or []]
    return f"tool calls {waiting} have no tool message" if waiting else None


def _pieces(text: str, parts: int = 3) -> list[str]:
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _arguments(call: dict) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _deltas(reply: dict) -> list[dict]:
    """The reply as stream deltas: the text in pieces, then each call with its arguments split."""
    content = reply.get("content") or ""
    pieces = content if isinstance(content, list) else _pieces(content)
    deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
    for index, call in enumerate(reply.get("tool_calls", [])):
        head = {"index": index, "id": call["id"], "type": "function"}
        deltas.append(
            {"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]}
        )
        for piece in _pieces(_arguments(call)):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return deltas


def _message(reply: dict) -> dict:
    content = reply.get("content")
    message: dict = {"role": "assistant", "content": "".join(content or []) or None}
    calls = reply.get("tool_calls", [])
    if calls:
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": _arguments(call)},
            }
            for call in calls
        ]
    return message


def _handler(server: ReplayServer) -> type[BaseHTTPRequestHandler]:
    model = server.recording["model"]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet: failures are kept, not logged
            pass

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            exchange, problem = server.take(body, self.headers.get("Authorization"))
            if exchange is None:
                error = {"message": f"replay check failed: {problem}", "type": "invalid_request"}
                self._json(400, {"error": error})
                return
            reply = exchange["reply"]
            if "error" in reply:  # as an endpoint refuses: the SDK raises its APIStatusError
                status, message = reply["error"]["status"], reply["error"]["message"]
                self._json(status, {"error": {"message": message, "type": "replayed"}})
                return
            finish = "tool_calls" if reply.get("tool_calls") else "stop"
            if not body.get("stream"):
                if "before_reply" in reply:
                    server.act(reply["before_reply"])
                choice = {"index": 0, "message": _message(reply), "finish_reason": finish}
                self._json(200, {**_head("chat.completion", model), "choices": [choice]})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            deltas = _deltas(reply)
            before = reply.get("before_chunk", {})
            try:
                for index, delta in enumerate(deltas):
                    if before.get("index") == index:
                        server.act(before["action"])
                        self.wfile.flush()
                    last = index == len(deltas) - 1
                    choice = {"index": 0, "delta": delta, "finish_reason": finish if last else None}
                    self._event({**_head("chat.completion.chunk", model), "choices": [choice]})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading: a cancelled turn does that

        def _event(self, chunk: dict) -> None:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _head(kind: str, model: str) -> dict:
    return {"id": "chatcmpl-replay", "object": kind, "created": 0, "model": model}
