"""`jupyter-plans mcp` under the coding CLIs people run, offline: Claude Code (2.1.318, the one
claude-agent-acp 0.101 bundles, and 2.1.332, the one installed directly) and Codex (0.166, the
one codex-acp 2.6 bundles, and 0.171), each against a stand-in of its model's API.

The scenario is the person's: the CLI starts with the plan's MCP server while the session is
in default mode; while it runs, the person turns plan mode on; the model then finds
plan_submit (both CLIs defer MCP tools behind a search tool) and proposes. Claude Code asks for
the tools again on `list_changed`; Codex never does, so the server offers it every plan tool
from the start and refuses what the mode does not take. Either way the proposal must reach the
card.

The CLIs are the ones `make agents` installs (see tests/hooks/real_clis.py); without one its
test is skipped, and in CI it fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from tests.agents.acp.real import base_env, claude_env, codex_config
from tests.hooks.real_clis import CLAUDE_CLIS, CODEX_CLIS
from tests.standins.anthropic import AnthropicStandin
from tests.standins.responses import ResponsesStandin, outputs
from tests.standins.script import Turn, call, text, turn

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
MCP_COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
TIMEOUT = 180  # one run of the CLI (Node and the CLIs start slowly on a loaded machine)
PROPOSAL = {
    "explanation": "Clean the sales data before the monthly totals.",
    "findings": ["sales.csv has two date formats"],
    "objectives": ["Monthly totals from clean data"],
    "steps": [
        {"id": "parse", "description": "Parse both date formats"},
        {"id": "total", "description": "Total the sales by month", "depends_on": ["parse"]},
    ],
}


# Claude Code 2.1.318 (claude-agent-acp 0.101's) and 2.1.332 speak the 2026-07-28 protocol.
CLAUDE_CODES = [cli for cli in CLAUDE_CLIS if cli.version in ("2.1.318", "2.1.332")]


@pytest.fixture
def project(tmp_path):
    """A project folder with a notebook whose plan is in default mode."""
    folder = tmp_path / "project"
    folder.mkdir()
    notebook = folder / "analysis.ipynb"
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        store.session("default").snapshot()
    return notebook


def plan_mode_on(notebook: Path):
    """A model turn that first does what the person does meanwhile: `%plan on`."""

    def reply(body: dict) -> list:
        with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
            store.session(None).on()
        return [text("Let me look at the folder first."), call(*LOOK[_dialect(body)])]

    return Turn(reply)


LOOK = {
    "anthropic": ("Bash", {"command": "ls", "description": "List the project"}),
    "responses": ("exec_command", {"cmd": "ls"}),
}


def _dialect(body: dict) -> str:
    return "anthropic" if "messages" in body else "responses"


def snapshot(notebook: Path) -> dict:
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        return store.session(None).snapshot_data()


def assert_proposed(notebook: Path) -> None:
    """The proposal waits on the card, as the model submitted it, in plan mode."""
    found = snapshot(notebook)
    assert found["mode"] == "plan"
    assert found["pending_proposal_hash"] is not None, found
    assert found["plan"]["explanation"] == PROPOSAL["explanation"]
    assert [s["id"] for s in found["plan"]["steps"]] == ["parse", "total"]


# Claude Code: the tools asked for again on list_changed.


def _claude_calls(body: dict) -> tuple[set[str], list[str]]:
    """The tools the conversation called, and those whose results it holds (in order)."""
    called: dict[str, str] = {}
    answered: list[str] = []
    for message in body.get("messages") or []:
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                called[block.get("id")] = block.get("name")
            elif block.get("type") == "tool_result":
                answered.append(called.get(block.get("tool_use_id"), ""))
    return set(called.values()), answered


WAIT = {"command": "sleep 1", "description": "Wait a second"}
WAITS = 30  # seconds a loaded machine may take between the person's `%plan on` and the new tool


def offered(body: dict, tool: str) -> bool:
    """Whether Claude Code's request, before its model searched for tools, offers TOOL (the
    names of deferred tools come in a reminder among the messages)."""
    return tool in json.dumps(body)


def after(tool: str, before: str):
    """A `when`: TOOL's result is in the conversation and BEFORE was not called yet."""

    def holds(body: dict) -> bool:
        called, answered = _claude_calls(body)
        return tool in answered and before not in called

    return holds


