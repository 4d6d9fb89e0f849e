"""Jupyter AI's persona for the bridge: the notebook a chat is bound to, the command line the
persona runs (run here for real, with the scripted agent), the entry point whose module alone
imports Jupyter AI, and the persona as Jupyter AI loads and runs it (jupyter-ai-acp-client 0.3
on the ACP SDK 0.11, installed beside the bridge by the test extra)."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from jupyter_plans.agents.acp import persona
from jupyter_plans.agents.acp.launch import bridge_executable
from tests.helpers.imports import graph
from tests.helpers.procs import children, command_line, state

from .harness import ROOT, Person, plan_mode_proposal, run, until

DEMO = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent"]
ENTRY_POINT = "jupyter-plans"
ENTRY_MODULE = "jupyter_plans.agents.acp.jupyter_ai_persona"
HAS_JUPYTER_AI = importlib.util.find_spec("jupyter_ai_acp_client") is not None
NPM_PACKAGE = "@agentclientprotocol/claude-agent-acp"
# Imports ENTRY_MODULE as if the named packages were not installed.
WITHOUT = """
import importlib.abc, sys
class Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hidden())
import {module}
"""


@pytest.fixture
def jupyter_ai():
    """Jupyter AI's ACP client is part of the test extra: without it the test skips, and fails
    in CI."""
    if not HAS_JUPYTER_AI:
        reason = "jupyter-ai-acp-client is not installed (pip install -e '.[test,acp]')"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture
def root(tmp_path):
    """A server root with notebooks, a chat named after one of them, and a notebook outside."""
    server = tmp_path / "root"
    (server / "chats").mkdir(parents=True)
    for name in ("analysis.ipynb", "chats/analysis.ipynb", "report.ipynb", "data.csv"):
        (server / name).write_text("{}")
    (server / "chats" / "analysis.chat").write_text("{}")
    (tmp_path / "outside.ipynb").write_text("{}")
    return server


def test_a_chat_is_bound_to_the_first_notebook_that_applies(root):
    chat = root / "chats" / "analysis.chat"
    attached = persona.attached_notebooks(
        [
            {"type": "file", "value": "data.csv"},
            {"type": "notebook", "value": "report.ipynb", "cells": [{"id": "c1"}]},
        ]
    )
    assert attached == ["report.ipynb"]

    def choose(**kw):
        return persona.choose_notebook(root, chat, **kw)

    assert choose(configured="analysis.ipynb", bound="report.ipynb") == root / "analysis.ipynb"
    assert choose(bound="report.ipynb", attached=["analysis.ipynb"]) == root / "report.ipynb"
    assert choose(attached=attached) == root / "report.ipynb"
    assert choose() == root / "chats" / "analysis.ipynb"  # beside the chat, by its name
    assert persona.choose_notebook(root, root / "other.chat") is None
    assert persona.relative_to_root(root / "chats" / "analysis.ipynb", root) == (
        "chats/analysis.ipynb"
    )


def test_what_a_chat_names_must_be_an_existing_notebook_inside_the_root(root):
    for wrong in ("../outside.ipynb", str(root.parent / "outside.ipynb"), "data.csv", "gone.ipynb"):
        assert persona.choose_notebook(root, None, attached=[wrong]) is None
        assert persona.choose_notebook(root, None, bound=wrong) is None
    # The server's own configuration is trusted, and the bridge makes the plan file beside it.
    outside = root.parent / "outside.ipynb"
    assert persona.choose_notebook(root, None, configured=str(outside)) == outside


def test_the_persona_command_line(root):
    notebook = root / "analysis.ipynb"
    command = persona.persona_command(["claude-agent-acp"], notebook)
    assert command == [*bridge_executable(), "acp", "--notebook", str(notebook)] + [
        "--",
        "claude-agent-acp",
    ]
    other = persona.persona_command(["codex-acp", "--x"], notebook, ["/opt/bin/jupyter-plans"])
    assert other == ["/opt/bin/jupyter-plans", "acp", "--notebook", str(notebook), "--"] + [
        "codex-acp",
        "--x",
    ]
    assert persona.agent_label(["/usr/bin/claude-agent-acp"]) == "Claude"
    assert persona.agent_label(["codex-acp"]) == "Codex"
    assert persona.agent_label(["gemini", "--experimental-acp"]) == "gemini"


def test_the_persona_command_line_runs_the_agent_on_the_chats_notebook(root):
    chat = root / "chats" / "analysis.chat"
    notebook = persona.choose_notebook(root, chat)
    command = persona.persona_command(DEMO, notebook)  # the scripted agent for Claude
    person = Person(root / "chats" / "analysis.plans.sqlite", session_id="default")
    try:
        # Jupyter AI starts the process in the server's folder, not the notebook's.
        asked = run(plan_mode_proposal(command, ROOT, person))
        assert asked == ["Ready to code?", "switch_mode"]
        plan = person.snapshot()["plan"]
        assert plan["explanation"].startswith("Clean the sales export")
        assert [s["id"] for s in plan["steps"]] == ["e1", "e2", "e3", "e4"]
    finally:
        person.close()


def test_the_chat_is_told_how_to_choose_and_what_is_missing(tmp_path, monkeypatch):
    assert "Attach the notebook" in persona.HOW_TO_CHOOSE
    assert "`analysis.chat` for `analysis.ipynb`" in persona.HOW_TO_CHOOSE
    assert persona.missing_agent([sys.executable]) is None
    missing = persona.missing_agent(["no-such-acp-agent"])
    assert "`no-such-acp-agent` is not installed" in missing
    assert "c.PlanCardPersona.agent" in missing
    assert "npm install" not in missing
    monkeypatch.setenv("PATH", str(tmp_path))  # a server with no claude-agent-acp
    claude = persona.missing_agent(["claude-agent-acp"])
    assert f"Install it with `npm install -g {NPM_PACKAGE}`." in claude
    assert "@zed-industries" not in claude  # the package's former name
    assert "`chats/a.ipynb`" in persona.bound_message("chats/a.ipynb")


def test_the_entry_point_names_a_base_acp_persona_that_nothing_else_imports():
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = project.split('[project.entry-points."jupyter_ai.personas"]\n', 1)[1].split("\n[")[0]
    points = [line for line in table.splitlines() if line.strip() and not line.startswith("#")]
    assert points == [f'jupyter-plans = "{ENTRY_MODULE}:PlanCardPersona"']
    path = ROOT / (ENTRY_MODULE.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PlanCardPersona"]
    assert [ast.unparse(base) for base in cls.bases] == ["BaseAcpPersona"]
    importers = [name for name, targets in graph().items() if ENTRY_MODULE in targets]
    assert importers == []


def test_the_rest_of_the_package_imports_no_jupyter_ai():
    code = (
        "import sys\n"
        "import jupyter_plans, jupyter_plans.cli\n"
        "import jupyter_plans.agents.acp.persona, jupyter_plans.agents.acp.client\n"
        "import jupyter_plans.agents.acp.bridge, jupyter_plans.agents.acp.demo_agent\n"
        "print(sorted(m for m in sys.modules if m.startswith(('jupyter_ai', 'jupyterlab_chat'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_jupyter_ai_only_the_entry_point_module_fails_to_import():
    hidden = ("jupyter_ai_persona_manager", "jupyter_ai_acp_client", "jupyterlab_chat")
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT.format(hidden=hidden, module=ENTRY_MODULE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert "No module named 'jupyter_ai_persona_manager'" in done.stderr


def test_without_the_acp_client_jupyter_ai_is_told_the_requirement_is_unmet(jupyter_ai):
    # Jupyter AI's persona manager logs PersonaRequirementsUnmet as a warning, not an error.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            WITHOUT.format(hidden=("jupyter_ai_acp_client",), module=ENTRY_MODULE),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert "PersonaRequirementsUnmet: The jupyter-plans persona runs ACP agents: " in done.stderr
    assert "pip install jupyter-ai-acp-client" in done.stderr


def test_jupyter_ai_loads_the_persona_through_its_entry_point(jupyter_ai, monkeypatch):
    from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona
    from jupyter_ai_persona_manager.persona_manager import PersonaManager

    from jupyter_plans.agents.acp.jupyter_ai_persona import PlanCardPersona

    # Jupyter AI's own loader of the `jupyter_ai.personas` entry points, which keeps the
    # classes on PersonaManager (restored after the test).
    monkeypatch.setattr(PersonaManager, "_ep_persona_classes", None)
    PersonaManager._init_ep_persona_classes(SimpleNamespace(log=logging.getLogger(__name__)))
    (loaded,) = [i for i in PersonaManager._ep_persona_classes if i["module"] == ENTRY_POINT]
    assert loaded["traceback"] is None
    assert loaded["persona_class"] is PlanCardPersona
    assert issubclass(PlanCardPersona, BaseAcpPersona)
    assert not PlanCardPersona.__abstractmethods__
    assert PlanCardPersona.class_traits(config=True).keys() >= {"agent", "notebook", "bridge"}


def test_the_installed_sdk_is_one_that_jupyter_ai_and_the_bridge_both_take(jupyter_ai):
    from importlib.metadata import requires, version

    from packaging.requirements import Requirement

    installed = version("agent-client-protocol")
    wanted = [
        Requirement(line.split(";")[0])
        for line in [*requires("jupyter-ai-acp-client"), *requires("jupyter-plans")]
        if line.startswith("agent-client-protocol")
    ]
    assert len(wanted) == 2  # Jupyter AI's ACP client's and the `acp` extra's
    assert all(r.specifier.contains(installed) for r in wanted), (installed, wanted)


def _manager(root: Path, chat_path: Path, chat, config):
    """What a persona asks of Jupyter AI's PersonaManager (its parent), for one chat."""
    from traitlets.config import LoggingConfigurable

    class Manager(LoggingConfigurable):
        root_dir = str(root)
        event_loop = asyncio.get_running_loop()
        event_logger = None

        def get_chat_path(self, relative: bool = False) -> str:
            return str(chat_path.relative_to(root) if relative else chat_path)

        def get_chat_dir(self) -> str:
            return str(chat_path.parent)

        def get_dotjupyter_dir(self) -> None:
            return None

        def get_workspace_dir(self) -> str:
            return str(root)

        def get_mcp_settings(self) -> None:
            return None

    manager = Manager(config=config)
    manager.chat = chat
    return manager


