"""The client end of the bridge tests: an ACP SDK client that runs `python -m
jupyter_plans.agents.acp ... -- python -m jupyter_plans.agents.acp.demo_agent` (the scripted
agent notebook 05 uses too) as a real process, records what reaches it, and lets a test answer
the permission requests that reach it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import (
    CreateTerminalResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
    spawn_agent_process,
    text_block,
)
from acp.schema import AllowedOutcome, DeniedOutcome

from tests import waiting

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]  # the repository
# The shipped scripted agent, telling what happened (--report) and answering a prompt that is no
# script with one message (--no-scenario).
AGENT = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent", "--report", "--no-scenario"]
TIMEOUT = 20.0
# The bridge runs on the ACP SDK of the environment (0.11, beside Jupyter AI's ACP client) and
# on 0.12, which `make test` installs here apart (`make acp-sdk`).
SDK_0_12 = ROOT / "build" / "acp-0.12"


def script(*actions: dict) -> str:
    return "SCRIPT " + json.dumps(list(actions), ensure_ascii=False)


class Asked:
    """A permission request that reached the client, waiting for the test's answer."""

    def __init__(self, session_id: str, tool_call: Any, options: list) -> None:
        self.session_id, self.tool_call, self.options = session_id, tool_call, options
        self.answer: asyncio.Future = asyncio.get_running_loop().create_future()

    def choose(self, option_id: str) -> None:
        outcome = AllowedOutcome(outcome="selected", option_id=option_id)
        self.answer.set_result(RequestPermissionResponse(outcome=outcome))

    def cancel(self) -> None:
        self.answer.set_result(
            RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        )


class RecordingClient:
    """The SDK client: keeps every update, permission request, write and terminal it gets."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.asked: asyncio.Queue[Asked] = asyncio.Queue()
        self.asked_all: list[Asked] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: list[str] = []
        self.raw_in: list[dict] = []  # every JSON-RPC message the client received
        self.raw_out: list[dict] = []
        self._changed = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        pass

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        asked = Asked(session_id, tool_call, options)
        self.asked_all.append(asked)
        await self.asked.put(asked)
        return await asked.answer

    async def session_update(self, session_id, update, **kwargs) -> None:
        self.updates.append((session_id, update))
        self._changed.set()

    async def write_text_file(self, session_id, path, content, **kwargs):
        self.writes.append((path, content))
        return WriteTextFileResponse()

    async def create_terminal(self, session_id, command, **kwargs):
        self.terminals.append(command)
        return CreateTerminalResponse(terminal_id="terminal-1")

    def observe(self, event: Any) -> None:
        (self.raw_in if event.direction.value == "incoming" else self.raw_out).append(event.message)

    # What the agent reported, and what reached the client.

    def reports(self, event: str | None = None) -> list[dict]:
        found = []
        for _, update in self.updates:
            if getattr(update, "session_update", None) != "agent_message_chunk":
                continue
            text = getattr(update.content, "text", "")
            if text.startswith("REPORT "):
                report = json.loads(text[len("REPORT ") :])
                if event is None or report["event"] == event:
                    found.append(report)
        return found

    async def report(self, event: str, count: int = 1) -> dict:
        """The `count`-th report of `event`, waiting for it."""

        async def arrived() -> dict:
            while True:
                found = self.reports(event)
                if len(found) >= count:
                    return found[count - 1]
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(arrived(), TIMEOUT)

    async def next_asked(self) -> Asked:
        return await asyncio.wait_for(self.asked.get(), TIMEOUT)

    def kinds(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if getattr(u, "session_update", None) == kind]


@pytest.fixture(params=["installed", "0.12"], ids=["sdk-installed", "sdk-0.12"])
def bridge_sdk(request) -> Path | None:
    """The SDK the bridge runs on, for `bridged(..., sdk=)`: None for the environment's own,
    else SDK_0_12. Without SDK_0_12 the test skips, and fails in CI."""
    if request.param == "installed":
        return None
    if not (SDK_0_12 / "acp" / "__init__.py").is_file():
        reason = (
            f"no agent-client-protocol 0.12 in {SDK_0_12.relative_to(ROOT)}: "
            "`make acp-sdk` installs it"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return SDK_0_12


def bridge_env(sdk: Path | None = None) -> dict[str, str]:
    """The environment of the bridge's process: this repository's package and, with `sdk`, that
    folder's ACP SDK first (the agent behind the bridge inherits it)."""
    env = dict(os.environ)
    first = [str(sdk)] if sdk is not None else []
    env["PYTHONPATH"] = os.pathsep.join([*first, str(ROOT), env.get("PYTHONPATH", "")])
    return env


