"""The discovery scenarios for Claude Code's ACP agents (claude-agent-acp 0.101 and 0.23): plan
mode, the todo list, edits and commands in plan and auto modes, ExitPlanMode and EnterPlanMode,
and the session settings that might make Claude Code ask before every change."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.standins.script import call, text

from .discovery import Scenario, Summary, allow_once, plan_or_reject, policy, prompt, reject
from .discovery import call as request
from .real import RealAgent, Run, answer_all, option_of

TODOS = [
    {"content": "Read the sales data", "status": "pending", "activeForm": "Reading the sales data"},
    {"content": "Drop empty rows", "status": "pending", "activeForm": "Dropping empty rows"},
    {
        "content": "Plot monthly totals",
        "status": "pending",
        "activeForm": "Plotting monthly totals",
    },
]
STARTED = [dict(TODOS[0], status="in_progress"), *TODOS[1:]]
PLAN = """# Clean the sales data

Load sales.csv, drop the empty rows and plot the monthly totals.

1. Read the sales data
2. Drop empty rows
3. Plot monthly totals
"""
ASK = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": "jupyter-plans: the session is in plan mode",
    }
}
CHANGES = "Write|Edit|MultiEdit|NotebookEdit|Bash"
SETTINGS = {
    "hook": {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": CHANGES,
                    "hooks": [{"type": "command", "command": f"echo '{json.dumps(ASK)}'"}],
                }
            ]
        }
    },
    "disable-auto": {"disableAutoMode": "disable", "permissions": {"disableAutoMode": "disable"}},
    "ask-rules": {"permissions": {"ask": ["Write", "Edit", "Bash"]}},
}


def load(agent: RealAgent, *names: str) -> list:
    """Claude Code 0.101 defers these tools: the model loads them with ToolSearch first."""
    if agent.name == "claude-0.101":
        return [[call("ToolSearch", {"query": "select:" + ",".join(names), "max_results": 5})]]
    return []


def changes(cwd: Path) -> list:
    return [
        [
            text("Writing the cleaned file."),
            call("Write", {"file_path": str(cwd / "x.txt"), "content": "cleaned\n"}),
        ],
        [call("Bash", {"command": "touch y.txt", "description": "Create y.txt"})],
    ]


def meta(settings: dict) -> dict:
    return {"claudeCode": {"options": {"settings": settings}}}


async def _session(run: Run, summary: Summary, settings: dict | None = None) -> str:
    new = await request(
        summary, "session/new", run.new_session(meta(settings) if settings else None)
    )
    return new.session_id


async def _plan_mode(run: Run, summary: Summary, sid: str) -> None:
    await request(
        summary, "set_mode plan", run.conn.set_session_mode(session_id=sid, mode_id="plan")
    )


def answering(run: Run, summary: Summary, choose) -> asyncio.Task:
    return asyncio.ensure_future(answer_all(run.client, policy(summary, choose)))


# The scenarios.


async def initialize(run: Run, summary: Summary) -> None:
    await _session(run, summary)


async def switch_mode(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    await _plan_mode(run, summary, sid)
    await asyncio.sleep(0.5)  # on purpose: what the agent sends unasked is recorded too
    for value in ("default", "plan"):
        await request(
            summary,
            f"set_config_option mode {value}",
            run.conn.set_config_option(config_id="mode", session_id=sid, value=value),
        )
        await asyncio.sleep(0.5)  # on purpose: as above


def plan_script(agent: RealAgent, cwd: Path) -> list:
    return [
        *load(agent, "TodoWrite", "ExitPlanMode"),
        [text("Listing the work."), call("TodoWrite", {"todos": TODOS})],
        *changes(cwd),
        [call("TodoWrite", {"todos": STARTED})],
        [call("ExitPlanMode", {"plan": PLAN})],
        [text("Starting with the data.")],
    ]


async def plan_prompt(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    await _plan_mode(run, summary, sid)
    task = answering(run, summary, plan_or_reject(allow_once))
    await prompt(run, sid, "Clean the sales data", summary, "prompt")
    task.cancel()


def exit_script(agent: RealAgent, cwd: Path) -> list:
    return [
        *load(agent, "ExitPlanMode"),
        [call("ExitPlanMode", {"plan": PLAN})],
        [text("Staying in plan mode.")],
    ]


async def exit_reject(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    await _plan_mode(run, summary, sid)
    task = answering(run, summary, plan_or_reject(reject))
    await prompt(run, sid, "Clean the sales data", summary, "prompt")
    await prompt(run, sid, "Go on", summary, "prompt 2")
    task.cancel()


async def exit_cancelled(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    await _plan_mode(run, summary, sid)
    task = answering(run, summary, plan_or_reject(lambda asked: None))
    await prompt(run, sid, "Clean the sales data", summary, "prompt")
    task.cancel()


def writes_script(agent: RealAgent, cwd: Path) -> list:
    return [*changes(cwd), [text("Done writing.")]]


async def writes_default(run: Run, summary: Summary, settings: dict | None = None) -> None:
    """Write and Bash in the session's first mode (0.101: auto, 0.23: default)."""
    sid = await _session(run, summary, settings)
    task = answering(run, summary, reject)
    await prompt(run, sid, "Clean the sales data", summary, "prompt")
    task.cancel()


async def writes_plan(run: Run, summary: Summary, settings: dict | None = None) -> None:
    sid = await _session(run, summary, settings)
    await _plan_mode(run, summary, sid)
    task = answering(run, summary, reject)
    await prompt(run, sid, "Clean the sales data", summary, "prompt")
    task.cancel()


def enter_script(agent: RealAgent, cwd: Path) -> list:
    return [
        *load(agent, "EnterPlanMode", "TodoWrite"),
        [call("EnterPlanMode", {})],
        [call("TodoWrite", {"todos": TODOS})],
        [call("TodoWrite", {"todos": STARTED})],
        [text("Planning first.")],
    ]


async def enter_plan(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    task = answering(run, summary, lambda asked: option_of(asked, "allow_once"))
    await prompt(run, sid, "Plan the cleaning", summary, "prompt")
    task.cancel()


def _with(settings_name: str, steps):
    async def run_steps(run: Run, summary: Summary) -> None:
        summary.note("settings", SETTINGS[settings_name])
        await steps(run, summary, SETTINGS[settings_name])

    return run_steps


SCENARIOS = [
    Scenario("initialize", lambda a, c: [], initialize),
    Scenario("initialize-plan-capability", lambda a, c: [], initialize, plan_capability=True),
    Scenario("switch-mode", lambda a, c: [], switch_mode),
    Scenario("plan-prompt", plan_script, plan_prompt),
    Scenario("plan-prompt-plan-capability", plan_script, plan_prompt, plan_capability=True),
    Scenario("exit-reject", exit_script, exit_reject),
    Scenario("exit-cancelled", exit_script, exit_cancelled),
    Scenario("writes-default", writes_script, writes_default),
    Scenario(
        "writes-default-classifier-blocks",
        writes_script,
        writes_default,
        ("claude-0.101",),
        classifier="block",
    ),
    Scenario("writes-plan", writes_script, writes_plan),
    Scenario("enter-plan", enter_script, enter_plan),
    *[
        Scenario(f"{name}-{where}", writes_script, _with(name, steps))
        for name in SETTINGS
        for where, steps in (("default", writes_default), ("plan", writes_plan))
    ],
]
