"""DESIGN section 10 against the agents people run, as one conformance suite: every scenario runs
against each real agent of real.py (claude-agent-acp 0.101 and 0.23.1, codex-acp 2.6, and the
adapters with the newest CLIs), each its own program behind the bridge, offline, with a
stand-in of its model's API whose script is written once in dialects.py's words. What differs
between agents is read from the bridge's profile of the agent. `make agents` installs them
(pinned); without them these tests skip with the reason, and fail in CI."""

from __future__ import annotations

import asyncio
import json

import pytest

from jupyter_plans.agents.acp.followup import ENDED, STOPPED
from jupyter_plans.agents.context import OPEN
from jupyter_plans.plan.who import local_person

from .conformance import (
    EVERY,
    PROMPT_TIMEOUT,
    REFUSED,
    agents_where,
    asked_in,
    behind_bridge,
    card,
    config_values,
    follow_ups,
    guards_heard,
    model_texts,
    modes_told,
    name_the_person,
    plan_mode_from_the_client,
    profile_of,
    prompt,
    real,
    refusals,
    run_real,
    step_rows,
    until,
)
from .dialects import EXPLANATION, STEPS
from .real import answer_all

CONTEXT = OPEN.split(" ")[0]  # the context block's opening tag, as JSON text holds it
# What the bridge must never tell an agent whose person chose that edits stop asking.
STILL_ASKS = "still asks the person"


def said(update) -> str:
    """The text a tool call's update carries."""
    return " ".join(getattr(getattr(c, "content", None), "text", "") for c in update.content or [])


