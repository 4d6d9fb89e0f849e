"""`jupyter-plans mcp`: an MCP server on stdio bound to one plan session.

Its tools are the plan tools the session offers in its mode (and finish_plan once every step is
completed) at each `tools/list`. A background task, woken by the store's notices (the file
system's, PostgreSQL's) or a slow poll where none come, reads the store's change token and,
when what is offered moved, whoever moved it, tells the client with
`notifications/tools/list_changed` (or, on a 2026-era connection, on the client's
`subscriptions/listen` stream). The snapshot and the context block are resources, read fresh
each time. Everything the server logs goes to stderr: stdout is the protocol.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
import mcp.types as types
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ..errors import PlanStoreError
from ..plan.catalog import every_step_completed
from ..session import PlanSession, open_plan
from ..store.wake import Wake
from .hosts.registry import lists_tools_once
from .mcp_lines import CheckedLines
from .toolbox import Toolbox

_log = logging.getLogger("jupyter_plans.mcp")

POLL_SECONDS = 0.2  # where no notice comes (a network file system)
NOTIFIED_POLL_SECONDS = 2.0  # besides the notices
EXPERIMENTAL = {"durable_plans": {"version": 1}}
# MCP clients, by the name they give at `initialize`, that ask for the tool list once and never
# again after `notifications/tools/list_changed`. They are offered the tools of every mode from
# the start (a call the mode does not take is still refused, in one line), so the person's
# `%plan on` while they run still lets their model reach plan_submit.
LISTS_TOOLS_ONCE = lists_tools_once()
INSTRUCTIONS = (
    "This server keeps a durable plan of your work beside a Jupyter notebook, shown to the "
    "person as a live card. Keep it current with update_plan (send the whole plan and the "
    "expected_revision you last read; mark one step in_progress at a time, completed when "
    "done) and record lasting decisions with record_decision. When the person starts plan "
    "mode, research first, then propose with plan_submit and end your turn: the person "
    "approves, asks for changes, or leaves plan mode. Once every step is completed, finish "
    "the plan with finish_plan, reviewing each objective. Where a step's outcome can be seen "
    "in the notebook, give it a check (one Python expression, such as "
    "df['price'].notna().all()): once the person approves it, the notebook runs it when the "
    "step is completed, and the context resource says how it went; a step whose check failed "
    "is not done. The person may comment on steps; "
    "their comments are in the context resource, in their words: once you have addressed "
    "one, reply to it with comment_reply. The tool list follows the mode and the plan. Read "
    "the snapshot or context resource for the plan as it stands."
)

T = TypeVar("T")


class PlanMCPServer:
    """The MCP server of one plan session; `run()` serves one client on stdio."""

    def __init__(self, session: PlanSession, *, poll_seconds: float = POLL_SECONDS) -> None:
        self.session, self.store = session, session.store
        self.toolbox = Toolbox(session)
        self.poll_seconds = poll_seconds
        # Call ids are made from this and the request id, so a restarted server never
        # reuses the recorded call ids of an earlier one.
        self.instance = secrets.token_hex(6)
        base = f"plans://session/{quote(session.session_id, safe='')}"
        self.snapshot_uri, self.context_uri = f"{base}/snapshot", f"{base}/context"
        # One thread does every store operation: the store holds a connection per thread.
        self._db_thread = ThreadPoolExecutor(1, thread_name_prefix="jupyter-plans-mcp")
        self._bus = InMemorySubscriptionBus()  # 2026-era listen streams
        self._peer: ServerSession | None = None  # a handshake-era client, once initialized
        self._subscribed: set[str] = set()  # resources/subscribe, handshake era
        self._token: int | None = None
        self._cursor: tuple[int, int] | None = None  # (the store's generation, the cursor)
        # The mode, and whether every step is completed (finish_plan is offered then), of the
        # tools the client was last told of.
        self._offer: tuple[str, bool] | None = None
        self._checking = anyio.Lock()
        self.server: Server = Server(
            "jupyter-plans",
            version=metadata.version("jupyter-plans"),
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
            on_subscribe_resource=self._subscribe,
            on_unsubscribe_resource=self._unsubscribe,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.middleware.append(self._track_peer)
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)

    def initialization_options(self):
        return self.server.create_initialization_options(
            NotificationOptions(tools_changed=True), experimental_capabilities=EXPERIMENTAL
        )

    async def _db(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.wrap_future(self._db_thread.submit(func, *args, **kwargs))

    # Serving.

    async def run(self) -> None:
        """Serve one client on stdin/stdout until it closes the connection."""
        try:
            await self._check()  # the starting point the watcher compares against
            lines = CheckedLines()
            async with (
                stdio_server(stdin=lines) as (read, write),
                anyio.create_task_group() as tasks,
            ):
                lines.replies = write  # set before the first line can be read
                tasks.start_soon(self._watch)
                await self.server.run(read, write, self.initialization_options())
                tasks.cancel_scope.cancel()
        finally:
            await self._db(self.store.close)
            self._db_thread.shutdown()

    async def _watch(self) -> None:
        wake = Wake(self.store, untold=self.poll_seconds, told=NOTIFIED_POLL_SECONDS)
        try:
            while True:
                await wake.wait()
                await self._check_quietly()
        finally:
            wake.close()

    async def _check_quietly(self) -> None:
        try:
            await self._check()
        except Exception:  # a passing store error must not end the watching
            _log.exception("could not read the plan store; trying again")

    async def _check(self) -> None:
        """Tell the client what moved since the last check: its tools, its resources."""
        async with self._checking:
            token = await self._db(self.store.change_token)
            if token == self._token:
                return
            self._token = token
            cursor, offer = await self._db(self._head)
            # After the plan file was replaced, an equal cursor is another history.
            cursor = (self.store.generation, cursor)
            if cursor == self._cursor:
                return  # another session's commit
            first = self._cursor is None
            self._cursor = cursor
            if first:
                self._offer = offer
                return
            if offer != self._offer:
                self._offer = offer
                _log.info("mode is now %s, steps all completed: %s; the tool list changed", *offer)
                await self._bus.publish(ToolsListChanged())
                if self._peer is not None:
                    await _quietly(self._peer.send_tool_list_changed())
            for uri in (self.snapshot_uri, self.context_uri):
                await self._bus.publish(ResourceUpdated(uri=uri))
                if self._peer is not None and uri in self._subscribed:
                    await _quietly(self._peer.send_resource_updated(uri))

    def _head(self) -> tuple[int, tuple[str, bool]]:
        snapshot = self.session.snapshot()
        return snapshot.cursor, (snapshot.mode, every_step_completed(snapshot.plan))

    async def _track_peer(self, ctx: ServerRequestContext, call_next: CallNext) -> Any:
        """Keep a handshake-era client's session, through which its notifications go."""
        result = await call_next(ctx)
        if (
            self._peer is None
            and ctx.method not in ("initialize", "ping")
            and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        ):
            self._peer = ctx.session
        return result

    async def _discover(
        self, ctx: ServerRequestContext, params: types.RequestParams
    ) -> types.DiscoverResult:
        # As the SDK's own answer, with the experimental capability a handshake also shows.
        capabilities = self.server.get_capabilities(
            experimental_capabilities=EXPERIMENTAL, protocol_version=ctx.protocol_version
        )
        if capabilities.resources is not None:
            # The two resources are always the same two: their list never changes.
            capabilities.resources.list_changed = False
        return types.DiscoverResult(
            supported_versions=list(MODERN_PROTOCOL_VERSIONS),
            capabilities=capabilities,
            instructions=self.server.instructions,
        )

    # Tools.

    def call_id(self, request_id: Any) -> str:
        """The plan's call id for a JSON-RPC request id: the id's JSON text, so that the
        number 888 and the string "888" stay apart; a long id by its SHA-256, so that the call
        id stays within its 128 bytes."""
        text = json.dumps(request_id)  # ASCII: other characters are escaped
        if len(text) > 64:
            text = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        return f"mcp-{self.instance}-{text}"

    async def _list_tools(self, ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
        cursor, offer = await self._db(self._head)
        self._offer = offer  # the client now holds these tools
        mode, completed = offer
        if _lists_once(ctx):
            found = self.toolbox.every_definition("mcp")
        else:
            found = self.toolbox.definitions("mcp", mode, completed=completed)
        tools = [
            types.Tool(name=d["name"], description=d["description"], input_schema=d["inputSchema"])
            for d in found
        ]
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # MCP has no turns: no turn_id, so a call is never late.
        call_id = self.call_id(ctx.request_id)
        arguments = {} if params.arguments is None else params.arguments
        try:
            result = await self._db(self.toolbox.call, params.name, arguments, call_id=call_id)
            is_error, content = result.is_error, result.content
        except PlanStoreError as exc:
            is_error, content = True, f"the plan store failed; nothing was changed: {exc}"
        await self._check()
        return types.CallToolResult(content=[types.TextContent(text=content)], is_error=is_error)

    # Resources.

    async def _list_resources(
        self, ctx: ServerRequestContext, params: Any
    ) -> types.ListResourcesResult:
        sid = self.session.session_id
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=self.snapshot_uri,
                    name="snapshot",
                    title=f"Plan snapshot of session {sid}",
                    description="The session's plan, mode, waiting decision and decisions "
                    "as JSON, read fresh on each read.",
                    mime_type="application/json",
                ),
                types.Resource(
                    uri=self.context_uri,
                    name="context",
                    title=f"Plan context of session {sid}",
                    description="The plan, mode, waiting decision, ready steps and recent "
                    "decisions as bounded text for a prompt, framed as untrusted data.",
                    mime_type="text/plain",
                ),
            ]
        )

    async def _read_resource(
        self, ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == self.snapshot_uri:
            text = await self._db(lambda: self.session.snapshot().model_dump_json())
            mime = "application/json"
        elif uri == self.context_uri:
            from .context import context_block

            text = await self._db(context_block, self.session)
            mime = "text/plain"
        else:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def _subscribe(
        self, ctx: ServerRequestContext, params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in (self.snapshot_uri, self.context_uri):
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}")
        self._subscribed.add(uri)
        return types.EmptyResult()

    async def _unsubscribe(
        self, ctx: ServerRequestContext, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self._subscribed.discard(str(params.uri))
        return types.EmptyResult()


def _lists_once(ctx: ServerRequestContext) -> bool:
    """Whether the client is one that never asks for the tool list again."""
    params = ctx.session.client_params if ctx.session is not None else None
    return params is not None and params.client_info.name in LISTS_TOOLS_ONCE


async def _quietly(sending: Any) -> None:
    """Send a notification; a client that has gone away is not an error."""
    try:
        await sending
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        _log.debug("the client has gone; a notification was dropped")


def serve(db: str | None = None, notebook: str | None = None, session: str | None = None) -> int:
    """Run the server for `jupyter-plans mcp` until the client disconnects."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="jupyter-plans mcp: %(message)s"
    )
    _store, plan_session = open_plan(notebook, db, session, "jupyter-plans mcp")
    try:
        anyio.run(PlanMCPServer(plan_session).run)
    except KeyboardInterrupt:
        return 130
    return 0
