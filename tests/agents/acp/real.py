"""The real ACP agents (Claude Code's claude-agent-acp 0.101 and 0.23, codex-acp 2.6) run
offline against a stand-in of their model's API, directly or behind the bridge, with the SDK
client of harness.py. `scripts/install-agents.sh` installs them; the tests find them in
JUPYTER_PLANS_AGENTS (default ~/.cache/jupyter-plans/agents).

Each run gets its own HOME (and CODEX_HOME), so nothing of this machine's home reaches an agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from acp import spawn_agent_process
from acp.schema import ClientCapabilities, Implementation

from tests.helpers.procs import descendants
from tests.lanes import needs
from tests.standins.anthropic import AnthropicStandin
from tests.standins.responses import ResponsesStandin

from .dialects import CLAUDE, CLAUDE_DEFERRED, CODEX, Dialect
from .harness import ROOT, Asked, RecordingClient

AGENTS_DIR = Path(
    os.environ.get("JUPYTER_PLANS_AGENTS") or Path.home() / ".cache" / "jupyter-plans" / "agents"
)
TIMEOUT = 60.0  # one request to a real agent (Node starts slowly on a loaded machine)
SESSION = "s"


@dataclass(frozen=True)
class Cli:
    """A newer CLI the adapter runs in place of the one it ships (through VARIABLE)."""

    folder: str  # under AGENTS_DIR
    package: str
    version: str
    bin: str
    variable: str  # CLAUDE_CODE_EXECUTABLE, CODEX_PATH


@dataclass(frozen=True)
class RealAgent:
    name: str  # the test's id
    package: str
    version: str
    bin: str
    standin: type  # the model's stand-in
    env: Callable[[Path, Any], dict[str, str]]  # (home, model) -> the agent's environment
    dialect: Dialect = CLAUDE  # how its model's script speaks (dialects.py)
    profile: str = "default"  # the bridge's profile it is expected to get
    # The option of its request to leave plan mode that stops edits from asking (allow_always).
    stops_asking: str | None = None
    cli: Cli | None = None
    folder: str | None = None  # under AGENTS_DIR (default: its name)
    meta: dict = field(default_factory=dict)  # what session/new carries in _meta

    @property
    def prefix(self) -> Path:
        return AGENTS_DIR / (self.folder or self.name)

    @property
    def command(self) -> list[str]:
        return [str(self.prefix / "node_modules" / ".bin" / self.bin)]

    def cli_env(self) -> dict[str, str]:
        if self.cli is None:
            return {}
        path = AGENTS_DIR / self.cli.folder / "node_modules" / ".bin" / self.cli.bin
        return {self.cli.variable: str(path)}

    def installed(self) -> str | None:
        """Why the agent cannot run here, or None when it can."""
        wanted = [(self.prefix, self.package, self.version)]
        if self.cli is not None:
            wanted.append((AGENTS_DIR / self.cli.folder, self.cli.package, self.cli.version))
        for prefix, package, version in wanted:
            manifest = prefix / "node_modules" / package / "package.json"
            try:
                found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            except (OSError, ValueError):
                return f"{package} is not installed in {prefix} (run make agents)"
            if found != version:
                return f"{package} in {prefix} is {found}, not {version} (make agents)"
        return None


def base_env(home: Path) -> dict[str, str]:
    """An agent's environment with HOME (and its XDG folders, TMPDIR) at `home`, made."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }


def claude_env(home: Path, model: AnthropicStandin) -> dict[str, str]:
    return {
        **base_env(home),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-standin",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
        "CLAUDE_CODE_ENABLE_TASKS": "0",
    }


def codex_config(approval: str) -> str:
    """Codex's config.toml for the stand-in model (`{url}` to fill), offline: approvals as
    APPROVAL, workspace-write, no analytics."""
    return f"""\
model = "gpt-5.5"
model_provider = "standin"
approval_policy = "{approval}"
sandbox_mode = "workspace-write"

[model_providers.standin]
name = "standin"
base_url = "{{url}}/v1"
wire_api = "responses"
env_key = "STANDIN_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
"""