@pytest.mark.parametrize("cli", CLAUDE_CODES, ids=lambda c: c.id)
def test_claude_code_reaches_plan_submit_after_the_person_turns_plan_mode_on(
    cli, project, tmp_path
):
    program = cli.command()
    submit = "mcp__plans__plan_submit"
    looked = after("Bash", "ToolSearch")
    script = [
        plan_mode_on(project),
        turn(
            call("ToolSearch", {"query": f"select:{submit}", "max_results": 5}),
            when=lambda body: looked(body) and offered(body, submit),
        ),
        # The server tells Claude Code of the new tool as soon as it sees the mode change, but on
        # a loaded machine Claude Code may ask its model again first: the model waits a second.
        *[
            turn(call("Bash", WAIT), when=lambda body: looked(body) and not offered(body, submit))
            for _ in range(WAITS)
        ],
        turn(call(submit, PROPOSAL), when=after("ToolSearch", submit)),
        turn(text("The proposal is on the card."), when=after(submit, "none")),
    ]
    config = tmp_path / "mcp.json"
    server = {
        "command": MCP_COMMAND[0],
        "args": [*MCP_COMMAND[1:], "mcp", "--notebook", str(project)],
    }
    config.write_text(json.dumps({"mcpServers": {"plans": server}}))
    with AnthropicStandin(script) as model:
        run = subprocess.run(
            [
                *program,
                "-p",
                "Plan the monthly totals.",
                "--mcp-config",
                str(config),
                "--allowedTools",
                f"Bash(ls),Bash({WAIT['command']}),{submit}",
                "--output-format",
                "json",
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=project.parent,
            env=claude_env(tmp_path / "home", model),
            stdin=subprocess.DEVNULL,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert_proposed(project)
    # Before plan mode the server offered no plan_submit; after list_changed Claude Code had it.
    firsts = [r.body for r in model.requests if r.answer == "turn"]
    assert not offered(firsts[0], submit)
    searched = next(r.body for r in model.requests if r.turn == 1)
    assert offered(searched, submit)
    result = next(out for out in _tool_results(firsts[-1]) if "Proposal submitted" in out)
    assert "End your turn now and wait" in result


def _tool_results(body: dict) -> list[str]:
    found = []
    for message in body.get("messages") or []:
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.append(json.dumps(block.get("content")))
    return found


# Codex: the tools listed once, never again.


def _searches(body: dict) -> list[str]:
    """What each tool search of the conversation found, as text."""
    items = body.get("input") if isinstance(body.get("input"), list) else []
    return [
        json.dumps(i)
        for i in items
        if isinstance(i, dict) and i.get("type") == "tool_search_output"
    ]


def _found(body: dict) -> bool:
    searches = _searches(body)
    return bool(searches) and "plan_submit" in searches[-1]


def _not_found(body: dict) -> bool:
    """The last search came back without plan_submit: the plan's MCP server was still starting
    (Codex starts it beside the first turn, and on a loaded machine it can take seconds)."""
    searches = _searches(body)
    return bool(searches) and "plan_submit" not in searches[-1]


def _search_again(body: dict) -> list:
    time.sleep(1)  # a model's turn takes time; meanwhile the server's tools arrive
    return [call("tool_search", {"query": "plan submit proposal", "limit": 4})]


@pytest.mark.parametrize("cli", CODEX_CLIS, ids=lambda c: c.id)
def test_codex_reaches_plan_submit_though_it_never_lists_the_tools_again(cli, project, tmp_path):
    program = cli.command()
    home = tmp_path / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    script = [
        plan_mode_on(project),
        turn(
            call("tool_search", {"query": "plan submit proposal", "limit": 4}),
            when=lambda body: [n for n, _ in outputs(body)] == ["exec_command"],
        ),
        *[Turn(_search_again, when=_not_found) for _ in range(10)],
        turn(call("plan_submit", PROPOSAL, namespace="mcp__plans"), when=_found),
        turn(
            text("The proposal is on the card."),
            when=lambda body: [n for n, _ in outputs(body)] == ["plan_submit"],
        ),
    ]
    with ResponsesStandin(script) as model:
        args = json.dumps([*MCP_COMMAND[1:], "mcp", "--notebook", str(project)])
        (codex_home / "config.toml").write_text(
            codex_config("never").format(url=model.url)
            + f"\n[mcp_servers.plans]\ncommand = {json.dumps(MCP_COMMAND[0])}\nargs = {args}\n"
            # The plan tools change nothing but the plan: docs/mcp.md says to let them run.
            + 'default_tools_approval_mode = "approve"\n',
            encoding="utf-8",
        )
        run = subprocess.run(
            [
                *program,
                "exec",
                "--skip-git-repo-check",
                "-C",
                str(project.parent),
                "Plan the monthly totals.",
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=project.parent,
            env={**base_env(home), "CODEX_HOME": str(codex_home), "STANDIN_API_KEY": "sk-standin"},
            stdin=subprocess.DEVNULL,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "unsupported call" not in run.stderr
    answered = [out for r in model.requests for name, out in outputs(r.body or {})]
    assert_proposed(project)
    assert any("Proposal submitted as revision 1" in out for out in answered), answered