def test_jupyter_ais_acp_client_runs_the_bridge_on_the_chats_notebook(jupyter_ai, root):
    """The persona as Jupyter AI runs it: its own ACP client starts the bridge for the chat's
    notebook, opens a session, and follows the agent's mode when the card turns plan mode on."""
    from jupyterlab_chat.ychat import YChat
    from traitlets.config import Config

    from jupyter_plans.agents.acp.jupyter_ai_persona import PlanCardPersona

    chat_path = root / "chats" / "analysis.chat"
    config = Config()
    config.PlanCardPersona.agent = DEMO

    async def main():
        chat = YChat()
        manager = _manager(root, chat_path, chat, config)
        agent = PlanCardPersona(parent=manager, chat=chat)
        assert agent.bound_notebook == root / "chats" / "analysis.ipynb"
        assert chat.get_metadata()[persona.METADATA_KEY] == "chats/analysis.ipynb"
        assert agent.id == "jupyter-ai-personas::jupyter_plans::PlanCardPersona"
        process = None
        person = None
        try:
            await asyncio.wait_for(agent.prepare(), 30)
            process = await agent.get_agent_subprocess()
            assert [m.id for m in agent.acp_modes] == [
                "default",
                "acceptEdits",
                "plan",
                "bypassPermissions",
            ]
            assert agent.acp_current_mode_id == "default"
            plan_file = root / "chats" / "analysis.plans.sqlite"
            assert plan_file.is_file()
            person = Person(plan_file, session_id="default")
            await person("on")
            await until(lambda: agent.acp_current_mode_id == "plan")
        finally:
            if person is not None:
                person.close()
            if process is not None and process.returncode is None:
                process.terminate()
                await asyncio.wait_for(process.wait(), 10)

    run(main())


