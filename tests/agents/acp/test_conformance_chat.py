"""DESIGN section 10's "the card and the chat tell the same truth", turn after turn, against each
real agent (conformance.py): the client's mode sent again with a message is no switch; a request
decided on the card is closed in the client; a step the agent rewords keeps its id and its
comment; a first proposal takes a longer list item's words for an entry in its active form."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_plans.plan.comments import anchor_words

from .conformance import (
    PROMPT_TIMEOUT,
    agents_where,
    asked_in,
    behind_bridge,
    config_values,
    every_agent,
    name_the_person,
    plan_mode_from_the_client,
    profile_of,
    prompt,
    real,
    run_real,
    step_rows,
)
from .dialects import PLAN, STEPS
from .real import TIMEOUT, answer_all

REWORDED = [STEPS[0], "Drop the rows with no amount", STEPS[2]]
LONGER = "Read the sales data and inspect the columns"

pytestmark = pytest.mark.real_agents


def updates_of(client, tool_call_id: str) -> list:
    return [u for u in client.kinds("tool_call_update") if u.tool_call_id == tool_call_id]


@every_agent
def test_the_menu_sent_again_after_an_approval_on_the_card_is_no_switch(name, tmp_path):
    """Plan from the client's menu, the proposal approved on the card (its request closed in
    the client), then "Thanks!" with the menu's value sent again: the session stays out of
    plan mode, and the client is told the agent's options as they are."""
    agent = real(name)
    dialect, profile = agent.dialect, profile_of(agent)
    script = [
        *dialect.load("ExitPlanMode"),
        *dialect.propose(),
        *dialect.say("Starting with the data."),
        *dialect.say("You are welcome."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            await name_the_person(run, sid, "alice")
            await plan_mode_from_the_client(run, agent, sid)
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asked_in(run, turn, tmp_path)
            await person("approve", person.snapshot()["pending_proposal_hash"])
            await asyncio.wait_for(turn, PROMPT_TIMEOUT)
            assert person.snapshot()["mode"] == "default"
            (closed,) = [
                u
                for u in updates_of(run.client, asked.tool_call.tool_call_id)
                if (u.field_meta or {}).get("jupyter-plans")
            ]
            assert closed.status == "completed"
            assert closed.field_meta["jupyter-plans"]["answered"] in profile.approve
            # "Thanks!", the menu still on plan: its value goes again with the message.
            await plan_mode_from_the_client(run, agent, sid)
            await asyncio.wait_for(prompt(run, sid, "Thanks!"), PROMPT_TIMEOUT)
            assert person.snapshot()["mode"] == "default"
            assert [e.data["mode"] for e in person.events("mode_changed")] == ["plan", "default"]
            assert config_values(run.client).get(profile.plan_switch) != "plan"

    run_real(main())


@every_agent
def test_a_step_the_agent_rewords_keeps_its_id_and_its_comment(name, tmp_path):
    agent = real(name)
    dialect = agent.dialect
    script = [
        *dialect.load("TodoWrite"),
        *dialect.todos(STEPS),
        *dialect.say("That is the list."),
        *dialect.todos(REWORDED),
        *dialect.say("Reworded, as you asked."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            sid = (await run.new_session()).session_id
            answers = asyncio.ensure_future(answer_all(run.client, lambda asked: None))
            await prompt(run, sid, "List the steps")
            assert [s for s, _, _ in step_rows(person.snapshot())] == ["e1", "e2", "e3"]
            await person("comment", "e2", "only the rows with no amount", "alice")
            await prompt(run, sid, "Say which rows")
            answers.cancel()
            rows = step_rows(person.snapshot())
            assert [(s, d) for s, d, _ in rows] == list(
                zip(["e1", "e2", "e3"], REWORDED, strict=True)
            )
            (comment,) = person.snapshot()["comments"]
            assert comment["step_id"] == "e2"
            said = anchor_words(comment, person.snapshot()["plan"])
            assert said == f"on an earlier wording: {STEPS[1]}"

    run_real(main())


@pytest.mark.parametrize(
    "name",
    agents_where(lambda a: a.profile == "claude-agent-acp"),  # sends active forms
)
def test_a_first_proposal_takes_a_longer_items_words_for_an_active_form(name, tmp_path):
    """The first todo list's entry is in progress, in its active form only ("Reading the sales
    data"); the plan's item says more: the proposal's step is the item, all of it."""
    agent = real(name)
    dialect = agent.dialect
    plan = PLAN.replace(f"1. {STEPS[0]}", f"1. {LONGER}")
    script = [
        *dialect.load("TodoWrite", "ExitPlanMode"),
        *dialect.todos(STEPS, started=0),
        *dialect.propose(plan),
        *dialect.say("Keeping on planning."),
    ]

    async def main():
        async with behind_bridge(agent, tmp_path, script) as (run, person):
            await person("on")
            sid = (await run.new_session()).session_id
            turn = prompt(run, sid, "Clean the sales data")
            asked = await asked_in(run, turn, tmp_path)
            rows = step_rows(person.snapshot())
            assert [d for _, d, _ in rows] == [LONGER, *STEPS[1:]]
            asked.cancel()
            await asyncio.wait_for(turn, TIMEOUT)

    run_real(main())