@contextlib.asynccontextmanager
async def bridged(
    tmp_path: Path,
    *where: str,
    session: str | None = "s",
    sdk: Path | None = None,
    agent_args=(),
    agent=None,
):
    """The client, its connection to the bridge, and the bridge's process; `where` defaults
    to `--db tmp_path/a.plans.sqlite`; `sdk` as bridge_env; `agent` (a command) in place of
    the scripted agent."""
    client = RecordingClient()
    env = bridge_env(sdk)
    args = list(where or ("--db", str(tmp_path / "a.plans.sqlite")))
    if session is not None:
        args += ["--session", session]
    command = [
        "-m",
        "jupyter_plans.agents.acp",
        *args,
        "--",
        *(agent or [*AGENT, *agent_args, *agent_log_option(tmp_path)]),
    ]
    with open(tmp_path / "bridge.stderr", "ab") as stderr:
        async with spawn_agent_process(
            client,
            sys.executable,
            *command,
            env=env,
            cwd=tmp_path,
            transport_kwargs={"stderr": stderr},
            observers=[client.observe],
        ) as (conn, process):
            try:
                await asyncio.wait_for(conn.initialize(protocol_version=1), TIMEOUT)
                yield client, conn, process
            finally:
                await hang_up(process)


async def hang_up(process: Any) -> None:
    """End the conversation as a client that is done with it: close the bridge's stdin, and
    read what the bridge still sends until its stdout ends, before the SDK closes the
    connection (which it does when the `async with` of spawn_agent_process ends).

    The SDK 0.11 closes a connection by closing its message queue first and cancelling its
    reading task after; a line that arrives in between (a mode update the bridge sends as the
    test ends) is refused with "message queue already closed", which fails the close now and
    then. Once the bridge has exited and its stdout is read to the end, nothing can arrive."""
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    with contextlib.suppress(asyncio.TimeoutError):  # then the SDK ends it, as before
        await asyncio.wait_for(process.wait(), TIMEOUT)
        await asyncio.wait_for(_read_to_the_end(process.stdout), TIMEOUT)


async def _read_to_the_end(stdout: asyncio.StreamReader) -> None:
    """Until the connection's reading task has taken the last line (the reader is at its end)."""
    while not stdout.at_eof():
        await asyncio.sleep(0.01)


async def new_session(conn: Any, cwd: Path) -> str:
    response = await asyncio.wait_for(conn.new_session(cwd=str(cwd), mcp_servers=[]), TIMEOUT)
    return response.session_id


def prompt(conn: Any, session_id: str, text: str) -> asyncio.Task:
    """Send a prompt; its task gives the PromptResponse."""
    return asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block(text)]))


def agent_log_option(tmp_path: Path) -> list[str]:
    """The agent's option that logs every raw message it sends and receives (see agent_log)."""
    return ["--log", str(tmp_path / "agent.jsonl")]


def agent_log(tmp_path: Path) -> list[dict]:
    path = tmp_path / "agent.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def until(
    condition, timeout: float = TIMEOUT, every: float = 0.02, what: str | None = None
) -> Any:
    """Wait until `condition()` (run in a thread: it may read the store) is true; give it."""
    return await waiting.until(condition, what or str(condition), timeout, every, in_thread=True)


class Person:
    """The person, on another surface: a second PlanStore on the same plan file, as another
    process (a kernel, the CLI, the server) would open it. Its verbs run in a thread."""

    def __init__(self, path: Path, session_id: str = "s") -> None:
        from jupyter_plans import PlanStore

        self.store = PlanStore(path)
        self.session = self.store.session(session_id)

    async def __call__(self, verb: str, *args: Any) -> Any:
        return await asyncio.to_thread(getattr(self.session, verb), *args)

    def snapshot(self) -> dict:
        return self.session.snapshot().model_dump(mode="json")

    def events(self, kind: str | None = None, after: int = 0) -> list[Any]:
        return [e for e in self.session.events(after=after) if kind is None or e.kind == kind]

    def close(self) -> None:
        self.store.close()


def run(coroutine) -> Any:
    return asyncio.run(coroutine)


def answers_to(tmp_path: Path, method: str) -> list[list[dict]]:
    """For each request of `method` the agent sent, every answer it received (the raw log)."""
    log = agent_log(tmp_path)
    asked = [
        e["message"]
        for e in log
        if e["direction"] == "outgoing" and e["message"].get("method") == method
    ]
    got = [
        e["message"] for e in log if e["direction"] == "incoming" and "method" not in e["message"]
    ]
    return [[m for m in got if m.get("id") == request["id"]] for request in asked]


async def plan_mode_proposal(command: list[str], cwd: Path, person: Person) -> list[str]:
    """Run COMMAND as an ACP client runs an agent: initialize, open a session, turn plan mode on
    and prompt; returns what the proposal's request looked like when it reached the client."""
    client = RecordingClient()
    async with spawn_agent_process(client, *command, cwd=cwd) as (conn, process):
        try:
            await asyncio.wait_for(conn.initialize(protocol_version=1), TIMEOUT)
            sid = await new_session(conn, cwd)
            await person("on")
            await until(lambda: client.kinds("current_mode_update"))  # the agent's mode set
            running = prompt(conn, sid, "Clean the sales data")
            asked = await client.next_asked()
            asked.cancel()
            await asyncio.wait_for(running, TIMEOUT)
            return [asked.tool_call.title, asked.tool_call.kind]
        finally:
            await hang_up(process)
