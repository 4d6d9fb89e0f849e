"""The real Codex CLI (0.166) with `jupyter-plans hook install codex`, offline: `codex exec`
in a project whose notebook is in plan mode, against a stand-in of the Responses API whose
model first writes a file with `apply_patch`, then runs `touch` with `exec_command`.

Without the trust step Codex skips the hooks without a word: both files are written in plan
mode. That is Codex's rule, written down here as it is, not what plan mode promises; the card
says so. After `--trust`, Codex itself lists the hooks as trusted, the guard denies both
tools, and neither file exists.

The CLI is the one `make agents` installs (JUPYTER_PLANS_AGENTS, by default
~/.cache/jupyter-plans/agents/codex-2.6); without it the test is skipped, and in CI it fails.
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
from jupyter_plans.agents.codex_trust import guard_warning, hooks_of
from tests.agents.acp.real import base_env, codex_config
from tests.standins.responses import ResponsesStandin, after_tool, call, outputs, text, turn

AGENTS_DIR = Path(
    os.environ.get("JUPYTER_PLANS_AGENTS") or Path.home() / ".cache" / "jupyter-plans" / "agents"
)
PREFIX = AGENTS_DIR / "codex-2.6" / "node_modules"
CODEX = PREFIX / ".bin" / "codex"
VERSION = "0.166.0"
_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
TIMEOUT = 120  # one `codex exec` (Node and Codex start slowly on a loaded machine)
CONFIG = codex_config("never")


def _require_codex() -> None:
    """Skip with the reason when the CLI is not here; in CI, fail."""
    try:
        manifest = json.loads((PREFIX / "@openai" / "codex" / "package.json").read_text())
        found = manifest.get("version")
    except (OSError, ValueError):
        found = None
    if found == VERSION and CODEX.exists():
        return
    reason = f"the Codex CLI {VERSION} is not installed in {PREFIX} (run make agents)"
    if found is not None:
        reason = f"the Codex CLI in {PREFIX} is {found}, not {VERSION} (run make agents)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def world(tmp_path):
    """A project folder with a notebook in plan mode, and Codex's own home for this test."""
    project = tmp_path / "project"
    project.mkdir()
    notebook = project / "analysis.ipynb"
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        store.session("default").on()
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


def codex_exec(project: Path, env: dict, patched: str, touched: str):
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
            [str(CODEX), "exec", "--skip-git-repo-check", "-C", str(project), "clean the data"],
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


def codex_lists(project: Path, env: dict) -> list[dict]:
    """The hooks Codex itself lists for the project (its app server's `hooks/list`)."""
    lines = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "0"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}},
    ]
    with subprocess.Popen(
        [str(CODEX), "app-server"],
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


def test_codex_runs_the_guard_only_once_the_hooks_are_trusted(world):
    _require_codex()
    project, notebook, codex_home, env = world
    plan_file = notebook.with_name("analysis.plans.sqlite")
    said = install(project, env, "--write")
    assert said.returncode == 0 and "only once you trust them" in said.stdout

    # Untrusted: Codex skips every hook, without a word, and writes in plan mode.
    tools, untrusted_took = codex_exec(project, env, "x.txt", "y.txt")
    assert (project / "x.txt").exists() and (project / "y.txt").exists()
    assert "Success" in tools["apply_patch"] and "jupyter-plans" not in json.dumps(tools)
    warning = guard_warning(notebook, plan_file, "default", codex_home)
    assert warning is not None and warning.startswith("Plan mode is not enforced in Codex")

    # Trusted: Codex lists our five hooks as trusted, with the hashes we recorded.
    said = install(project, env, "--trust")
    assert said.returncode == 0 and "Codex trusts these hooks now" in said.stdout, said.stderr
    hooks_file = project / ".codex" / "hooks.json"
    ours = {h.key: h.digest for h in hooks_of(hooks_file, json.loads(hooks_file.read_text()))}
    listed = codex_lists(project, env)
    assert {h["key"]: h["currentHash"] for h in listed} == ours
    assert {h["trustStatus"] for h in listed} == {"trusted"}
    assert guard_warning(notebook, plan_file, "default", codex_home) is None

    # ... and runs the guard: both tools are denied in plan mode, and nothing is written.
    tools, trusted_took = codex_exec(project, env, "x2.txt", "y2.txt")
    assert not (project / "x2.txt").exists() and not (project / "y2.txt").exists()
    for tool, name in (("apply_patch", "apply_patch"), ("exec_command", "Bash")):
        assert "Command blocked by PreToolUse hook: jupyter-plans: " in tools[tool], tools
        assert f"{name} is a" in tools[tool] and "plan mode" in tools[tool]
    print(f"codex exec: {untrusted_took:.1f} s without the hooks, {trusted_took:.1f} s with them")
