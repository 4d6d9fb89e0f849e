"""The ACP bridge's guard leaves its heartbeat in the plan (DESIGN section 15), with the real
agents behind it: the agent as its initialize result names it, with its version; behind
Claude Code's agents, the hook the bridge gives Claude Code leaves one too. The card then says
which guards were heard from, and none is silent (the bridge installs no hooks)."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from jupyter_plans.session.card import guard_data
from tests.standins.script import call, text

from .real import BY_NAME, require
from .test_real_agents import (
    CLAUDES,
    behind_bridge,
    changes,
    load,
    prompt,
    refused_titles,
    run_real,
)

PACKAGES = {
    "claude-0.101": ("@agentclientprotocol/claude-agent-acp", "0.101.0", "2.1.318"),
    "claude-0.23": ("@zed-industries/claude-agent-acp", "0.23.1", None),
}


def seen(db) -> dict[str, tuple]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT agent, agent_version, point FROM guard_seen").fetchall()
    return {row[0]: row[1:] for row in rows}


@pytest.mark.parametrize("name", CLAUDES)
def test_behind_the_bridge_claude_codes_guards_are_heard_from(name, tmp_path):
    agent = BY_NAME[name]
    require(agent)
    cwd = tmp_path / "work"
    script = [
        *load(name, "EnterPlanMode"),
        [call("EnterPlanMode", {})],
        changes(cwd)[0],
        [text("Planning first.")],
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            await prompt(run, sid, "Plan the cleaning")
            assert refused_titles(person) == ["Write x.txt"]
            package, version, claude_code = PACKAGES[name]
            heard = seen(tmp_path / "a.plans.sqlite")
            assert heard[package] == (version, "acp-bridge")
            assert heard["Claude Code"] == (claude_code, "PreToolUse")
            data = guard_data(person.session, person.session.snapshot_data(), None)
            assert data["silent"] == [] and {s["agent"] for s in data["seen"]} == set(heard)

    run_real(main())


def test_behind_the_bridge_codexs_guard_is_heard_from(tmp_path):
    agent = BY_NAME["codex-2.6"]
    require(agent)
    cwd = tmp_path / "work"
    script = [
        [
            call(
                "exec_command",
                {
                    "cmd": "touch z.txt",
                    "workdir": str(cwd),
                    "sandbox_permissions": "require_escalated",
                    "justification": "Create z.txt",
                },
            )
        ]
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            await run.conn.set_config_option(
                config_id="collaboration_mode", session_id=sid, value="plan"
            )
            await prompt(run, sid, "Clean the sales data")
            assert refused_titles(person) == ["touch z.txt"]
            heard = seen(tmp_path / "a.plans.sqlite")
            assert heard == {"@agentclientprotocol/codex-acp": ("2.6.0", "acp-bridge")}

    run_real(main())
