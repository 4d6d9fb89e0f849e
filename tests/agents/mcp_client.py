"""The MCP SDK's client connected to a real `jupyter-plans mcp` process over stdio."""

from __future__ import annotations

import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.helpers.cli import COMMAND

NOTICE_TIMEOUT = 5  # the contract is 1 s; the margin keeps a busy machine from failing the test


class Client:
    """A connected ClientSession, with the notifications it has received."""

    def __init__(self, session: ClientSession, init: types.InitializeResult, notices: list):
        self.session, self.init = session, init
        self.notices: list[tuple[float, object]] = notices  # (when received, notification)

    async def wait_for(self, kind: type, after: int = 0, timeout: float = NOTICE_TIMEOUT):
        """The first notification of `kind` among those after the first `after` received."""
        with anyio.fail_after(timeout):
            while True:
                for at, notice in self.notices[after:]:
                    if isinstance(notice, kind):
                        return at, notice
                await anyio.sleep(0.01)

    async def tool_names(self) -> list[str]:
        return [tool.name for tool in (await self.session.list_tools()).tools]

    async def call(self, name: str, arguments: dict) -> types.CallToolResult:
        return await self.session.call_tool(name, arguments)


@asynccontextmanager
async def serving(tmp_path: Path, *args: str, client_name: str | None = None):
    """A `jupyter-plans mcp ARGS` process and a client connected to it (named CLIENT_NAME at
    its initialize, else the SDK's name); both end with the block."""
    info = None if client_name is None else types.Implementation(name=client_name, version="1")
    log = (tmp_path / "server-stderr.log").open("a")
    params = StdioServerParameters(
        command=COMMAND[0], args=[*COMMAND[1:], "mcp", *args], cwd=str(tmp_path)
    )
    notices: list[tuple[float, object]] = []

    async def on_message(message) -> None:
        notices.append((time.monotonic(), getattr(message, "root", message)))

    try:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write, message_handler=on_message, client_info=info) as session,
        ):
            yield Client(session, await session.initialize(), notices)
    finally:
        log.close()
    stderr = (tmp_path / "server-stderr.log").read_text()
    assert "Traceback" not in stderr, stderr
