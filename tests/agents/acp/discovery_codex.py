"""The discovery scenarios for codex-acp 2.6: the collaboration mode `plan`, its final plan and
"Implement this plan?", the todo tool, and an edit and a command in each of its modes (which ask,
with which options, and which reject lets the turn go on)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.standins.script import call, text

from .discovery import Scenario, Summary, allow_once, plan_or_reject, policy, prompt, reject
from .discovery import call as request
from .harness import Asked
from .real import RealAgent, Run, answer_all

PLAN = """# Clean the sales data

Load sales.csv, drop the empty rows and plot the monthly totals.

- Read the sales data
- Drop empty rows
- Plot monthly totals
"""
PROPOSED = f"Here is the plan.\n\n<proposed_plan>\n{PLAN}</proposed_plan>\n"
PATCH = "*** Begin Patch\n*** Add File: x.txt\n+cleaned\n*** End Patch\n"
STEPS = [
    {"step": "Read the sales data", "status": "pending"},
    {"step": "Drop empty rows", "status": "pending"},
    {"step": "Plot monthly totals", "status": "pending"},
]
STARTED = [dict(STEPS[0], status="in_progress"), *STEPS[1:]]


def changes(agent: RealAgent, cwd: Path) -> list:
    return [
        [text("Writing the cleaned file."), call("apply_patch", PATCH)],
        [call("exec_command", {"cmd": "touch y.txt", "workdir": str(cwd)})],
    ]


async def _session(run: Run, summary: Summary) -> str:
    return (await request(summary, "session/new", run.new_session())).session_id


async def _set(run: Run, summary: Summary, sid: str, config_id: str, value: str) -> None:
    await request(
        summary,
        f"set_config_option {config_id} {value}",
        run.conn.set_config_option(config_id=config_id, session_id=sid, value=value),
    )


def answering(run: Run, summary: Summary, choose) -> asyncio.Task:
    return asyncio.ensure_future(answer_all(run.client, policy(summary, choose)))


async def initialize(run: Run, summary: Summary) -> None:
    await _session(run, summary)


async def switch_mode(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    await _set(run, summary, sid, "collaboration_mode", "plan")
    await request(
        summary,
        "set_mode read-only",
        run.conn.set_session_mode(session_id=sid, mode_id="read-only"),
    )
    await _set(run, summary, sid, "mode", "workspace-write")
    await _set(run, summary, sid, "collaboration_mode", "default")
    await asyncio.sleep(0.5)  # on purpose: what the agent sends unasked is recorded too


def plan_script(agent: RealAgent, cwd: Path) -> list:
    return [
        [call("update_plan", {"explanation": "The work", "plan": STEPS})],
        *changes(agent, cwd),
        [text(PROPOSED)],
        [text("Implementing.")],
    ]


def plan_steps(plan_answer, mode: str | None = None):
    async def steps(run: Run, summary: Summary) -> None:
        sid = await _session(run, summary)
        if mode:
            await _set(run, summary, sid, "mode", mode)
        await _set(run, summary, sid, "collaboration_mode", "plan")
        task = answering(run, summary, plan_or_reject(plan_answer))
        await prompt(run, sid, "Clean the sales data", summary, "prompt")
        await asyncio.sleep(3)  # on purpose: an approved plan may start a turn of its own
        await prompt(run, sid, "Go on", summary, "prompt 2")
        task.cancel()

    return steps


def revise(asked: Asked) -> str | None:
    return "revise_plan"


def edits_script(agent: RealAgent, cwd: Path) -> list:
    return [*changes(agent, cwd), [text("Done writing.")]]


def edits_steps(mode: str, choose=reject):
    async def steps(run: Run, summary: Summary) -> None:
        sid = await _session(run, summary)
        if mode != "agent":
            await _set(run, summary, sid, "mode", mode)
        task = answering(run, summary, choose)
        await prompt(run, sid, "Clean the sales data", summary, "prompt")
        task.cancel()

    return steps


def cancel(asked: Asked) -> str | None:
    return "cancel" if any(o.option_id == "cancel" for o in asked.options) else reject(asked)


def todo_script(agent: RealAgent, cwd: Path) -> list:
    return [
        [call("update_plan", {"plan": STEPS})],
        [call("update_plan", {"plan": STARTED})],
        [text("Listed.")],
    ]


async def todo(run: Run, summary: Summary) -> None:
    sid = await _session(run, summary)
    task = answering(run, summary, reject)
    await prompt(run, sid, "List the work", summary, "prompt")
    task.cancel()


SCENARIOS = [
    Scenario("initialize", lambda a, c: [], initialize),
    Scenario("initialize-plan-capability", lambda a, c: [], initialize, plan_capability=True),
    Scenario("switch-mode", lambda a, c: [], switch_mode),
    Scenario("todo", todo_script, todo),
    Scenario("plan-prompt", plan_script, plan_steps(allow_once)),
    Scenario(
        "plan-prompt-plan-capability", plan_script, plan_steps(allow_once), plan_capability=True
    ),
    Scenario("plan-prompt-read-only", plan_script, plan_steps(allow_once, "read-only")),
    Scenario("plan-revise", plan_script, plan_steps(revise)),
    *[
        Scenario(f"edits-{mode}", edits_script, edits_steps(mode))
        for mode in ("agent", "read-only", "workspace-write")
    ],
    Scenario("edits-read-only-cancel", edits_script, edits_steps("read-only", cancel)),
]
