"""Jupyter AI's persona for the bridge, as far as it goes without Jupyter AI (which cannot be
installed beside agent-client-protocol 0.12, see docs/acp.md): the notebook a chat is bound to,
the command line the persona runs (run here for real, with the scripted agent), and the entry
point whose module alone imports Jupyter AI."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys

import pytest

from jupyter_plans.agents.acp import persona
from jupyter_plans.agents.acp.launch import bridge_executable
from tests.test_architecture import graph

from .harness import ROOT, Person, plan_mode_proposal, run

DEMO = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent"]
ENTRY_MODULE = "jupyter_plans.agents.acp.jupyter_ai_persona"
HAS_JUPYTER_AI = importlib.util.find_spec("jupyter_ai_acp_client") is not None


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


def test_the_chat_is_told_how_to_choose_and_what_is_missing():
    assert "Attach the notebook" in persona.HOW_TO_CHOOSE
    assert "`analysis.chat` for `analysis.ipynb`" in persona.HOW_TO_CHOOSE
    assert persona.missing_agent([sys.executable]) is None
    missing = persona.missing_agent(["no-such-acp-agent"])
    assert "`no-such-acp-agent` is not installed" in missing
    assert "c.PlanCardPersona.agent" in missing
    if persona.missing_agent(["claude-agent-acp"]) is not None:
        assert "npm install -g @zed-industries/claude-agent-acp" in persona.missing_agent(
            ["claude-agent-acp"]
        )
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


@pytest.mark.skipif(HAS_JUPYTER_AI, reason="Jupyter AI's ACP client is installed here")
def test_without_jupyter_ai_only_the_entry_point_module_fails_to_import():
    done = subprocess.run(
        [sys.executable, "-c", f"import {ENTRY_MODULE}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert "No module named 'jupyter_ai_persona_manager'" in done.stderr


@pytest.mark.skipif(
    not HAS_JUPYTER_AI,
    reason="jupyter-ai-acp-client 0.3 requires agent-client-protocol<0.12; this environment "
    "has the bridge's 0.12",
)
def test_with_jupyter_ai_the_persona_is_a_base_acp_persona():  # pragma: no cover - see reason
    from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona

    from jupyter_plans.agents.acp.jupyter_ai_persona import PlanCardPersona

    assert issubclass(PlanCardPersona, BaseAcpPersona)
    assert not PlanCardPersona.__abstractmethods__
    assert PlanCardPersona.class_traits(config=True).keys() >= {"agent", "notebook", "bridge"}