def _persona(root: Path, chat, config):
    from jupyter_plans.agents.acp.jupyter_ai_persona import PlanCardPersona

    chat_path = root / "chats" / "analysis.chat"
    return PlanCardPersona(parent=_manager(root, chat_path, chat, config), chat=chat)


def _agent_config(*args: str):
    from traitlets.config import Config

    config = Config()
    config.PlanCardPersona.agent = [*DEMO, *args]
    return config


def _alive(process) -> bool:
    return process.returncode is None


def test_a_persona_made_again_for_its_chat_keeps_the_one_session_and_agent(
    jupyter_ai, root, tmp_path
):
    """The chat's page reloads, or the persona manager is made again, while the agent runs: the
    new persona takes the chat's running session (no session/new, no session/load) and the one
    agent; the persona it replaced, shut down, leaves them be; the last one stops them."""
    from jupyterlab_chat.ychat import YChat

    from .harness import agent_log

    config = _agent_config("--log", str(tmp_path / "agent.jsonl"))

    async def main():
        chat = YChat()
        first = _persona(root, chat, config)
        await asyncio.wait_for(first.prepare(), 30)
        process = await first.get_agent_subprocess()
        again = _persona(root, chat, config)
        assert type(again) is type(first)  # one class per chat: one agent process
        await asyncio.wait_for(again.prepare(), 30)
        assert await again.get_agent_subprocess() is process
        assert await again.get_session_id() == await first.get_session_id()
        sent = [e["message"].get("method") for e in agent_log(tmp_path)]
        assert sent.count("session/new") == 1 and "session/load" not in sent
        await first.shutdown()
        await asyncio.sleep(0.5)  # on purpose: the agent is not ended, in this while
        assert _alive(process)
        await again.shutdown()
        await asyncio.wait_for(process.wait(), 10)

    run(main())


