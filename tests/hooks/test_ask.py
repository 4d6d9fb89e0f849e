"""`jupyter-plans hook PreToolUse --ask`, the guard the ACP bridge gives Claude Code's sessions:
while plan mode holds it answers "ask" (the request then comes to the bridge, which refuses it
and records it), whatever Claude Code's own approvals would say; and Claude Code writing its own
plan file in its plan mode is let through, with or without --ask."""

from __future__ import annotations

import json
import os

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.agents.acp.profiles import profiles
from jupyter_plans.hooks.points import DEFAULT_GUARD

from .runs import hook

# The tools the guard's hook holds in Claude Code's sessions (the bridge's profile of it).
MATCHER = profiles()["claude-agent-acp"].session_settings["matcher"]


def write(path: str, mode: str = "default") -> bytes:
    return json.dumps(
        {
            "session_id": "c1",
            "hook_event_name": "PreToolUse",
            "permission_mode": mode,
            "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x"},
        }
    ).encode()


@pytest.fixture
def db(tmp_path) -> str:
    path = tmp_path / "a.plans.sqlite"
    with PlanStore(path) as store:
        store.session("s").on()
    return str(path)


def decision(answer: dict | None) -> str | None:
    return None if answer is None else answer["hookSpecificOutput"]["permissionDecision"]


def test_in_plan_mode_the_hook_asks_instead_of_denying(db, tmp_path):
    where = ("--db", db, "--session", "s")
    status, answer, _ = hook("PreToolUse", write(str(tmp_path / "x.py")), *where, "--ask")
    assert status == 0 and decision(answer) == "ask"
    assert "plan mode" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    status, answer, _ = hook("PreToolUse", write(str(tmp_path / "x.py")), *where)
    assert decision(answer) == "deny"


def test_outside_plan_mode_the_hook_leaves_the_decision_to_the_agent(tmp_path):
    path = tmp_path / "a.plans.sqlite"
    with PlanStore(path) as store:
        store.session("s").on()
        store.session("s").off()
    where = ("--db", str(path), "--session", "s", "--ask")
    assert hook("PreToolUse", write(str(tmp_path / "x.py")), *where)[1] is None


def test_a_plan_it_cannot_read_is_asked_about(tmp_path):
    folder = tmp_path / "not-a-file.plans.sqlite"
    folder.mkdir()
    where = ("--db", str(folder), "--session", "s", "--ask")
    assert decision(hook("PreToolUse", write(str(tmp_path / "x.py")), *where)[1]) == "ask"


def test_claude_codes_own_plan_file_is_written_in_its_plan_mode(db, tmp_path):
    home = tmp_path / "home"
    plans = home / ".claude" / "plans"
    plans.mkdir(parents=True)
    outside = tmp_path / "outside.md"
    (plans / "link.md").symlink_to(outside)
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    where = ("--db", db, "--session", "s", "--ask")
    own = write(str(plans / "clean-the-data.md"), mode="plan")
    assert hook("PreToolUse", own, *where, env=env)[1] is None
    # Not in its plan mode, not Markdown, deeper, or a link out of the folder: guarded.
    for payload in (
        write(str(plans / "clean-the-data.md"), mode="default"),
        write(str(plans / "run.py"), mode="plan"),
        write(str(plans / "sub" / "x.md"), mode="plan"),
        write(str(plans / "link.md"), mode="plan"),
        write(str(plans / ".." / "x.md"), mode="plan"),
    ):
        assert decision(hook("PreToolUse", payload, *where, env=env)[1]) == "ask"
    # CLAUDE_CONFIG_DIR moves the folder.
    config = tmp_path / "config"
    (config / "plans").mkdir(parents=True)
    env["CLAUDE_CONFIG_DIR"] = str(config)
    moved = write(str(config / "plans" / "p.md"), mode="plan")
    assert hook("PreToolUse", moved, *where, env=env)[1] is None
    assert decision(hook("PreToolUse", own, *where, env=env)[1]) == "ask"


def test_the_bridges_matcher_names_only_tools_the_guard_holds():
    assert set(MATCHER.split("|")) <= set(DEFAULT_GUARD)