CODEX_CONFIG = (
    codex_config("on-request")
    + """
[tools.update_plan]
enabled = true

[notice]
hide_full_access_warning = true
"""
)


def codex_env(home: Path, model: ResponsesStandin) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(CODEX_CONFIG.format(url=model.url), encoding="utf-8")
    return {
        **base_env(home),
        "CODEX_HOME": str(codex_home),
        "STANDIN_API_KEY": "sk-standin",
        "MODEL_PROVIDER": "standin",
        "NO_BROWSER": "1",
    }


CLAUDE_CLI = Cli(
    "claude-code-2.1.332",
    "@anthropic-ai/claude-code",
    "2.1.332",
    "claude",
    "CLAUDE_CODE_EXECUTABLE",
)
CODEX_CLI = Cli("codex-0.171", "@openai/codex", "0.171.0", "codex", "CODEX_PATH")
CLAUDE_0_101 = RealAgent(
    "claude-0.101",
    "@agentclientprotocol/claude-agent-acp",
    "0.101.0",
    "claude-agent-acp",
    AnthropicStandin,
    claude_env,
    CLAUDE_DEFERRED,
    "claude-agent-acp",
    stops_asking="exit-plan-auto",
)
CODEX_2_6 = RealAgent(
    "codex-2.6",
    "@agentclientprotocol/codex-acp",
    "2.6.0",
    "codex-acp",
    ResponsesStandin,
    codex_env,
    CODEX,
    "codex-acp",
)
AGENTS = [
    CLAUDE_0_101,
    RealAgent(
        "claude-0.23",
        "@zed-industries/claude-agent-acp",
        "0.23.1",
        "claude-agent-acp",
        AnthropicStandin,
        claude_env,
        CLAUDE,
        "zed-claude-agent-acp",
        stops_asking="acceptEdits",
    ),
    CODEX_2_6,
]
# The same adapters with the newest CLIs people install (TOOLCHAIN.md).
NEWEST_CLIS = [
    replace(CLAUDE_0_101, name="claude-0.101-cli-2.1.332", folder="claude-0.101", cli=CLAUDE_CLI),
    replace(CODEX_2_6, name="codex-2.6-cli-0.171", folder="codex-2.6", cli=CODEX_CLI),
]
BY_NAME = {agent.name: agent for agent in [*AGENTS, *NEWEST_CLIS]}


def require(agent: RealAgent) -> None:
    """Skip with the reason when the agent is not installed; in CI, fail."""
    needs("real_agents", agent.package)
    reason = agent.installed()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


class RealClient(RecordingClient):
    """harness.RecordingClient, also keeping the raw messages both ways in their order."""

    def __init__(self) -> None:
        super().__init__()
        self.wire: list[dict] = []  # {"t", "dir": "to_agent"|"from_agent", "message"}
        self._t0 = time.monotonic()

    def observe(self, event: Any) -> None:
        super().observe(event)
        direction = "from_agent" if event.direction.value == "incoming" else "to_agent"
        self.wire.append(
            {"t": round(time.monotonic() - self._t0, 3), "dir": direction, "message": event.message}
        )

    def requests(self, method: str) -> list[dict]:
        return [w["message"] for w in self.wire if w["message"].get("method") == method]

    def mode_updates(self) -> list[str]:
        return [u.current_mode_id for u in self.kinds("current_mode_update")]


