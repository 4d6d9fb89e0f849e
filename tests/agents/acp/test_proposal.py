"""The agent's ExitPlanMode request as the session's proposal, and the first answer wins: the
person's on any surface, or the client's."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_plans import DecisionRefused
from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.plan.who import local_person

from .harness import answers_to, bridged, new_session, prompt, run, script, until
from .proposing import MARKDOWN, proposal

# The person who answers in the ACP client: the bridge's user (DESIGN section 12).
CLIENT = {"name": local_person(), "via": "acp-client"}


def test_the_request_to_leave_plan_mode_becomes_the_proposal(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            # The client gets the agent's request as it was.
            assert (asked.tool_call.title, asked.tool_call.kind) == (
                "Ready to code?",
                "switch_mode",
            )
            assert [(o.option_id, o.kind) for o in asked.options] == [
                ("acceptEdits", "allow_always"),
                ("default", "allow_once"),
                ("plan", "reject_once"),
            ]
            snapshot = person.snapshot()
            plan = snapshot["plan"]
            assert snapshot["pending_proposal_hash"] is not None
            assert (
                plan["explanation"]
                == "Fit a linear model to the sales data, then check its residuals."
            )
            assert [(s["id"], s["description"], s["status"]) for s in plan["steps"]] == [
                ("e1", "Read the CSV", "pending"),
                ("e2", "Fit a model", "pending"),
                ("e3", "Plot residuals", "pending"),
            ]
            updated, submitted = person.events()[-2:]
            assert (updated.kind, updated.data["name"]) == ("plan_updated", "plan_submit")
            assert submitted.kind == "proposal_submitted"
            assert submitted.data["hash"] == snapshot["pending_proposal_hash"]
            assert submitted.data["text"] == MARKDOWN  # the whole text is kept
            # The card says the proposal is an ACP agent's, and what Approve answers it.
            card = card_data(person.session, None)
            assert card["bridged"] == {"approve": "Yes, and manually approve edits"}
            assert "approving answers it &ldquo;Yes, and manually approve edits&rdquo;" in (
                card_html(card)
            )
            asked.cancel()
            await running
            await person("approve", snapshot["pending_proposal_hash"])
            assert card_data(person.session, None)["bridged"] is None  # nothing waits now

    run(main())


def test_the_explanation_is_cut_to_500_bytes(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            markdown = "ж" * 400 + "\n\nmore"
            _, running, asked = await proposal(client, conn, person, tmp_path, markdown)
            explanation = person.snapshot()["plan"]["explanation"]
            assert len(explanation.encode()) <= 500 and explanation.startswith("ж" * 240)
            asked.cancel()
            await running

    run(main())


def test_the_persons_approve_answers_allow_once_and_the_clients_later_answer_is_ignored(
    tmp_path, person
):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            digest = person.snapshot()["pending_proposal_hash"]
            await person("approve", digest)
            report = await client.report("exit_plan_mode")
            # allow_once (edits still ask), never the allow_always option listed first.
            assert report["outcome"] == {"outcome": "selected", "optionId": "default"}
            asked.choose("acceptEdits")  # too late: ignored
            await running
            await asyncio.sleep(0.3)  # on purpose: the late answer goes nowhere, in this while
            assert len(client.reports("exit_plan_mode")) == 1
            ((answer,),) = answers_to(tmp_path, "session/request_permission")
            assert answer["result"]["outcome"]["optionId"] == "default"
            assert client.kinds("current_mode_update")[-1].current_mode_id == "default"
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["approved_proposal_hash"]) == ("default", digest)

    run(main())


def test_revise_answers_reject_and_its_notes_open_the_next_prompt(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid, running, asked = await proposal(client, conn, person, tmp_path)
            await person("revise", "Use a log scale\nfor the residuals")
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "plan"}
            asked.choose("default")  # too late: ignored
            await running
            assert person.snapshot()["mode"] == "plan"
            await prompt(conn, sid, "go on")
            texts = (await client.report("prompt", 2))["texts"]
            assert texts == ["Use a log scale\nfor the residuals", "go on"]
            assert [len(a) for a in answers_to(tmp_path, "session/request_permission")] == [1]

    run(main())


def test_notes_come_before_the_context_block(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            await person("revise", "Add a holdout set")
            await client.report("exit_plan_mode")
            asked.cancel()
            await running
            other = await new_session(conn, tmp_path)
            await prompt(conn, other, "hello")
            texts = (await client.report("prompt", 2))["texts"]
            assert texts[0] == "Add a holdout set"
            assert texts[1].startswith("<plan_context")
            assert texts[2:] == ["hello"]

    run(main())


def test_the_persons_off_answers_cancelled(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            await person("off")
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "cancelled"}
            assert (await asyncio.wait_for(running, 10)).stop_reason == "cancelled"
            assert (await client.report("set_mode", 2))["mode"] == "default"
            asked.choose("acceptEdits")
            await asyncio.sleep(0.3)  # on purpose: the late answer goes nowhere, in this while
            assert [len(a) for a in answers_to(tmp_path, "session/request_permission")] == [1]

    run(main())


def test_the_clients_allow_is_the_persons_approval_with_the_option_it_chose(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            digest = person.snapshot()["pending_proposal_hash"]
            asked.choose("acceptEdits")
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "acceptEdits"}
            await running
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["approved_proposal_hash"]) == ("default", digest)
            with pytest.raises(DecisionRefused):  # later, from the card: nothing waits
                await person("approve", digest)
            # The notice the approval queued says what is so: edits no longer ask.
            (notice,) = [
                e.data["text"]
                for e in person.events("message_queued")
                if e.data.get("source") == "notice"
            ]
            assert "still asks" not in notice
            assert "'Yes, and auto-accept edits'" in notice and "no longer ask" in notice

    run(main())


def test_the_clients_reject_is_revise_with_no_notes(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, asked = await proposal(client, conn, person, tmp_path)
            digest = person.snapshot()["pending_proposal_hash"]
            cursor = person.snapshot()["cursor"]
            asked.choose("plan")
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "plan"}
            await running
            after = person.events(after=cursor)
            assert [(e.kind, e.data) for e in after if e.kind != "agent_status"] == [
                ("decision", {"action": "changes_requested", "hash": digest, "by": CLIENT})
            ]
            # The turn is over: the agent waits for the person's next message.
            assert [e.data["working"] for e in after if e.kind == "agent_status"] == [False]
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("plan", None)

    run(main())


async def _approve(person, digest: str, delay: float) -> None:
    await asyncio.sleep(max(0.0, delay))  # on purpose: the race's lead
    try:
        await person("approve", digest)
    except DecisionRefused:
        pass  # the client's answer came first


async def _reject(asked, delay: float) -> None:
    await asyncio.sleep(max(0.0, delay))  # on purpose: the race's lead
    asked.choose("plan")


@pytest.mark.parametrize("rounds", [8])
def test_the_race_of_the_clients_answer_and_the_persons_approve(tmp_path, person, rounds):
    """Both answer at about the same moment, the person ahead by `lead` seconds (behind when
    negative): exactly one decision is taken, and the agent gets the winner's answer."""
    leads = [-0.15, 0.15, 0.0, 0.002, -0.002, 0.01, -0.01, 0.0][:rounds]

    async def main():
        winners = []
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            modes_set = 0  # the set_mode requests the agent has reported
            for number, lead in enumerate(leads, start=1):
                await person("on")
                modes_set += 1
                assert (await client.report("set_mode", modes_set))["mode"] == "plan"
                entries = [[f"round {number}", "pending"]]
                running = prompt(
                    conn, sid, script({"plan": entries}, {"exit_plan_mode": f"Round {number}"})
                )
                asked = await client.next_asked()
                digest = person.snapshot()["pending_proposal_hash"]
                cursor = person.snapshot()["cursor"]

                await asyncio.gather(_approve(person, digest, -lead), _reject(asked, lead))
                outcome = (await client.report("exit_plan_mode", number))["outcome"]
                await running
                decisions = [e.data for e in person.events("decision", after=cursor)]
                assert len(decisions) == 1, decisions
                assert decisions[0]["hash"] == digest
                expected = {"approved": "default", "changes_requested": "plan"}[
                    decisions[0]["action"]
                ]
                assert outcome == {"outcome": "selected", "optionId": expected}
                winners.append(decisions[0]["action"])
                if decisions[0]["action"] == "changes_requested":  # approval left plan mode
                    await person("off")
                    modes_set += 1
                    assert (await client.report("set_mode", modes_set))["mode"] == "default"
            await asyncio.sleep(0.3)  # on purpose: no loser's answer comes, in this while
            assert len(client.reports("exit_plan_mode")) == len(leads)
        # The loser's answer never reached the agent.
        answers = answers_to(tmp_path, "session/request_permission")
        assert [len(a) for a in answers] == [1] * len(leads)
        # What the bridge wrote folds back into the snapshot, as every session's events do.
        from jupyter_plans.plan.fold import fold

        assert fold("s", person.events()) == person.session.snapshot()
        assert set(winners) == {"approved", "changes_requested"}, winners

    run(main())


