"""`jupyter-plans acp` run as the command line people and apps run: the installed script, the
command line `launch` builds, and the Zed `agent_servers` entries of docs/connect.md and
docs/acp.md, each started for real by an ACP SDK client with the scripted agent after `--`."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans.agents.acp.launch import bridge_command, bridge_executable, shown

from .harness import ROOT, Person, plan_mode_proposal, run

DEMO = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent"]


def _zed_entries() -> list[dict]:
    """Every `agent_servers` entry of docs/connect.md and docs/acp.md."""
    texts = [
        (ROOT / "docs" / page).read_text(encoding="utf-8") for page in ("connect.md", "acp.md")
    ]
    found = []
    for text in texts:
        for body in re.findall(r"```json\n(.*?)```", text, flags=re.S):
            if "agent_servers" in body:
                found.extend(json.loads(body)["agent_servers"].values())
    return found


def test_the_bridge_is_the_installed_script_when_there_is_one():
    command = bridge_executable()
    script = Path(sys.executable).with_name("jupyter-plans")
    if script.exists():
        assert command == [str(script)]
    else:
        assert command == [sys.executable, "-m", "jupyter_plans.cli"]
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "acp" in done.stdout


def test_the_command_line_and_how_it_is_shown():
    command = bridge_command(["claude-agent-acp"], notebook="analysis.ipynb", session="s1")
    assert command == [*bridge_executable(), "acp", "--notebook", "analysis.ipynb"] + [
        "--session",
        "s1",
        "--",
        "claude-agent-acp",
    ]
    assert shown(command) == (
        "jupyter-plans acp --notebook analysis.ipynb --session s1 -- claude-agent-acp"
    )
    assert shown(bridge_command(DEMO, db="my plans.sqlite", bridge=["jp"])) == (
        "jp acp --db 'my plans.sqlite' -- python -m jupyter_plans.agents.acp.demo_agent"
    )
    for wrong in ({}, {"notebook": "a.ipynb", "db": "a.sqlite"}):
        with pytest.raises(ValueError, match="exactly one of notebook and db"):
            bridge_command(["agent"], **wrong)
    with pytest.raises(ValueError, match="the agent's command"):
        bridge_command([], notebook="a.ipynb")


@pytest.mark.parametrize("via", ["script", "module"])
def test_a_usage_error_of_the_cli_is_one_line_and_exit_2(via):
    command = (
        bridge_executable() if via == "script" else [sys.executable, "-m", "jupyter_plans.cli"]
    )
    done = subprocess.run(
        [*command, "acp", "--notebook", "a.ipynb"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith("jupyter-plans acp: give the agent's command after --")
    assert len(done.stderr.splitlines()) == 1


def test_the_documented_command_runs_the_agent_behind_the_bridge(tmp_path):
    connect = (ROOT / "docs" / "connect.md").read_text(encoding="utf-8")
    section = connect.split("## An ACP agent", 1)[1].split("\n## ", 1)[0]
    (line,) = [
        line
        for body in re.findall(r"```sh\n(.*?)```", section, flags=re.S)
        for line in body.splitlines()
        if line.startswith("jupyter-plans acp ")
    ]
    words = shlex.split(line)
    assert words[:2] == ["jupyter-plans", "acp"] and words[-2:] == ["--", "claude-agent-acp"]
    (tmp_path / "analysis.ipynb").write_text("{}")
    command = [*bridge_executable(), *words[1:-1], *DEMO]  # the scripted agent for Claude
    person = Person(tmp_path / "analysis.plans.sqlite", session_id="default")
    try:
        asked = run(plan_mode_proposal(command, tmp_path, person))
        assert asked == ["Ready to code?", "switch_mode"]
        assert person.snapshot()["pending_proposal_hash"] is not None
    finally:
        person.close()


def test_the_zed_entries_are_zed_custom_agents_that_run(tmp_path):
    entries = _zed_entries()
    assert len(entries) == 2  # docs/connect.md's and docs/acp.md's
    (tmp_path / "analysis.ipynb").write_text("{}")
    for entry in entries:
        assert entry["type"] == "custom" and entry["env"] == {}
        assert entry["command"] == "jupyter-plans"
        args = entry["args"]
        assert args[:2] == ["acp", "--notebook"] and args[3:] == ["--", "claude-agent-acp"]
        assert Path(args[2]).is_absolute()  # Zed starts agents in a folder of its choosing
        person = Person(tmp_path / "analysis.plans.sqlite", session_id="default")
        try:
            person.session.off()
            command = [*bridge_executable(), "acp", "--notebook", str(tmp_path / "analysis.ipynb")]
            asked = run(plan_mode_proposal([*command, "--", *DEMO], ROOT, person))
            assert asked == ["Ready to code?", "switch_mode"]
        finally:
            person.close()
