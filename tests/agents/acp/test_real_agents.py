"""DESIGN section 10 against the agents people run: Claude Code's claude-agent-acp (0.101 and
0.23.1) and codex-acp 2.6, each its own program behind the bridge, offline, with a stand-in of
its model's API that answers as the script says. `make agents` installs them (pinned); without
them these tests skip with the reason, and fail in CI."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path

import pytest
from acp import text_block

from jupyter_plans.agents.context import OPEN
from jupyter_plans.plan.who import local_person
from tests.standins.script import Turn, call, text

from .discovery_claude import PLAN, STARTED, TODOS
from .harness import Person
from .real import BY_NAME, TIMEOUT, RealClient, answer_all, require, started

PROMPT_TIMEOUT = 180.0  # a whole turn of a real agent, its model's stand-in and its tools
CLAUDES = ["claude-0.101", "claude-0.23"]
CONTEXT = OPEN.split(" ")[0]  # the context block's opening tag, as JSON text holds it
EXPLANATION = "Load sales.csv, drop the empty rows and plot the monthly totals."
STEPS = ["Read the sales data", "Drop empty rows", "Plot monthly totals"]


def load(agent: str, *names: str) -> list:
    """Claude Code 0.101 defers its plan and todo tools: the model loads them first."""
    if agent == "claude-0.101":
        return [[call("ToolSearch", {"query": "select:" + ",".join(names), "max_results": 5})]]
    return []


def plan_path(body: dict) -> str:
    """The plan file Claude Code's plan mode tells the model to write."""
    found = re.search(r"create your plan at (/[^\s\"\\]+?\.md)", json.dumps(body))
    assert found, "Claude Code named no plan file"
    return found.group(1)


def proposes(plan: str) -> list:
    """In plan mode, Claude Code proposes the plan file it had the model write."""
    return [
        Turn(lambda body: [call("Write", {"file_path": plan_path(body), "content": plan})]),
        [call("ExitPlanMode", {"plan": plan})],
    ]


def changes(cwd: Path) -> list:
    return [
        [
            text("Writing the cleaned file."),
            call("Write", {"file_path": str(cwd / "x.txt"), "content": "c\n"}),
        ],
        [call("Bash", {"command": "touch y.txt", "description": "Create y.txt"})],
    ]