def test_an_approval_the_agent_had_as_its_allow_option_is_not_repeated(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid, running, asked = await proposal(client, conn, person, tmp_path)
            await person("approve", person.snapshot()["pending_proposal_hash"])
            await client.report("exit_plan_mode")
            asked.cancel()
            await running
            # The bridge read the approval's events before it answered the agent (watch.py).
            await prompt(conn, sid, "next")
            assert (await client.report("prompt", 2))["texts"] == ["next"]
            assert person.session.waiting_messages() == []  # taken all the same

    run(main())


def test_a_notice_of_another_agents_approval_opens_the_prompt_framed(tmp_path, person):
    """A proposal made without the agent's request (through the session's own tool, as an MCP
    client would): its approval notice reaches the agent, never as the person's words."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, "hello")
            await person("on")
            args = {
                "explanation": "E",
                "findings": [],
                "objectives": [],
                "steps": [{"id": "a", "description": "Do A", "status": "pending"}],
            }
            assert not (await person("call_tool", "plan_submit", args)).is_error
            await person("approve")
            await prompt(conn, sid, "go")
            texts = (await client.report("prompt", 2))["texts"]
            assert texts[0].startswith("A notice from the plan session (not the person's words):")
            assert "[a] Do A" in texts[0] and texts[1:] == ["go"]

    run(main())


def test_without_a_plan_from_the_agent_the_proposal_takes_the_stored_steps(tmp_path, person):
    async def main():
        steps = [{"id": "load", "description": "Load", "status": "completed"}]
        assert not (
            await person("call_tool", "update_plan", {"expected_revision": 0, "steps": steps})
        ).is_error
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await client.report("set_mode")
            running = prompt(conn, sid, script({"exit_plan_mode": "Plan"}))
            asked = await client.next_asked()
            plan = person.snapshot()["plan"]
            assert [(s["id"], s["status"]) for s in plan["steps"]] == [("load", "pending")]
            asked.choose("default")
            await running
            assert person.snapshot()["approved_proposal_hash"] is not None

    run(main())


def test_an_approval_answers_only_the_agent_whose_proposal_it_names(tmp_path, person):
    """Two bridges on one session: agent B proposes, then agent A (the session now waits on
    A's). Approving A's hash answers A with its allow option and B as superseded, with its
    reject option; the same when the newer proposal comes from a plan_submit call."""
    db = str(tmp_path / "a.plans.sqlite")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    async def main():
        await person("on")
        async with bridged(tmp_path / "b", "--db", db) as (client_b, conn_b, _):
            async with bridged(tmp_path / "a", "--db", db) as (client_a, conn_a, _):
                sid_b = await new_session(conn_b, tmp_path)
                sid_a = await new_session(conn_a, tmp_path)
                running_b = prompt(conn_b, sid_b, script({"exit_plan_mode": "# B\n\nB's plan."}))
                await client_b.next_asked()
                b_hash = person.snapshot()["pending_proposal_hash"]
                running_a = prompt(conn_a, sid_a, script({"exit_plan_mode": "# A\n\nA's plan."}))
                await client_a.next_asked()
                a_hash = person.snapshot()["pending_proposal_hash"]
                assert a_hash != b_hash
                await person("approve", a_hash)
                report_a = await client_a.report("exit_plan_mode")
                report_b = await client_b.report("exit_plan_mode")
                assert report_a["outcome"] == {"outcome": "selected", "optionId": "default"}
                assert report_b["outcome"] == {"outcome": "selected", "optionId": "plan"}
                await asyncio.wait_for(asyncio.gather(running_a, running_b), 10)

    run(main())


def test_a_plan_submit_after_the_agents_request_supersedes_it(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, _ = await proposal(client, conn, person, tmp_path)
            result = await person(
                "call_tool",
                "plan_submit",
                {
                    "explanation": "Another plan",
                    "findings": [],
                    "objectives": [],
                    "steps": [{"id": "s1", "description": "Something else"}],
                },
            )
            assert not result.is_error, result.content
            other = person.snapshot()["pending_proposal_hash"]
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "plan"}
            await person("approve", other)
            await asyncio.wait_for(running, 10)
            assert len(client.reports("exit_plan_mode")) == 1

    run(main())


def test_the_persons_edit_of_the_waiting_proposal_keeps_the_agents_request_waiting(
    tmp_path, person
):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, _ = await proposal(client, conn, person, tmp_path)
            snapshot = person.snapshot()
            before = snapshot["pending_proposal_hash"]
            change = {
                "expected_revision": snapshot["plan"]["revision"],
                "explanation": "Fit a robust model instead.",
                "steps": [
                    {"id": s["id"], "description": s["description"]}
                    for s in snapshot["plan"]["steps"]
                ],
            }
            await person("edit_plan", change)
            edited = person.snapshot()["pending_proposal_hash"]
            assert edited not in (None, before)
            await asyncio.sleep(0.3)  # on purpose: no answer comes, in this while
            assert client.reports("exit_plan_mode") == []  # still waiting, now on the edit
            await person("approve", edited)
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "default"}
            await asyncio.wait_for(running, 10)

    run(main())


def test_a_proposal_whose_agent_is_gone_is_dropped_and_plan_mode_stays(tmp_path, person):
    """The bridge ends (its client or agent gone) while its agent's proposal waits: nobody is
    left to answer it, so it is dropped, and no later agent is told it was approved."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            _, running, _ = await proposal(client, conn, person, tmp_path)
            digest = person.snapshot()["pending_proposal_hash"]
            running.cancel()
        await until(  # the bridge's process ends after its client
            lambda: person.snapshot()["pending_proposal_hash"] is None, what="it dropped"
        )
        snapshot = person.snapshot()
        assert (snapshot["mode"], snapshot["pending_proposal_hash"]) == ("plan", None)
        (decision,) = [e.data for e in person.events("decision")]
        assert decision["action"] == "dropped" and decision["hash"] == digest
        assert "gone" in decision["why"]
        with pytest.raises(DecisionRefused):
            await person("approve", digest)

    run(main())


def test_a_second_proposal_of_markdown_only_takes_its_own_list(tmp_path, person):
    """An agent that sends no todo list (Codex in plan mode): each proposal's steps are its own
    Markdown's list, never an earlier proposal's; a reworded item keeps its step's id."""
    first = "# Plan\n\nClean it.\n\n1. Read the data\n2. Drop empty rows\n"
    second = "# Plan\n\nClean it.\n\n1. Read the data\n2. Drop the rows with no amount\n"

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await client.report("set_mode")
            running = prompt(conn, sid, script({"exit_plan_mode": first}))
            await client.next_asked()
            await person("revise", "say which rows")
            await running
            running = prompt(conn, sid, script({"exit_plan_mode": second}))
            await client.next_asked()
            steps = person.snapshot()["plan"]["steps"]
            assert [(s["id"], s["description"]) for s in steps] == [
                ("e1", "Read the data"),
                ("e2", "Drop the rows with no amount"),
            ]
            await person("off")
            await running

    run(main())
