"""Plan mode follows the agent's modes: the person's `on` and `off` (any surface) set the
agent's mode, and the client's own switch into or out of `plan` is the person's `on` or `off`."""

from __future__ import annotations

import asyncio

from jupyter_plans.agents.acp.followup import STOPPED
from jupyter_plans.card.guards import UNGUARDED_HEADLINE, unguarded_note
from jupyter_plans.plan.who import local_person
from tests import waiting

from .harness import agent_log, answers_to, bridged, new_session, prompt, run, script, until

# The person who answers in the ACP client: the bridge's user (DESIGN section 12).
CLIENT = {"name": local_person(), "via": "acp-client"}

PLAN = [["Read the data", "pending"], ["Fit", "pending"]]


def test_the_persons_on_sets_the_agent_to_plan(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            assert (await client.report("set_mode"))["mode"] == "plan"
            await asyncio.sleep(0.3)  # on purpose: nothing more comes of it, in this while
            assert [r["mode"] for r in client.reports("set_mode")] == ["plan"]
            (update,) = client.kinds("current_mode_update")  # the client is told
            assert update.current_mode_id == "plan"
            assert client.updates[-1][0] == sid

    run(main())


def test_a_new_agent_session_follows_a_session_already_in_plan_mode(tmp_path, person):
    async def main():
        await person("on")
        async with bridged(tmp_path) as (client, conn, _):
            await new_session(conn, tmp_path)
            assert (await client.report("set_mode"))["mode"] == "plan"

    run(main())


def test_the_persons_off_cancels_the_running_prompt_and_sets_default(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await client.report("set_mode")
            running = prompt(conn, sid, script({"wait_cancel": 15}))
            await client.report("prompt")
            await person("off")
            response = await asyncio.wait_for(running, 10)
            assert response.stop_reason == "cancelled"
            assert (await client.report("wait_cancel"))["cancelled"] is True
            assert (await client.report("set_mode", 2))["mode"] == "default"
            assert person.snapshot()["mode"] == "default"

    run(main())


def test_a_prompt_at_once_after_the_persons_on_reaches_the_agent_in_plan_mode(tmp_path, person):
    """The person's `on` on another surface and the client's prompt at once: the prompt goes to
    the agent only after the agent has answered the bridge's switch into plan mode, so the turn
    cannot begin, and run its first edit, in the mode before."""

    async def main():
        async with bridged(tmp_path) as (_client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await asyncio.wait_for(prompt(conn, sid, script()), 10)
        log = [(e["direction"], e["message"]) for e in agent_log(tmp_path)]
        (switch_at, switch), *_ = [
            (at, m)
            for at, (way, m) in enumerate(log)
            if way == "incoming" and m.get("method") == "session/set_mode"
        ]
        assert switch["params"]["modeId"] == "plan"
        (answered_at,) = [
            at
            for at, (way, m) in enumerate(log)
            if way == "outgoing" and m.get("id") == switch["id"] and "method" not in m
        ]
        (prompt_at,) = [at for at, (_, m) in enumerate(log) if m.get("method") == "session/prompt"]
        assert switch_at < answered_at < prompt_at, [m.get("method", "answer") for _, m in log]

    run(main())


def test_the_persons_on_during_a_turn_that_keeps_its_mode_stops_and_follows_it_up(tmp_path, person):
    """The scripted agent has the default profile, for which a turn keeps the mode it began in:
    the person's `on` while a turn runs cancels that turn, and the bridge follows it up in plan
    mode with the guard's words (never the person's); the client's prompt ends with it."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            running = prompt(conn, sid, script({"wait_cancel": 15}))
            await client.report("prompt")
            await person("on")
            response = await asyncio.wait_for(running, 20)
            assert (await client.report("wait_cancel"))["cancelled"] is True
            assert response.stop_reason == "end_turn"
        log = [(e["direction"], e["message"]) for e in agent_log(tmp_path)]
        got = [(at, m) for at, (way, m) in enumerate(log) if way == "incoming"]
        prompts = [(at, m) for at, m in got if m.get("method") == "session/prompt"]
        assert len(prompts) == 2, [m.get("method") for _, m in got]
        (follow_up_at, follow_up) = prompts[1]
        assert follow_up["params"]["prompt"][0]["text"].startswith(STOPPED)
        (switch_at,) = [at for at, m in got if m.get("method") == "session/set_mode"]
        assert switch_at < follow_up_at

    run(main())


def test_the_clients_switch_to_plan_is_the_persons_on(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            assert person.snapshot()["mode"] == "plan"
            await client.report("set_mode")
            await asyncio.sleep(0.3)  # on purpose: no second request comes, in this while
            # The agent got the client's own request, and no second one from the bridge.
            assert [r["mode"] for r in client.reports("set_mode")] == ["plan"]
            assert len(person.events("mode_changed")) == 1

    run(main())


def test_the_clients_switch_out_of_plan_while_a_proposal_waits_is_the_persons_off(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            running = prompt(conn, sid, script({"plan": PLAN}, {"exit_plan_mode": "# Plan"}))
            asked = await client.next_asked()
            digest = person.snapshot()["pending_proposal_hash"]
            assert digest is not None
            await conn.set_session_mode(session_id=sid, mode_id="acceptEdits")
            # off answers the waiting request `cancelled` ...
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "cancelled"}
            assert (await asyncio.wait_for(running, 10)).stop_reason == "cancelled"
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("default", None)
            assert [e.data for e in person.events("decision")] == [
                {"action": "left", "hash": digest, "by": CLIENT}
            ]
            # ... the client's later answer is ignored, and the agent keeps the client's mode.
            asked.choose("acceptEdits")
            await asyncio.sleep(0.3)  # on purpose: the late answer goes nowhere, in this while
            assert [len(a) for a in answers_to(tmp_path, "session/request_permission")] == [1]
            assert [r["mode"] for r in client.reports("set_mode")] == ["plan", "acceptEdits"]

    run(main())


def test_the_agent_entering_plan_mode_by_itself_is_on_and_leaving_it_unapproved_is_undone(
    tmp_path, person
):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            # Its own switch into plan mode (Claude Code's EnterPlanMode) is the person's on.
            await prompt(conn, sid, script({"mode": "plan"}))
            assert person.snapshot()["mode"] == "plan"
            assert [e.data["mode"] for e in person.events("mode_changed")] == ["plan"]
            assert client.reports("set_mode") == []  # it is there already
            # Its switch out with no approval is no decision: plan mode holds, and it is put
            # back; the guard still refuses its edit.
            await prompt(conn, sid, script({"mode": "acceptEdits"}, {"edit": "Write x.py"}))
            assert (await client.report("set_mode"))["mode"] == "plan"
            assert (await client.report("edit"))["outcome"]["optionId"] == "reject"
            assert person.snapshot()["mode"] == "plan"
            # The person's off gives it back the mode it had before plan mode.
            await person("off")
            assert (await client.report("set_mode", 2))["mode"] == "default"

    run(main())


def test_an_agent_that_approves_itself_and_cannot_be_made_to_ask_is_said_so(tmp_path, person):
    async def main():
        args = ["--start-mode", "bypassPermissions"]
        async with bridged(tmp_path, agent_args=args) as (client, conn, _):
            await new_session(conn, tmp_path)
            await until(lambda: person.events("agent_unguarded"), what="the unguarded notice")
            (event,) = person.events("agent_unguarded")
            assert "'bypassPermissions'" in event.data["text"]
            assert "its own promise" in event.data["text"]
            assert person.session.unguarded_text() == event.data["text"]
            await new_session(conn, tmp_path)  # said once per bridge
            await asyncio.sleep(0.3)  # on purpose: no second notice comes, in this while
            assert len(person.events("agent_unguarded")) == 1
            # The card and the panel say it while plan mode holds, and only then.
            assert unguarded_note(person.session, person.snapshot()) is None
            await person("on")
            note = unguarded_note(person.session, person.snapshot())
            assert note == f"{UNGUARDED_HEADLINE}\n{event.data['text']}"
        lines = (tmp_path / "bridge.stderr").read_text().splitlines()
        assert sum("its own promise" in line for line in lines) == 1

    run(main())


def test_a_continued_session_gets_back_the_mode_that_asked(tmp_path, person):
    """An earlier bridge ran the agent in a mode that asks (the person's approval kept edits
    asking); the agent comes back (a page reloaded, its process made again) in a mode that
    approves itself for the session it continues: it is given the mode it had, and the client
    and the card are told. A new session keeps the agent's own first mode."""
    earlier = {"agent": "Scripted agent", "mode": None, "working": False, "last_mode": "default"}

    async def main():
        await person("record_agent_status", earlier)
        args = ["--start-mode", "bypassPermissions"]
        async with bridged(tmp_path, agent_args=args) as (client, conn, _):
            loaded = await asyncio.wait_for(
                conn.load_session(cwd=str(tmp_path), session_id="kept", mcp_servers=[]), 20
            )
            assert loaded.modes.current_mode_id == "bypassPermissions"
            assert (await client.report("set_mode"))["mode"] == "default"
            await until_mode(person, "default")
            # The client is told too (its update may come a moment after the agent's answer).
            told = lambda: [u.current_mode_id for u in client.kinds("current_mode_update")]  # noqa: E731
            assert await waiting.until(told, "the client told of the mode") == ["default"]
            await new_session(conn, tmp_path)
            await until_mode(person, "bypassPermissions")
            await asyncio.sleep(0.3)  # on purpose: no mode is asked for it, in this while
            assert [r["mode"] for r in client.reports("set_mode")] == ["default"]

    run(main())


async def until_mode(person, mode: str) -> None:
    await until(lambda: person.snapshot()["agent_mode"] == mode, what=f"agent_mode {mode}")


def test_the_clients_mode_sent_again_with_a_message_is_no_switch(tmp_path, person):
    """Jupyter AI sends its mode menu's value with every message: plan chosen in the menu, the
    plan approved on the card, then the next message with the menu still on plan. That is no
    switch: the session stays out of plan mode, the agent keeps its mode, and the client is
    told the mode the agent is in."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            assert person.snapshot()["mode"] == "plan"
            running = prompt(conn, sid, script({"exit_plan_mode": "# Plan\n\n1. Fit"}))
            await client.next_asked()
            await person("approve", person.snapshot()["pending_proposal_hash"])
            await asyncio.wait_for(running, 10)
            assert person.snapshot()["mode"] == "default"
            told_before = len(client.kinds("current_mode_update"))
            await conn.set_session_mode(session_id=sid, mode_id="plan")  # "Thanks!"
            await prompt(conn, sid, "Thanks!")
            assert person.snapshot()["mode"] == "default"
            assert [e.data["mode"] for e in person.events("mode_changed")] == ["plan", "default"]
            assert [r["mode"] for r in client.reports("set_mode")] == ["plan"]  # never passed on
            told = [u.current_mode_id for u in client.kinds("current_mode_update")]
            assert told[told_before:] == ["default"]
            # A value the client did not send before is a switch again.
            await conn.set_session_mode(session_id=sid, mode_id="acceptEdits")
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            assert person.snapshot()["mode"] == "plan"

    run(main())


def test_the_agents_own_switch_while_the_bridge_sets_plan_is_undone(tmp_path, person):
    """The agent takes a mode by itself while the bridge's set_mode(plan) is in flight (its
    update comes before the answer): the bridge's echo check must not swallow it. Plan mode
    holds, so the agent is put back in plan, and the client is told plan last."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"stray": "acceptEdits"}))
            await person("on")
            assert (await client.report("set_mode", 2))["mode"] == "plan"
            await asyncio.sleep(0.3)  # on purpose: nothing more comes of it, in this while
            assert [r["mode"] for r in client.reports("set_mode")] == ["plan", "plan"]
            told = [u.current_mode_id for u in client.kinds("current_mode_update")]
            assert told[-1] == "plan" and "acceptEdits" in told
            assert person.snapshot()["agent_mode"] == "plan"

    run(main())


def test_the_card_never_says_edits_ask_while_another_session_runs_without_asking(tmp_path, person):
    """Two ACP sessions of one agent on one plan: one runs bypassPermissions, the other is set
    to default. The card shows the mode in which nothing asks, not "edits ask"."""

    async def main():
        args = ["--start-mode", "bypassPermissions"]
        async with bridged(tmp_path, agent_args=args) as (client, conn, _):
            first = await new_session(conn, tmp_path)
            await prompt(conn, first, "Hello")
            second = await new_session(conn, tmp_path)
            await conn.set_session_mode(session_id=second, mode_id="default")
            await client.report("set_mode")
            await asyncio.sleep(0.3)  # on purpose: the status is recorded, in this while
            status = person.session.agent_status()
            assert (status["mode"], status["asks"]) == ("bypassPermissions", False)
            assert person.snapshot()["agent_mode"] == "bypassPermissions"

    run(main())
