"""JSON-RPC lines between the bridge and its two peers, the client and the agent.

A message is read as its line of bytes and the JSON it holds; a message the bridge passes on is
written back as the very line it came as, so ids and every field travel unchanged.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

# As the SDK's run_agent: a prompt with images or a long file needs more than asyncio's 64 KiB.
LINE_LIMIT = 50 * 1024 * 1024

# The client names its person (the chat's user) for a session: {sessionId, name, display?}, the
# display name shown beside the name where it says another. Jupyter AI's
# persona sends it before each prompt; the bridge keeps it and passes it on to no agent.
PERSON_METHOD = "_jupyter-plans/person"
# A JSON-RPC error code of the implementation's own range, not one ACP gives a meaning.
REFUSED_BY_GUARD = -32001
INVALID_REQUEST = -32600
# A request's id among its first keys (before its params), as JSON-RPC peers write them.
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,256}")')


def id_key(request_id: Any) -> str:
    """A key that tells the id 1 from the id "1", as JSON-RPC does."""
    return json.dumps(request_id, sort_keys=True)


def encode(message: dict) -> bytes:
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    except UnicodeEncodeError:  # a lone surrogate, which JSON can only hold escaped
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def warn(text: str) -> None:
    """One line on stderr, where an ACP client keeps its agent's log."""
    print(f"jupyter-plans acp: {text}", file=sys.stderr, flush=True)


class Peer:
    """One side of the bridge: its lines in, and a writer for lines out."""

    def __init__(self, name: str, reader: asyncio.StreamReader, writer: Any) -> None:
        """`writer` has `write(bytes)` and `async drain()`, as an asyncio.StreamWriter."""
        self.name = name
        self._reader = reader
        self._writer = writer
        self.closed = False

    async def messages(self) -> AsyncIterator[tuple[dict | None, bytes]]:
        """Each line with the JSON object it holds (None when it holds none), until EOF."""
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial
                if not line.strip():
                    return
            except asyncio.LimitOverrunError as overrun:
                head = await self._reader.readexactly(overrun.consumed)
                await self._drop_rest_of_line()
                request_id = _leading_id(head)
                warn(f"a line from the {self.name} is over {LINE_LIMIT} bytes; dropped whole")
                if request_id is not None:
                    await self.respond_error(
                        request_id,
                        INVALID_REQUEST,
                        f"the message is over {LINE_LIMIT} bytes, the most one line may hold "
                        "here; it was not passed on",
                    )
                continue
            if not line.strip():
                continue
            if not line.endswith(b"\n"):
                line += b"\n"
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep
                message = None
            yield (message if isinstance(message, dict) else None), line

    async def _drop_rest_of_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.IncompleteReadError:
                return
            except asyncio.LimitOverrunError as overrun:
                await self._reader.readexactly(overrun.consumed)

    async def send_line(self, line: bytes) -> None:
        if self.closed:
            return
        try:
            self._writer.write(line)
            await self._writer.drain()
        except (ConnectionError, RuntimeError, OSError):
            self.closed = True

    async def send(self, message: dict) -> None:
        await self.send_line(encode(message))

    async def respond(self, request_id: Any, result: Any) -> None:
        await self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def respond_error(self, request_id: Any, code: int, message: str, data: Any = None):
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    async def notify(self, method: str, params: dict) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})


def _leading_id(head: bytes) -> Any:
    """The id of the request that `head` (the start of a line too long to read) begins, when
    it names its method and its id before its params; else None."""
    start = head[:65536]
    params = start.find(b'"params"')
    found = _ID.search(start, 0, params if params >= 0 else len(start))
    if found is None or b'"method"' not in start:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None
