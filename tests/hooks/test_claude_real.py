"""The real Claude Code CLIs with `jupyter-plans hook install claude-code`, offline (`claude -p`
against a stand-in of the Messages API whose model writes a file with Write, then runs `touch`
with Bash): Claude Code 2.1.83 and 2.1.318 (what claude-agent-acp 0.23 and 0.101 bundle) and
2.1.332 (what people install directly; its auto mode's classifier runs on the provider's side).

In plan mode the guard denies both tools, even where Claude Code itself would allow them
(acceptEdits, an allow rule for Bash), and leaves its heartbeat, which the card shows with the
version Claude Code tells its hooks (2.1.3xx). With `disableAllHooks` in the project's local
settings Claude Code runs no hook: the doctor says so before it happens, Claude Code writes,
and the card says plainly that the guard installed for this notebook was not heard from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.card.guards import guard_data
from jupyter_plans.hooks.tool_use import EVENTS
from jupyter_plans.store.guards import HEARTBEAT_MS, now_ms
from tests.agents.acp.real import claude_env
from tests.standins.anthropic import AnthropicStandin, after_tool, answered_tools, tool_results
from tests.standins.script import call, text, turn

from .real_clis import CLAUDE_CLIS, Cli, notebook_in_plan_mode

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
TIMEOUT = 180  # one `claude -p` (Node and Claude Code start slowly on a loaded machine)


@pytest.fixture(params=CLAUDE_CLIS, ids=[cli.id for cli in CLAUDE_CLIS])
def claude(request) -> tuple[Cli, list[str]]:
    return request.param, request.param.command()


@pytest.fixture
def world(tmp_path):
    """A project folder with a notebook in plan mode (its plan file names it), and a home."""
    notebook = notebook_in_plan_mode(tmp_path / "project")
    return notebook.parent, notebook, tmp_path / "home"


def ours(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """`jupyter-plans ...` as the person runs it in the project, with the test's home."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={**env, "HOME": str(home)},
    )


def claude_p(command: list[str], project: Path, home: Path) -> dict[str, str]:
    """One `claude -p` whose model writes x.txt and touches y.txt; each tool's result."""
    script = [
        [
            text("Writing the cleaned file."),
            call("Write", {"file_path": str(project / "x.txt"), "content": "cleaned\n"}),
        ],
        turn(call("Bash", {"command": f"touch {project / 'y.txt'}"}), when=after_tool("Write")),
        turn(text("Done."), when=after_tool("Bash")),
    ]
    with AnthropicStandin(script) as model:
        proc = subprocess.run(
            [
                *command,
                "-p",
                "clean the data",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash",
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=project,
            env=claude_env(home, model),
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    results = {}
    for request in model.requests:
        body = request.body if isinstance(request.body, dict) else {}
        for name, block in zip(answered_tools(body), tool_results(body), strict=False):
            content = block.get("content")
            results[name] = content if isinstance(content, str) else json.dumps(content)
    return results


def card_guards(notebook: Path) -> dict:
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        session = store.session("default")
        return guard_data(session, session.snapshot_data(), notebook)


def test_claude_code_runs_the_guard_in_plan_mode_and_the_card_shows_it(world, claude):
    cli, command = claude
    project, notebook, home = world
    said = ours(
        project, home, "hook", "install", "claude-code", "--notebook", "analysis.ipynb", "--write"
    )
    assert said.returncode == 0, said.stderr
    assert "claude-code: yes: Claude Code runs this plan's hooks when started in" in said.stdout
    assert ours(project, home, "hook", "doctor", "--notebook", "analysis.ipynb").returncode == 0
    guards = card_guards(notebook)
    assert [s["agent"] for s in guards["silent"]] == ["Claude Code"]  # installed, not heard yet

    started = now_ms()
    results = claude_p(command, project, home)
    took = now_ms() - started
    assert not (project / "x.txt").exists() and not (project / "y.txt").exists()
    for tool in ("Write", "Bash"):
        assert "jupyter-plans: " in results[tool] and "plan mode" in results[tool], results
    guards = card_guards(notebook)
    assert guards["silent"] == []
    (seen,) = guards["seen"]
    # The session's start wrote it; the tools' hooks within 10 s had no need to (on a loaded
    # machine the run may take longer, and a later hook rightly writes it again).
    assert seen["agent"] == "Claude Code"
    assert seen["point"] == "SessionStart" if took < HEARTBEAT_MS else seen["point"] in EVENTS
    assert seen["agent_version"] == (cli.version if cli.says_version else None)


def test_the_doctor_sees_what_turns_claude_codes_hooks_off(world, claude):
    cli, command = claude
    project, notebook, home = world
    ours(project, home, "hook", "install", "claude-code", "--notebook", "analysis.ipynb", "--write")
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"disableAllHooks": True}))
    doctor = ours(project, home, "hook", "doctor", "claude-code", "--notebook", "analysis.ipynb")
    assert doctor.returncode == 1
    (line,) = doctor.stdout.splitlines()
    assert line.startswith("claude-code: no: ") and str(local) in line
    assert "disableAllHooks" in line and "to fix it" in line

    results = claude_p(command, project, home)
    assert (project / "x.txt").exists() and (project / "y.txt").exists()  # as the doctor said
    # No word of the guard (its reasons open "jupyter-plans: "; the paths may hold the name).
    assert "jupyter-plans: " not in json.dumps(results), results
    guards = card_guards(notebook)
    assert [s["agent"] for s in guards["silent"]] == ["Claude Code"] and guards["seen"] == []

    # The project's own settings say false and the local file nothing: the hooks run again.
    local.unlink()
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "disableAllHooks": False}))
    user = home / ".claude" / "settings.json"
    user.write_text(json.dumps({"disableAllHooks": True}))
    doctor = ours(project, home, "hook", "doctor", "claude-code", "--notebook", "analysis.ipynb")
    assert doctor.returncode == 0, doctor.stdout
    (project / "x.txt").unlink()
    (project / "y.txt").unlink()
    results = claude_p(command, project, home)
    assert not (project / "x.txt").exists() and "jupyter-plans: " in results["Write"]
