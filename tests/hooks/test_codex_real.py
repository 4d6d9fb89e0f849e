"""The real Codex CLIs with `jupyter-plans hook install codex`, offline: `codex exec` in a
project whose notebook is in plan mode, against a stand-in of the Responses API whose model
first writes a file with `apply_patch`, then runs `touch` with `exec_command`. Codex 0.166 (what
codex-acp 2.6 bundles) and 0.171 (what people install directly), each pinned.

Without the trust step Codex skips the hooks without a word: both files are written in plan
mode. That is Codex's rule, written down here as it is, not what plan mode promises: the doctor
says so beforehand, and the card says plainly that the guard installed for this notebook was
not heard from. Codex 0.171 also loads a project's `.codex/` only in a trusted project: with the
hooks' hashes alone it still writes (the hole `--trust` used to leave). After `--trust`, which
records both, Codex itself lists the hooks as trusted, the guard denies both tools, neither
file exists, and the card shows the guard's heartbeat with Codex's version.

The CLIs are the ones `make agents` installs (JUPYTER_PLANS_AGENTS, by default
~/.cache/jupyter-plans/agents); without one its tests are skipped, and in CI they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.agents.hosts.codex_config import record_trust
from jupyter_plans.agents.hosts.codex_trust import guard_warning, hooks_of
from jupyter_plans.card.guards import guard_data
from tests.agents.acp.real import base_env, codex_config
from tests.standins.responses import ResponsesStandin, after_tool, call, outputs, text, turn

from .real_clis import CODEX_CLIS, Cli, notebook_in_plan_mode

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
TIMEOUT = 120  # one `codex exec` (Node and Codex start slowly on a loaded machine)
CONFIG = codex_config("never")


@pytest.fixture(params=CODEX_CLIS, ids=[cli.id for cli in CODEX_CLIS])
def codex(request) -> tuple[Cli, list[str]]:
    return request.param, request.param.command()


@pytest.fixture
def world(tmp_path):
    """A project folder with a notebook in plan mode (its plan file names it), and Codex's own
    home for this test."""
    notebook = notebook_in_plan_mode(tmp_path / "project")
    project = notebook.parent
    home = tmp_path / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    env = {
        **base_env(home),
        "CODEX_HOME": str(codex_home),
        "STANDIN_API_KEY": "sk-standin",
        "NO_BROWSER": "1",
    }
    return project, notebook, codex_home, env


def install(project: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*COMMAND, "hook", "install", "codex", "--notebook", "analysis.ipynb", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={**os.environ, "CODEX_HOME": env["CODEX_HOME"]},
    )


def codex_exec(command: list[str], project: Path, env: dict, patched: str, touched: str):
    """One `codex exec` whose model writes `patched` and touches `touched`; the stand-in's
    requests, and the seconds it took."""
    patch = f"*** Begin Patch\n*** Add File: {patched}\n+cleaned\n*** End Patch\n"
    script = [
        [text("Writing the cleaned file."), call("apply_patch", patch)],
        turn(
            call("exec_command", {"cmd": f"touch {touched}", "workdir": str(project)}),
            when=after_tool("apply_patch"),
        ),
        turn(text("Done."), when=after_tool("exec_command")),
    ]
    with ResponsesStandin(script) as model:
        config = Path(env["CODEX_HOME"]) / "config.toml"
        kept = config.read_text(encoding="utf-8") if config.exists() else ""
        if "[model_providers.standin]" not in kept:
            config.write_text(CONFIG.format(url=model.url) + kept, encoding="utf-8")
        else:  # a later run: the stand-in's new port
            start = kept.index('base_url = "') + len('base_url = "')
            end = kept.index('"', start)
            config.write_text(kept[:start] + f"{model.url}/v1" + kept[end:], encoding="utf-8")
        started = time.monotonic()
        proc = subprocess.run(
            [*command, "exec", "--skip-git-repo-check", "-C", str(project), "clean the data"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-2000:]
    tools = [found for request in model.requests for found in outputs(request.body or {})]
    return dict(tools), took


def codex_lists(command: list[str], project: Path, env: dict) -> list[dict]:
    """The hooks Codex itself lists for the project (its app server's `hooks/list`)."""
    lines = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "0"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}},
    ]
    with subprocess.Popen(
        [*command, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=project,
        env=env,
    ) as server:
        server.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        server.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        try:
            while time.monotonic() < deadline:
                message = json.loads(server.stdout.readline() or "null")
                assert message is not None, "Codex's app server closed without an answer"
                if message.get("id") == 2:
                    return message["result"]["data"][0]["hooks"]
        finally:
            server.stdin.close()
            server.wait(timeout=30)
    raise AssertionError("Codex's app server did not answer hooks/list")


def doctor(project: Path, env: dict) -> tuple[int, str]:
    proc = subprocess.run(
        [*COMMAND, "hook", "doctor", "codex", "--notebook", "analysis.ipynb"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={**os.environ, "CODEX_HOME": env["CODEX_HOME"]},
    )
    return proc.returncode, proc.stdout.strip()


def card_guards(notebook: Path) -> dict:
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        session = store.session("default")
        return guard_data(session, session.snapshot_data(), notebook)


def assert_denied(tools: dict) -> None:
    for tool, name in (("apply_patch", "apply_patch"), ("exec_command", "Bash")):
        assert "Command blocked by PreToolUse hook: jupyter-plans: " in tools[tool], tools
        assert f"{name} " in tools[tool]


def test_codex_runs_the_guard_only_once_the_hooks_and_the_project_are_trusted(world, codex):
    cli, command = codex
    project, notebook, codex_home, env = world
    plan_file = notebook.with_name("analysis.plans.sqlite")
    said = install(project, env, "--write")
    assert said.returncode == 0 and "only once you trust them" in said.stdout

    # Untrusted: Codex skips every hook, without a word, and writes in plan mode. The doctor
    # says so first, and the card says it plainly.
    status, line = doctor(project, env)
    assert status == 1 and line.startswith("codex: no: ") and "--trust" in line
    tools, untrusted_took = codex_exec(command, project, env, "x.txt", "y.txt")
    assert (project / "x.txt").exists() and (project / "y.txt").exists()
    assert "Success" in tools["apply_patch"] and "jupyter-plans: " not in json.dumps(tools)
    warning = guard_warning(notebook, plan_file, "default", codex_home)
    assert warning is not None and warning.startswith("Plan mode is not enforced in Codex")
    guards = card_guards(notebook)
    assert [s["agent"] for s in guards["silent"]] == ["Codex"] and guards["seen"] == []

    hooks_file = project / ".codex" / "hooks.json"
    ours = {h.key: h.digest for h in hooks_of(hooks_file, json.loads(hooks_file.read_text()))}
    if tuple(map(int, cli.version.split("."))) >= (0, 167):
        # The hooks' hashes alone, as `--trust` recorded before: Codex 0.171 still skips them.
        record_trust(codex_home / "config.toml", ours)
        status, line = doctor(project, env)
        assert status == 1 and "0.167 and later load" in line and "not trusted" in line
        tools, _ = codex_exec(command, project, env, "x1.txt", "y1.txt")
        assert (project / "x1.txt").exists() and (project / "y1.txt").exists()
        assert "0.167 and later" in guard_warning(notebook, plan_file, "default", codex_home)

    # Trusted: Codex lists our five hooks as trusted, with the hashes we recorded.
    said = install(project, env, "--trust")
    assert said.returncode == 0 and "Codex trusts these hooks now" in said.stdout, said.stderr
    assert "codex: yes: Codex runs this plan's hooks" in said.stdout
    assert doctor(project, env)[0] == 0
    listed = codex_lists(command, project, env)
    assert {h["key"]: h["currentHash"] for h in listed} == ours
    assert {h["trustStatus"] for h in listed} == {"trusted"}
    assert guard_warning(notebook, plan_file, "default", codex_home) is None

    # ... and runs the guard: both tools are denied in plan mode, and nothing is written.
    tools, trusted_took = codex_exec(command, project, env, "x2.txt", "y2.txt")
    assert not (project / "x2.txt").exists() and not (project / "y2.txt").exists()
    assert_denied(tools)
    for tool in ("apply_patch", "exec_command"):
        assert "plan mode" in tools[tool]
    guards = card_guards(notebook)
    assert guards["silent"] == []
    assert [(s["agent"], s["agent_version"]) for s in guards["seen"]] == [("Codex", cli.version)]
    print(f"codex exec: {untrusted_took:.1f} s without the hooks, {trusted_took:.1f} s with them")


def test_a_renamed_notebook_keeps_its_guard_and_a_deleted_one_fails_closed(world, codex):
    cli, command = codex
    project, notebook, codex_home, env = world
    assert install(project, env, "--trust").returncode == 0
    moved = subprocess.run(
        [*COMMAND, "move", "analysis.ipynb", "renamed.ipynb"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert moved.returncode == 0, moved.stderr
    # The hooks still name analysis.ipynb: they follow the plan file that came from it.
    tools, _ = codex_exec(command, project, env, "x.txt", "y.txt")
    assert not (project / "x.txt").exists() and not (project / "y.txt").exists()
    assert_denied(tools)
    with PlanStore(project / "renamed.plans.sqlite") as store:
        assert store.session("default").snapshot().mode == "plan"
        store.session("default").off()
    # Deleted, with its plan: whatever the mode was, nothing runs unchecked.
    (project / "renamed.ipynb").unlink()
    (project / "renamed.plans.sqlite").unlink()
    tools, _ = codex_exec(command, project, env, "x3.txt", "y3.txt")
    assert not (project / "x3.txt").exists() and not (project / "y3.txt").exists()
    assert_denied(tools)
    for tool in ("apply_patch", "exec_command"):
        assert "is gone" in tools[tool] and "jupyter-plans hook install codex" in tools[tool]
        assert "unchecked" not in tools[tool]