@dataclass
class Run:
    """A running agent: its client, connection, process and model."""

    agent: RealAgent
    client: RealClient
    conn: Any
    process: Any
    model: Any
    home: Path
    cwd: Path
    initialized: Any = None

    async def new_session(self, meta: dict | None = None, **kwargs: Any) -> Any:
        extra = {**self.agent.meta, **(meta or {})}
        return await asyncio.wait_for(
            self.conn.new_session(cwd=str(self.cwd), mcp_servers=[], **extra, **kwargs), TIMEOUT
        )

    def save(self, path: Path) -> None:
        """The raw JSON-RPC both ways and the model's requests, as JSON lines."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            for line in self.client.wire:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        with open(path.with_suffix(".model.jsonl"), "w", encoding="utf-8") as out:
            for request in self.model.requests:
                record = {"path": request.path, "answer": request.answer, "turn": request.turn}
                out.write(json.dumps({**record, "body": request.body}, ensure_ascii=False) + "\n")


@contextlib.asynccontextmanager
async def started(
    agent: RealAgent,
    tmp_path: Path,
    script: Any = (),
    *,
    bridge_db: Path | None = None,
    plan_capability: bool = False,
    env: dict[str, str] | None = None,
):
    """Run AGENT with its model's stand-in answering SCRIPT, initialized; behind the bridge
    (`--db bridge_db --session s`) when bridge_db is given. Yields a Run."""
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir(parents=True, exist_ok=True)
    with agent.standin(script) as model:
        agent_env = {**agent.env(home, model), **agent.cli_env(), **(env or {})}
        command = agent.command
        if bridge_db is not None:
            agent_env["PYTHONPATH"] = str(ROOT)
            command = [
                sys.executable,
                "-m",
                "jupyter_plans.agents.acp",
                "--db",
                str(bridge_db),
                "--session",
                SESSION,
                "--",
                *command,
            ]
        client = RealClient()
        stderr = open(tmp_path / "agent.stderr", "ab")  # noqa: SIM115 - closed below
        try:
            async with _closing(
                spawn_agent_process(
                    client,
                    *command,
                    env=agent_env,
                    cwd=cwd,
                    transport_kwargs={"stderr": stderr, "limit": 16 * 1024 * 1024},
                    observers=[client.observe],
                )
            ) as (conn, process):
                try:
                    capabilities = ClientCapabilities(plan={} if plan_capability else None)
                    run = Run(agent, client, conn, process, model, home, cwd)
                    run.initialized = await asyncio.wait_for(
                        conn.initialize(
                            protocol_version=1,
                            client_capabilities=capabilities,
                            client_info=Implementation(name="jupyter-plans-tests", version="0"),
                        ),
                        TIMEOUT,
                    )
                    yield run
                finally:
                    enddescendants(process.pid)
        finally:
            stderr.close()


@contextlib.asynccontextmanager
async def _closing(spawned):
    """The SDK's spawn_agent_process, whose close may meet a last update the agent sends as it
    is ended ("message queue already closed"), or a process that ended just as the SDK, done
    waiting 2 s for it, terminates it (ProcessLookupError): those errors at close are no test's
    failure."""
    entered = await spawned.__aenter__()
    try:
        yield entered
    except BaseException as exc:
        if not await spawned.__aexit__(type(exc), exc, exc.__traceback__):
            raise
    else:
        try:
            await spawned.__aexit__(None, None, None)
        except ProcessLookupError:
            pass
        except RuntimeError as exc:
            if "queue already closed" not in str(exc):
                raise


def enddescendants(pid: int) -> None:
    """End every process PID started (Claude Code's CLI, Codex's app server), deepest first;
    the SDK ends PID itself."""
    for child in reversed(descendants(pid)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)


async def answer_all(client: RealClient, choose: Callable[[Asked], str | None]) -> None:
    """Answer every permission request as CHOOSE says (an option id, or None to cancel)."""
    while True:
        asked = await client.asked.get()
        option = choose(asked)
        if option is None:
            asked.cancel()
        else:
            asked.choose(option)


def option_of(asked: Asked, *kinds: str) -> str | None:
    """The id of the request's first option of one of KINDS (in the order given)."""
    for kind in kinds:
        for option in asked.options:
            if option.kind == kind:
                return option.option_id
    return None
