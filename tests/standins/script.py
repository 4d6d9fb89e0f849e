"""What a stand-in model says: a script of turns, each a list of reply items, shared by the
Anthropic and the Responses stand-ins. See the Responses module's docstring for its use."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The text a side request (a title, a classifier, a topic) and a request past the script's end
# get: short, and harmless as an answer to either.
SIDE_TEXT = "OK"
OVER_TEXT = "Done."


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Call:
    """A tool call by name, with its input (an object, or the raw text of a freeform tool)."""

    name: str
    input: Any = field(default_factory=dict)
    namespace: str | None = None  # a tool found through Codex's tool_search (`mcp__SERVER`)


def text(words: str) -> Text:
    return Text(words)


def call(name: str, input: Any = None, namespace: str | None = None) -> Call:  # noqa: A002
    return Call(name, {} if input is None else input, namespace)


Item = Text | Call
Predicate = Callable[[dict], bool]


@dataclass
class Turn:
    """The reply to one request of the conversation. With `when`, the turn answers the first
    request it is true for (checked before the turns in order) and is used once; `items` may
    also be a function of the request body giving the items."""

    items: list[Item] | Callable[[dict], list[Item]]
    when: Predicate | None = None

    def reply(self, body: dict) -> list[Item]:
        return list(self.items(body) if callable(self.items) else self.items)


def turn(*items: Item, when: Predicate | None = None) -> Turn:
    return Turn(list(items), when)


@dataclass
class Request:
    """One request the stand-in received: its path, body, and what answered it (`turn`: the
    index of the script's turn, `side`, `over` past the script's end, or `other`)."""

    path: str
    body: Any
    answer: str
    turn: int | None = None


class Script:
    """The turns of a script and which were used; thread-safe (requests come on threads)."""

    def __init__(self, turns: Iterable[Turn | list | tuple]) -> None:
        self.turns = [t if isinstance(t, Turn) else Turn(list(t)) for t in turns]
        self.used: set[int] = set()
        self.lock = threading.Lock()

    def next(self, body: dict) -> tuple[int | None, list[Item]]:
        """The turn answering this request: a predicate's first, else the next one in order
        that has no predicate; (None, [Done.]) past the end."""
        with self.lock:
            for index, candidate in enumerate(self.turns):
                if index in self.used or candidate.when is None:
                    continue
                if _holds(candidate.when, body):
                    self.used.add(index)
                    return index, candidate.reply(body)
            for index, candidate in enumerate(self.turns):
                if index not in self.used and candidate.when is None:
                    self.used.add(index)
                    return index, candidate.reply(body)
        return None, [Text(OVER_TEXT)]

    @property
    def left(self) -> int:
        return len(self.turns) - len(self.used)


def _holds(predicate: Predicate, body: dict) -> bool:
    try:
        return bool(predicate(body))
    except (KeyError, TypeError, IndexError, AttributeError):
        return False


class StandinServer:
    """The HTTP side both stand-ins share: 127.0.0.1, port 0, one thread; a context manager.
    A subclass answers in `serve(handler, path, body)`."""

    def __init__(self, script: Iterable[Turn | list | tuple] = ()) -> None:
        self.script = Script(script)
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.http.server_address[1]

    @property
    def url(self) -> str:
        """The server's root, http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join()

    def record(self, path: str, body: Any, answer: str, turn_index: int | None = None) -> None:
        with self.lock:
            self.requests.append(Request(path, body, answer, turn_index))

    def turns(self) -> list[Request]:
        """The requests the script answered, in order."""
        return [r for r in self.requests if r.answer == "turn"]

    def side(self) -> list[Request]:
        return [r for r in self.requests if r.answer == "side"]

    def serve(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        raise NotImplementedError


def _handler(server: StandinServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: the requests are recorded
            pass

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def do_POST(self) -> None:  # noqa: N802 - http.server's names
            server.serve(self, self.path, self._body())

        def do_GET(self) -> None:  # noqa: N802
            server.serve(self, self.path, None)

        do_PUT = do_DELETE = do_PATCH = do_POST  # noqa: N815

        def do_HEAD(self) -> None:  # noqa: N802
            send_json(self, 200, {})

    return Handler


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class EventStream:
    """Server-Sent Events on one response: `event: NAME` and `data: JSON` per event."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True

    def send(self, name: str, data: dict) -> None:
        chunk = f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
        self.handler.wfile.write(chunk.encode())
        self.handler.wfile.flush()


def pieces(text: str, size: int = 12) -> list[str]:
    """Text cut in the small deltas a model streams (at least one, possibly empty)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