async def until(check, what: str, timeout: float = TIMEOUT):
    """Wait for CHECK() to give something true, and give it."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = check()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


def prompt(run, session_id: str, words: str) -> asyncio.Task:
    return asyncio.ensure_future(
        asyncio.wait_for(
            run.conn.prompt(session_id=session_id, prompt=[text_block(words)]), PROMPT_TIMEOUT
        )
    )


def refused_titles(person: Person) -> list[str]:
    return [
        e.data.get("name")
        for e in person.events("tool_finished")
        if "Refused by the plan guard" in str(e.data.get("result"))
    ]


def step_rows(snapshot: dict) -> list[tuple]:
    steps = snapshot["plan"]["steps"] if snapshot["plan"] else []
    return [(s["id"], s["description"], s["status"]) for s in steps]


def modes_told(client: RealClient) -> list[str]:
    return [u.current_mode_id for u in client.kinds("current_mode_update")]


@contextlib.asynccontextmanager
async def behind_bridge(agent, tmp_path: Path, script):
    """AGENT behind the bridge on tmp_path/a.plans.sqlite (session s), its model answering
    SCRIPT; yields the run and the person's view of the plan. The raw messages both ways are
    kept in tmp_path/wire.jsonl."""
    db = tmp_path / "a.plans.sqlite"
    async with started(agent, tmp_path, script, bridge_db=db) as run:
        person = Person(db)
        try:
            yield run, person
        finally:
            person.close()
            run.save(tmp_path / "wire.jsonl")


def run_real(coroutine) -> None:
    asyncio.run(coroutine)


@pytest.mark.parametrize("name", CLAUDES)
def test_claude_plan_mode_by_config_option_guard_mirror_and_proposal(name, tmp_path):
    """The client sets plan mode through the config option `mode`; the todo list is mirrored
    with stable ids through its active form; a Write and a Bash command are refused, also
    where Claude Code's classifier allows the command by itself; ExitPlanMode becomes the
    proposal, and the person's approval answers it with the option that keeps edits asking."""
    agent = BY_NAME[name]
    require(agent)
    cwd = tmp_path / "work"
    script = [
        *load(name, "TodoWrite", "ExitPlanMode"),
        [text("Listing the work."), call("TodoWrite", {"todos": TODOS})],
        [call("TodoWrite", {"todos": STARTED})],
        *changes(cwd),
        *proposes(PLAN),
        [text("Starting with the data.")],
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            await asyncio.wait_for(
                run.conn.set_config_option(config_id="mode", session_id=sid, value="plan"),
                TIMEOUT,
            )
            assert person.snapshot()["mode"] == "plan"
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asyncio.wait_for(run.client.asked.get(), PROMPT_TIMEOUT)
            # The only request that reached the client is the plan's.
            assert asked.tool_call.kind == "switch_mode"
            snapshot = person.snapshot()
            digest = snapshot["pending_proposal_hash"]
            assert digest is not None
            assert snapshot["plan"]["explanation"] == EXPLANATION
            assert step_rows(snapshot) == [
                ("e1", STEPS[0], "pending"),
                ("e2", STEPS[1], "pending"),
                ("e3", STEPS[2], "pending"),
            ]
            # The step in progress kept its id and wording through its active form.
            mirrored = [e.data["plan"]["phases"][0]["steps"] for e in person.events("plan_updated")]
            assert [(s["id"], s["description"], s["status"]) for s in mirrored[1]][0] == (
                "e1",
                STEPS[0],
                "in_progress",
            )
            assert not (cwd / "x.txt").exists() and not (cwd / "y.txt").exists()
            assert refused_titles(person) == ["Write x.txt", "touch y.txt"]
            await person("approve", digest)
            await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            assert person.snapshot()["mode"] == "default"
            # Edits still ask: the agent was given the option that leaves it in default.
            assert modes_told(run.client)[-1] == "default"
            assert "acceptEdits" not in modes_told(run.client)
            assert len(run.client.asked_all) == 1

    run_real(main())


@pytest.mark.parametrize("name", CLAUDES)
def test_claude_entering_plan_mode_itself_puts_the_session_in_plan_mode(name, tmp_path):
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
            new = await run.new_session()
            sid, first = new.session_id, new.modes.current_mode_id
            assert person.snapshot()["mode"] == "default"
            await prompt(run, sid, "Plan the cleaning")
            assert person.snapshot()["mode"] == "plan"
            assert [e.data["mode"] for e in person.events("mode_changed")] == ["plan"]
            assert not (cwd / "x.txt").exists()
            assert refused_titles(person) == ["Write x.txt"]
            assert run.client.asked_all == []
            # The person's off gives the agent back the mode it had before plan mode.
            await person("off")
            await until(lambda: modes_told(run.client)[-1:] == [first], f"mode {first}")

    run_real(main())


CODEX_PLAN = PLAN.replace("1. ", "- ").replace("2. ", "- ").replace("3. ", "- ")
ESCALATED = {"sandbox_permissions": "require_escalated", "justification": "Create z.txt"}
PATCH = "*** Begin Patch\n*** Add File: x.txt\n+cleaned\n*** End Patch\n"


def test_codex_plan_mode_by_collaboration_mode_guard_and_proposal(tmp_path):
    """Codex has no mode `plan`: the client's collaboration_mode `plan` is the person's on; the
    bridge puts Codex in read-only, so its command and its edit ask and are refused (files
    absent); its final plan becomes a proposal whose steps are the Markdown's list."""
    agent = BY_NAME["codex-2.6"]
    require(agent)
    cwd = tmp_path / "work"
    script = [
        # In read-only, Codex runs a command in its read-only sandbox without asking ...
        [call("exec_command", {"cmd": "touch y.txt", "workdir": str(cwd)})],
        # ... and asks to run one outside it: refused with its one reject, `cancel`, which
        # ends the turn (codex-acp 2.6 offers no reject that lets it go on).
        [call("exec_command", {"cmd": "touch z.txt", "workdir": str(cwd), **ESCALATED})],
        [text("Writing the cleaned file."), call("apply_patch", PATCH)],
        [text(f"Here is the plan.\n\n<proposed_plan>\n{CODEX_PLAN}</proposed_plan>\n")],
        [text("Implementing.")],
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            new = await run.new_session()
            sid = new.session_id
            assert new.modes.current_mode_id == "agent"
            await asyncio.wait_for(
                run.conn.set_config_option(
                    config_id="collaboration_mode", session_id=sid, value="plan"
                ),
                TIMEOUT,
            )
            assert person.snapshot()["mode"] == "plan"
            await until(
                lambda: "read-only" in modes_told(run.client), "the bridge's read-only mode"
            )
            for words in ("Clean the sales data", "Write the file"):
                assert (await prompt(run, sid, words)).stop_reason == "cancelled"
            assert not [p.name for p in cwd.iterdir()]
            assert refused_titles(person) == ["touch z.txt", "Edit files"]
            assert run.client.asked_all == []
            answers = asyncio.ensure_future(
                answer_all(run.client, lambda asked: None)  # the person decides, not it
            )
            turn = prompt(run, sid, "Go on")
            snapshot = await until(
                lambda: (s := person.snapshot())["pending_proposal_hash"] and s, "a proposal"
            )
            assert snapshot["plan"]["explanation"] == EXPLANATION
            assert [d for _, d, _ in step_rows(snapshot)] == STEPS
            await person("approve", snapshot["pending_proposal_hash"])
            await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            answers.cancel()
            assert person.snapshot()["mode"] == "default"
            assert len(run.client.asked_all) == 1  # "Implement this plan?" only
            assert not [p.name for p in cwd.iterdir()]

    run_real(main())


def test_codex_the_persons_on_and_off_set_its_collaboration_mode_and_back(tmp_path):
    agent = BY_NAME["codex-2.6"]
    require(agent)

    async def main():
        async with behind_bridge(agent, tmp_path, []) as (run, person):
            sid = (await run.new_session()).session_id

            def values():
                updates = run.client.kinds("config_option_update")
                if not updates:
                    return {}
                return {
                    getattr(o, "root", o).id: getattr(o, "root", o).current_value
                    for o in updates[-1].config_options
                }

            await person("on")
            await until(
                lambda: (
                    values().get("collaboration_mode") == "plan"
                    and values().get("mode") == "read-only"
                ),
                "plan and read-only",
            )
            await person("off")
            await until(
                lambda: (
                    values().get("collaboration_mode") == "default"
                    and values().get("mode") == "agent"
                ),
                "default and agent again",
            )
            assert sid

    run_real(main())


@pytest.mark.parametrize("name", CLAUDES)
def test_claude_revise_answers_reject_and_the_notes_open_the_next_prompt(name, tmp_path):
    """The first prompt opens with the plan's context block; revise answers ExitPlanMode with
    its reject option (Claude Code keeps planning), and the notes open the next prompt, before
    the app's own words."""
    agent = BY_NAME[name]
    require(agent)
    script = [
        *load(name, "ExitPlanMode"),
        *proposes(PLAN),
        [text("Keeping on planning.")],
        [text("Using the median.")],
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            await person("start_planning", "Clean the sales data")
            sid = (await run.new_session()).session_id
            await until(lambda: "plan" in modes_told(run.client), "plan mode set")
            turn = prompt(run, sid, "Go ahead")
            digest = await until(lambda: person.snapshot()["pending_proposal_hash"], "a proposal")
            await person("revise", "Use the median, not the mean")
            assert (await turn).stop_reason in ("end_turn", "cancelled")
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("plan", None)
            decisions = [e.data for e in person.events("decision")]
            by = {"name": local_person(), "via": "api"}  # the person's revise, in Python
            assert decisions == [{"action": "changes_requested", "hash": digest, "by": by}]
            assert "acceptEdits" not in modes_told(run.client)
            await prompt(run, sid, "Try again")
            first = json.dumps(run.model.turns()[0].body)
            assert CONTEXT in first and "Clean the sales data" in first
            last = run.model.turns()[-1].body
            notes = json.dumps(last).rfind("Use the median, not the mean")
            assert 0 <= notes < json.dumps(last).rfind("Try again")

    run_real(main())


def test_codex_the_apps_answer_is_the_persons_decision_and_revise_reaches_it(tmp_path):
    """The app's "No" on "Implement this plan?" is the person's revise (no notes); Codex gets
    `revise_plan`, and stays in plan mode."""
    agent = BY_NAME["codex-2.6"]
    require(agent)
    script = [
        [text(f"Here is the plan.\n\n<proposed_plan>\n{CODEX_PLAN}</proposed_plan>\n")],
        [text("Revising.")],
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            await person("on")
            sid = (await run.new_session()).session_id
            await until(lambda: "read-only" in modes_told(run.client), "read-only")
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asyncio.wait_for(run.client.asked.get(), PROMPT_TIMEOUT)
            assert asked.tool_call.title == "Implement this plan?"
            digest = person.snapshot()["pending_proposal_hash"]
            assert digest is not None
            asked.choose("revise_plan")
            await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("plan", None)
            assert [e.data for e in person.events("decision")] == [
                {
                    "action": "changes_requested",
                    "hash": digest,
                    "by": {"name": local_person(), "via": "acp-client"},  # the app's "No"
                }
            ]
            assert CONTEXT in json.dumps(run.model.turns()[0].body)

    run_real(main())