def test_a_session_that_fails_to_start_is_one_line_in_the_chat_and_nothing_runs(
    jupyter_ai, root, tmp_path
):
    from jupyterlab_chat.models import Message
    from jupyterlab_chat.ychat import YChat

    why = "--dangerously-skip-permissions cannot be used with root/sudo privileges"
    config = _agent_config("--fail-new", why)

    async def main():
        chat = YChat()
        agent = _persona(root, chat, config)
        message = Message(id="m1", body="Clean the data", time=0.0, sender="alice")
        await asyncio.wait_for(agent.on_message(message), 60)
        said = [m.body for m in chat.get_messages() if m.sender == agent.id]
        failed = [body for body in said if "could not start its session" in body]
        assert len(failed) == 1 and len(failed[0].splitlines()) == 1
        assert why in failed[0] and "send a message to try again" in failed[0]
        assert not any("Traceback" in body or "<details" in body for body in said)
        assert type(agent).__dict__.get("_subprocess_future") is None  # nothing runs
        assert bridges_of(os.getpid()) == []

    run(main())


def bridges_of(pid: int) -> list[str]:
    commands = [command_line(c) for c in children(pid) if state(c) not in (None, "Z")]
    return [c for c in commands if c is not None and " acp --notebook " in c]


def test_an_answer_in_the_chat_is_the_decision_of_the_messages_sender(jupyter_ai, root):
    """The persona names the message's sender to the bridge; the chat's button that approves
    the proposal is that person's decision, made in the ACP client."""
    from jupyterlab_chat.models import Message
    from jupyterlab_chat.ychat import YChat

    config = _agent_config()
    plan_file = root / "chats" / "analysis.plans.sqlite"

    async def main():
        chat = YChat()
        agent = _persona(root, chat, config)
        process = None
        person = Person(plan_file, session_id="default")
        try:
            await person("on")
            await asyncio.wait_for(agent.prepare(), 30)
            process = await agent.get_agent_subprocess()
            client = await agent.get_client()
            session_id = await agent.get_session_id()
            message = Message(id="m1", body="Clean the data", time=0.0, sender="alice")
            working = asyncio.ensure_future(agent.process_message(message))
            pending = client._permission_manager._pending
            await until(lambda: any(key[0] == session_id for key in pending))
            (_, tool_call_id) = next(key for key in pending if key[0] == session_id)
            assert client.resolve_permission(session_id, tool_call_id, "default")
            await until(lambda: person.events("decision"))
            working.cancel()  # the agent goes on working (its edits ask in the chat)
            (decision,) = [e.data for e in person.events("decision")]
            assert decision["action"] == "approved"
            assert decision["by"] == {"name": "alice", "via": "acp-client"}
        finally:
            person.close()
            if process is not None and process.returncode is None:
                process.terminate()
                await asyncio.wait_for(process.wait(), 10)

    run(main())


def test_the_chats_mode_menu_is_the_switch_of_the_messages_sender(jupyter_ai, root):
    """Jupyter AI sends the mode picked in the chat's menu with the next message: plan mode on,
    by the message's sender, in the ACP client."""
    from jupyterlab_chat.models import Message
    from jupyterlab_chat.ychat import YChat

    plan_file = root / "chats" / "analysis.plans.sqlite"

    async def main():
        chat = YChat()
        agent = _persona(root, chat, _agent_config())
        person = Person(plan_file, session_id="default")
        try:
            message = Message(
                id="m1",
                body="Plan the cleaning",
                time=0.0,
                sender="carol",
                metadata={"settings": {"__mode__": "plan"}},
            )
            working = asyncio.ensure_future(agent.on_message(message))
            await until(lambda: person.events("mode_changed"))
            working.cancel()
            (on,) = [e.data for e in person.events("mode_changed")]
            assert on == {"mode": "plan", "by": {"name": "carol", "via": "acp-client"}}
        finally:
            person.close()
            process = type(agent).__dict__.get("_subprocess_future")
            if process is not None and process.done() and process.result().returncode is None:
                process.result().terminate()
                await asyncio.wait_for(process.result().wait(), 10)

    run(main())
