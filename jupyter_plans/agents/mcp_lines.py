"""The MCP client's lines, checked before the SDK reads them: the SDK drops a line that is not a
JSON-RPC message without a word; here it is answered."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage


class CheckedLines:
    """The client's lines, as the SDK's stdio reader takes them. The SDK drops a line that is
    not a JSON-RPC message without a word; here it is answered: -32700 when it is not JSON,
    -32600 when it is JSON but no valid message (a batch, an object as id, no "jsonrpc")."""

    def __init__(self) -> None:
        stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        self._file = anyio.wrap_file(stdin)
        self.replies: Any = None  # the server's write stream

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        async for line in self._file:
            if not line.strip():
                continue
            problem = _problem(line)
            if problem is None:
                yield line
                continue
            code, request_id, message = problem
            error = types.ErrorData(code=code, message=message)
            reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
            await self.replies.send(SessionMessage(reply))


def _problem(line: str) -> tuple[int, Any, str] | None:
    """(code, id to answer, message) for a line that is not a JSON-RPC message, else None."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return types.PARSE_ERROR, None, "Parse error: the line is not JSON"
    if not isinstance(message, dict):
        return (
            types.INVALID_REQUEST,
            None,
            "Invalid request: a message is one JSON object (batches are not supported)",
        )
    request_id = message.get("id")
    has_id = "id" in message
    answer_id = request_id if type(request_id) in (int, str) else None
    if has_id and request_id is not None and answer_id is None:
        return types.INVALID_REQUEST, None, "Invalid request: an id is a string or a number"
    if not _encodable(message):
        # A lone surrogate (JavaScript writes one when it cuts a string inside an emoji): no
        # reply could carry it, so it is answered here, with the id when the id can be sent.
        return (
            types.INVALID_REQUEST,
            answer_id if _encodable(answer_id) else None,
            "Invalid request: the message holds a lone surrogate (U+D800 to U+DFFF), which no "
            "text can carry",
        )
    if message.get("jsonrpc") != "2.0":
        return types.INVALID_REQUEST, answer_id, 'Invalid request: "jsonrpc" must be "2.0"'
    if "method" in message and not isinstance(message["method"], str):
        return types.INVALID_REQUEST, answer_id, 'Invalid request: "method" must be a string'
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError:
        return types.INVALID_REQUEST, answer_id, "Invalid request: not a JSON-RPC message"
    return None


def _encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True