@pytest.mark.parametrize("name", EVERY)
def test_plan_mode_the_guard_and_the_proposal(name, tmp_path):
    """The client's own switch into plan mode (the profile's plan switch) is the named
    person's `on`; an edit and a command are refused in words that say what happened, and the
    turn goes on to the proposal (a follow-up prompt where the agent's only reject ends its
    turn); the proposal's steps are the plan's own words; the person's approval on the card
    answers with the option that keeps edits asking, and the card shows the agent's mode."""
    agent = real(name)
    dialect, profile = agent.dialect, profile_of(agent)
    cwd = tmp_path / "work"
    script = [
        *dialect.load("TodoWrite", "ExitPlanMode"),
        *(
            dialect.todos(STEPS) + dialect.todos(STEPS, started=0)
            if dialect.todos_in_plan_mode
            else []
        ),
        *dialect.edit(cwd),
        *dialect.command(cwd),
        *dialect.propose(),
        *dialect.say("Starting with the data."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            assert card(person)["agent"]["agent"] == profile.label  # chosen at initialize
            await name_the_person(run, sid, "alice")
            await plan_mode_from_the_client(run, agent, sid)
            assert person.snapshot()["mode"] == "plan"
            (on,) = person.events("mode_changed")
            assert on.data["by"] == {"name": "alice", "via": "acp-client"}
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asked_in(run, turn, tmp_path)
            # The only request that reached the client is the plan's.
            assert asked.tool_call.kind == "switch_mode"
            snapshot = person.snapshot()
            digest = snapshot["pending_proposal_hash"]
            assert digest is not None
            assert snapshot["plan"]["explanation"] == EXPLANATION
            assert [(s, d) for s, d, _ in step_rows(snapshot)] == [
                ("e1", STEPS[0]),
                ("e2", STEPS[1]),
                ("e3", STEPS[2]),
            ]
            assert not (cwd / "x.txt").exists() and not (cwd / "y.txt").exists()
            refused = refusals(person)
            assert len(refused) == 2, refused
            for _, words in refused:
                assert words.startswith(REFUSED) and "client" not in words
            # Each refused call is marked so in the client: its update, failed, with the line.
            told = [u for u in run.client.kinds("tool_call_update") if said(u).startswith(REFUSED)]
            assert [u.status for u in told] == ["failed", "failed"], told
            if profile.turn_ending:  # its only reject ended the turn: a follow-up went on
                assert follow_ups(run) >= 1
            # The guard proves itself: the bridge's is heard from by the agent's own name and
            # version; where the agent takes the guard's hook at session start, the hook too.
            heard = guards_heard(person)
            assert heard[agent.package] == (agent.version, "acp-bridge"), heard
            if profile.session_settings:
                assert heard["Claude Code"][1] == "PreToolUse", heard
            await person("approve", digest)
            done = await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            assert done.stop_reason == "end_turn"
            after = person.snapshot()
            assert after["mode"] == "default"
            # Edits still ask: the agent got the option that keeps them asking, and the card
            # says the mode the agent announced.
            assert after["agent_mode"] is not None
            assert profile.asks(after["agent_mode"]), after["agent_mode"]
            shown = card(person)["agent"]
            assert (shown["mode"], shown["asks"], shown["working"]) == (
                after["agent_mode"],
                True,
                False,
            )
            assert len(run.client.asked_all) == 1

    run_real(main())


@pytest.mark.parametrize("name", EVERY)
def test_the_persons_on_during_a_turn_stops_what_it_does_next(name, tmp_path):
    """The person's `on` on the card while the agent's turn runs a command: the turn's next
    edit changes nothing. Where a turn keeps the mode it began in (Codex: its profile's
    `modes_next_turn`), the bridge cancels the turn and follows it up, in plan mode, with the
    guard's words; the client's prompt ends once the follow-ups do."""
    agent = real(name)
    dialect, profile = agent.dialect, profile_of(agent)
    cwd = tmp_path / "work"
    script = [*dialect.long_command(cwd, 4), *dialect.edit(cwd), *dialect.say("Done.")]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            turn = prompt(run, sid, "Clean the sales data")
            await until(
                lambda: [u for u in run.client.kinds("tool_call") if u.kind == "execute"],
                "the command running",
            )
            await person("on")
            done = await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            assert done.stop_reason == "end_turn"
            assert not (cwd / "x.txt").exists(), "an edit after the person's on went through"
            assert person.snapshot()["mode"] == "plan"
            stopped = [t for t in model_texts(run) if json.dumps(STOPPED)[1:-1] in t]
            assert bool(stopped) == profile.modes_next_turn, model_texts(run)[-1][-2000:]

    run_real(main())


@pytest.mark.parametrize("name", agents_where(lambda a: profile_of(a).turn_ending))
def test_a_refusal_that_ends_the_turn_is_followed_up_at_most_three_times(name, tmp_path):
    """Where the agent's only reject ends its turn, each refusal is followed by a prompt that
    opens with its words; past three in a turn, the turn ends with the refusals recorded."""
    agent = real(name)
    cwd = tmp_path / "work"
    dialect = agent.dialect
    script = [*(turn for n in range(5) for turn in dialect.edit(cwd, f"x{n}.txt"))]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            await person("on")
            sid = (await run.new_session()).session_id
            await until(lambda: person.snapshot()["agent_mode"] == "read-only", "read-only")
            done = await prompt(run, sid, "Clean the sales data")
            assert done.stop_reason == "cancelled"
            assert len(refusals(person)) == 4
            assert follow_ups(run) == 3
            assert not [p.name for p in cwd.iterdir()]
            assert card(person)["activity"] == "chat"  # the turn is over
            # Why it ended is said in the chat (the last refused call's update) and on the card.
            assert card(person)["agent"]["ended"] == ENDED
            assert [said(u) for u in run.client.kinds("tool_call_update")][-1] == ENDED

    run_real(main())


@pytest.mark.parametrize("name", EVERY)
def test_request_changes_then_the_agent_waits_for_the_persons_next_message(name, tmp_path):
    """The first prompt opens with the plan's context block; revise answers the proposal with
    its reject option; once the turn is over the card says the agent waits for the person's
    next message in the chat, and the notes open that message, before the person's words."""
    agent = real(name)
    dialect = agent.dialect
    script = [
        *dialect.load("ExitPlanMode"),
        *dialect.propose(),
        *dialect.say("Keeping on planning."),
        *dialect.say("Using the median."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            assert card(person)["activity"] is None
            await person("start_planning", "Clean the sales data")
            assert card(person)["activity"] == "none"  # plan mode waits for an agent
            sid = (await run.new_session()).session_id
            await until(lambda: person.snapshot()["agent_mode"] is not None, "the agent's mode")
            assert card(person)["activity"] == "chat"  # an agent, and no prompt of the chat
            turn = prompt(run, sid, "Go ahead")
            answers = asyncio.ensure_future(answer_all(run.client, lambda asked: None))
            digest = await until(lambda: person.snapshot()["pending_proposal_hash"], "a proposal")
            # From the prompt to its proposal the card said the agent was at work. Codex proposes
            # some 80 ms after the prompt, too soon for a poll, so the recorded history says it.
            history = person.events()
            proposed = next(e.seq for e in history if e.kind == "proposal_submitted")
            statuses = [e.data for e in history if e.kind == "agent_status" and e.seq < proposed]
            assert statuses[-1]["working"] is True, statuses
            await person("revise", "Use the median, not the mean")
            assert (await turn).stop_reason in ("end_turn", "cancelled")
            answers.cancel()
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("plan", None)
            decisions = [e.data for e in person.events("decision")]
            by = {"name": local_person(), "via": "api"}  # the person's revise, in Python
            assert decisions == [{"action": "changes_requested", "hash": digest, "by": by}]
            shown = card(person)
            assert (shown["activity"], shown["notes"]) == ("chat", "Use the median, not the mean")
            await prompt(run, sid, "Try again")
            first = json.dumps(run.model.turns()[0].body)
            assert CONTEXT in first and "Clean the sales data" in first
            last = model_texts(run)[-1]
            notes = last.rfind("Use the median, not the mean")
            assert 0 <= notes < last.rfind("Try again")

    run_real(main())


@pytest.mark.parametrize("name", agents_where(lambda a: a.stops_asking))
def test_the_clients_approval_that_stops_edits_asking_is_the_persons_choice(name, tmp_path):
    """The person approves in the client with the option that stops edits from asking: the
    decision names the client's person, the agent gets that option, the snapshot and the card
    show the mode the agent announced, and nothing tells the agent that edits still ask."""
    agent = real(name)
    dialect, profile = agent.dialect, profile_of(agent)
    script = [
        *dialect.load("ExitPlanMode"),
        *dialect.propose(),
        *dialect.say("Working, as you chose."),
        *dialect.say("Next."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            await person("on")
            sid = (await run.new_session()).session_id
            await name_the_person(run, sid, "bob")
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asked_in(run, turn, tmp_path)
            digest = person.snapshot()["pending_proposal_hash"]
            asked.choose(agent.stops_asking)
            await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            (decision,) = [e.data for e in person.events("decision")]
            assert decision == {
                "action": "approved",
                "hash": digest,
                "by": {"name": "bob", "via": "acp-client"},
            }
            mode = await until(
                lambda: (m := person.snapshot()["agent_mode"]) not in (None, "plan") and m,
                "the agent's new mode",
            )
            assert mode == modes_told(run.client)[-1]
            assert not profile.asks(mode)
            shown = card(person)
            assert shown["agent"]["edits"] == profile.edits(mode)
            assert "no longer ask" in shown["agent"]["edits"]
            await prompt(run, sid, "Go on")
            assert not any(STILL_ASKS in text for text in model_texts(run))

    run_real(main())


@pytest.mark.parametrize("name", EVERY)
def test_the_persons_on_and_off_switch_the_agent_and_back(name, tmp_path):
    agent = real(name)
    profile = profile_of(agent)

    async def main():
        async with behind_bridge(agent, tmp_path, []) as (run, person):
            new = await run.new_session()
            first = new.modes.current_mode_id
            switch = profile.plan_switch
            await person("on")
            await until(lambda: config_values(run.client).get(switch) == "plan", "plan mode")
            asking = next((m for m in profile.asking_modes if m in first_modes(new)), None)
            if asking is not None:  # its permission modes are apart: the one that asks
                await until(lambda: person.snapshot()["agent_mode"] == asking, asking)
            else:
                await until(lambda: person.snapshot()["agent_mode"] == "plan", "mode plan")
            await person("off")
            await until(lambda: config_values(run.client).get(switch) != "plan", "out of plan")
            await until(lambda: person.snapshot()["agent_mode"] == first, f"mode {first} again")

    run_real(main())


def first_modes(new) -> list[str]:
    return [mode.id for mode in new.modes.available_modes]


@pytest.mark.parametrize("name", EVERY)
def test_a_second_task_gets_steps_of_its_own(name, tmp_path):
    """A new todo list whose first entry starts in progress where the first task's completed
    step was: its own words and new ids, never the earlier plan's."""
    agent = real(name)
    dialect = agent.dialect
    second = ["Fit a baseline linear model", "Report the R^2"]
    script = [
        *dialect.load("TodoWrite"),
        *dialect.todos(STEPS, started=0),
        *dialect.todos(STEPS, done=3),
        *dialect.say("Done."),
        *dialect.todos(second, started=0),
        *dialect.say("Fitting."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            answers = asyncio.ensure_future(answer_all(run.client, lambda asked: None))
            await prompt(run, sid, "Clean the sales data")
            assert [s for s, _, _ in step_rows(person.snapshot())] == ["e1", "e2", "e3"]
            await prompt(run, sid, "Now fit a model")
            answers.cancel()
            assert step_rows(person.snapshot()) == [
                ("e4", second[0], "in_progress"),
                ("e5", second[1], "pending"),
            ]

    run_real(main())


@pytest.mark.parametrize("name", agents_where(lambda a: a.dialect.enters_plan_mode))
def test_the_agent_entering_plan_mode_itself_puts_the_session_in_plan_mode(name, tmp_path):
    agent = real(name)
    dialect = agent.dialect
    cwd = tmp_path / "work"
    script = [*dialect.enter_plan_mode(), *dialect.edit(cwd), *dialect.say("Planning first.")]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            new = await run.new_session()
            sid, first = new.session_id, new.modes.current_mode_id
            assert person.snapshot()["mode"] == "default"
            await prompt(run, sid, "Plan the cleaning")
            assert person.snapshot()["mode"] == "plan"
            assert [e.data["by"] for e in person.events("mode_changed")] == [
                {"name": None, "via": "agent"}
            ]
            assert not (cwd / "x.txt").exists()
            assert len(refusals(person)) == 1
            assert run.client.asked_all == []
            # The person's off gives the agent back the mode it had before plan mode.
            await person("off")
            await until(lambda: modes_told(run.client)[-1:] == [first], f"mode {first}")

    run_real(main())
