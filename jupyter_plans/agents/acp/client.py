"""A small ACP client for a notebook or a script: it runs an agent behind `jupyter-plans acp`, sends
the person's prompts, answers permission requests when told to, and shows what reached it as
text that is the same on every run (notebook 05 plays the editor with it).

Its calls block: each returns what reached the client until the agent's turn ends or a new
permission request waits for an answer. The connection lives on an event loop of its own, in a
thread, so it keeps running between cells while the person decides on the card.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, WriteTextFileResponse, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    RequestPermissionResponse,
)

from ...session import PlanStore
from ...store.locate import plan_file
from ..scripted import Transcript
from .launch import bridge_command, shown
from .methods import PROMPT, REQUEST_PERMISSION, UPDATE, WRITE_TEXT_FILE
from .words import end_line, request_lines, update_lines, write_line

TIMEOUT = 30.0


class BridgedChat:
    """An ACP client connected to `jupyter-plans acp ... -- AGENT` (see `start`)."""

    def __init__(
        self,
        agent: Sequence[str],
        *,
        notebook: str | Path | None = None,
        db: str | None = None,
        session: str | None = None,
        bridge: Sequence[str] | None = None,
        timeout: float = TIMEOUT,
    ) -> None:
        self.command = bridge_command(
            agent, notebook=notebook, db=db, session=session, bridge=bridge
        )
        self.timeout = timeout
        self.files: dict[str, str] = {}  # what the agent wrote through the client, by path
        self.session_id: str | None = None  # the agent's ACP session
        self.modes: tuple[str, ...] = ()
        self.mode: str | None = None  # the agent's mode, as the client was told
        path = plan_file(Path(notebook).expanduser().absolute()) if notebook is not None else db
        self._store = PlanStore(path)
        self._plan = self._store.session(session)  # the session the bridge binds: the same
        self._lines: list[str] = []
        self._requests: list[dict] = []  # permission requests, in the order they came
        self._answers: dict[Any, asyncio.Future] = {}  # tool call id -> the client's answer
        self._prompts: set[Any] = set()  # ids of prompts sent and not yet answered
        self._running = 0  # prompts started and not yet answered
        self._ended = 0  # prompts answered
        self._marks = (0, 0, 0)  # lines, requests and ended at the last return
        self._stderr = tempfile.TemporaryFile()
        self._loop = asyncio.new_event_loop()
        self._changed: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._stack = contextlib.AsyncExitStack()
        self._conn: Any = None
        # What the client shows of the agent's messages, by method (else that it called it).
        self._shows = {UPDATE: self._updated, REQUEST_PERMISSION: self._asked}
        self._shows[WRITE_TEXT_FILE] = lambda params: self._lines.append(write_line(params))

    @classmethod
    def start(cls, agent: Sequence[str], **kw: Any) -> BridgedChat:
        """Run the bridge and the agent, initialize, and open an ACP session."""
        chat = cls(agent, **kw)
        chat._thread.start()
        try:
            chat._call(chat._connect())
        except BaseException:
            chat.close()
            raise
        return chat

    def __repr__(self) -> str:
        modes = ", ".join(self.modes) or "none"
        return (
            f"An ACP client connected to: {shown(self.command)}\n"
            f"agent session {self.session_id}; modes {modes}; now {self.mode}"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    @property
    def stderr(self) -> str:
        """What the bridge and the agent wrote on stderr (kept out of the notebook)."""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    # The person's side: each call returns what reached the client since the last one.

    def send(self, text: str) -> Transcript:
        """Send a prompt, once the agent is in the session's mode (the bridge carries a
        `%plan on` to the agent within moments; a prompt sent sooner would race it)."""
        self._settle_mode()
        return self._call(self._send(text))

    def wait(self) -> Transcript:
        """Wait until the running turn ends or a new permission request waits."""
        return self._call(self._collect())

    def answer(self, option_id: str) -> Transcript:
        """Answer the newest permission request the client has not answered, as a person
        clicking that option in an editor would; then wait as `wait` does."""
        return self._call(self._answer(option_id))

    def close(self) -> None:
        """End the connection: the bridge and the agent stop."""
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._call(self._stack.aclose())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(self.timeout)
            if not self._loop.is_running():
                self._loop.close()
        self._store.close()
        self._stderr.close()

    def __enter__(self) -> BridgedChat:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, coroutine) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def _settle_mode(self) -> None:
        if "plan" not in self.modes:
            return
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if (self._plan.snapshot().mode == "plan") == (self.mode == "plan"):
                return
            time.sleep(0.02)

    # On the connection's loop.

    async def _connect(self) -> None:
        self._changed = asyncio.Event()
        self._conn, _ = await self._stack.enter_async_context(
            spawn_agent_process(
                _Handler(self),
                *self.command,
                transport_kwargs={"stderr": self._stderr},
                observers=[self._observe],
            )
        )
        capabilities = ClientCapabilities(fs=FileSystemCapabilities(write_text_file=True))
        await asyncio.wait_for(
            self._conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
            ),
            self.timeout,
        )
        response = await asyncio.wait_for(
            self._conn.new_session(cwd=str(Path.cwd()), mcp_servers=[]), self.timeout
        )
        self.session_id = response.session_id
        if response.modes is not None:
            self.modes = tuple(mode.id for mode in response.modes.available_modes)
            self.mode = response.modes.current_mode_id

    async def _send(self, text: str) -> Transcript:
        self._lines.append(f"you: {text}")
        self._running += 1
        prompt = self._conn.prompt(session_id=self.session_id, prompt=[text_block(text)])
        task = asyncio.ensure_future(prompt)
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await self._collect()

    async def _answer(self, option_id: str) -> Transcript:
        request = next((r for r in reversed(self._requests) if not r["answered"]), None)
        if request is None:
            raise ValueError("no permission request waits for the client's answer")
        kinds = {option["optionId"]: option["kind"] for option in request["options"]}
        if option_id not in kinds:
            raise ValueError(f"{option_id!r} is not one of the options {sorted(kinds)}")
        request["answered"] = True
        self._lines.append(f"you answer: {option_id} ({kinds[option_id]})")
        deadline = self._loop.time() + self.timeout
        while request["tool_call"] not in self._answers and self._loop.time() < deadline:
            await asyncio.sleep(0.01)  # the SDK hands the request to the handler just after
        future = self._answers.get(request["tool_call"])
        if future is not None and not future.done():
            outcome = AllowedOutcome(outcome="selected", option_id=option_id)
            future.set_result(RequestPermissionResponse(outcome=outcome))
        return await self._collect()

    async def _collect(self) -> Transcript:
        lines_mark, requests_mark, ended_mark = self._marks
        deadline = self._loop.time() + self.timeout

        def stopped() -> bool:
            waiting = [r for r in self._requests[requests_mark:] if not r["answered"]]
            return bool(waiting) or self._ended > ended_mark or not self._running

        while not stopped():
            self._changed.clear()
            remaining = deadline - self._loop.time()
            try:
                await asyncio.wait_for(self._changed.wait(), max(remaining, 0))
            except TimeoutError:
                self._lines.append(f"(nothing more within {self.timeout:g} s)")
                break
        if any(not r["answered"] for r in self._requests[requests_mark:]):
            self._lines.append("(waiting for an answer)")
        elif len(self._lines) == lines_mark and not self._running:
            self._lines.append("(no turn is running)")
        self._marks = (len(self._lines), len(self._requests), self._ended)
        return Transcript(self._lines[lines_mark:])

    def _observe(self, event: Any) -> None:
        """Every raw message, in the order it crossed the wire (the SDK runs handlers as
        tasks, so their order is not the wire's)."""
        message = event.message
        if event.direction.value == "outgoing":
            if message.get("method") == PROMPT:
                self._prompts.add(message.get("id"))
            return
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method is None and message.get("id") in self._prompts:
            self._prompts.discard(message.get("id"))
            self._running -= 1
            self._ended += 1
            self._lines.append(end_line(message))
        elif method is not None:
            show = self._shows.get(method) if isinstance(method, str) else None
            if show is None:
                self._lines.append(f"agent calls {method}")
            else:
                show(params)
        if self._changed is not None:
            self._changed.set()

    def _updated(self, params: dict) -> None:
        update = params.get("update") or {}
        if update.get("sessionUpdate") == "current_mode_update":
            self.mode = update.get("currentModeId")
        self._lines.extend(update_lines(update))

    def _asked(self, params: dict) -> None:
        tool_call_id = (params.get("toolCall") or {}).get("toolCallId")
        options = params.get("options") or []
        self._requests.append({"tool_call": tool_call_id, "options": options, "answered": False})
        self._lines.extend(request_lines(params))


class _Handler:
    """The client's answers to the agent's requests (the SDK's Client protocol)."""

    def __init__(self, chat: BridgedChat) -> None:
        self.chat = chat

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass  # shown from the raw message, in wire order (BridgedChat._observe)

    async def request_permission(self, session_id, tool_call, options, **kwargs: Any):
        future = asyncio.get_running_loop().create_future()
        self.chat._answers[tool_call.tool_call_id] = future
        return await future

    async def write_text_file(self, session_id, path, content, **kwargs: Any):
        self.chat.files[path] = content
        return WriteTextFileResponse()

    async def ext_method(self, method: str, params: dict) -> dict:
        return {}

    async def ext_notification(self, method: str, params: dict) -> None:
        pass
