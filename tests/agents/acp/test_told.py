"""What the client is told of what the bridge answered in its place (DESIGN section 10, "the card
and the chat tell the same truth"): each refusal in the refused tool call's own update (status
failed, the refusal's line); the end of a turn's follow-ups in the chat and on the card; a
permission request the person decided on the card closed in the client."""

from __future__ import annotations

import asyncio
import json
import sys

from jupyter_plans.agents.acp.followup import ENDED
from jupyter_plans.agents.acp.wire import PERSON_METHOD
from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.plan.text import describe_event

from .harness import agent_log_option, answers_to, bridged, new_session, prompt, run, script

REFUSED = "Refused by the plan guard: "
CANCEL_ONLY = {  # a patch whose only reject ends the turn, as codex-acp's "Edit files" asks
    "toolCall": {"toolCallId": "patch-1", "title": "Edit files", "kind": "edit"},
    "options": [
        {"optionId": "approved", "name": "Yes", "kind": "allow_once"},
        {"optionId": "cancel", "name": "Cancel", "kind": "reject_once"},
    ],
}


def updates_of(client, tool_call_id: str) -> list:
    return [u for u in client.kinds("tool_call_update") if u.tool_call_id == tool_call_id]


def text_of(update) -> str:
    return " ".join(c.content.text for c in update.content or [])


def test_a_refusal_is_marked_refused_in_the_client(tmp_path, person):
    async def main():
        await person("on")
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"edit": "Write x.py"}))
            (update,) = updates_of(client, "call-1")
            assert update.status == "failed"
            assert text_of(update).startswith(REFUSED) and "'Write x.py'" in text_of(update)
            assert client.asked_all == []

    run(main())


def test_the_end_of_a_turns_follow_ups_is_said_in_the_chat_and_on_the_card(tmp_path, person):
    """An agent whose only reject ends its turn, refused again and again: after the third
    follow-up the turn ends, and both the refused call's update and the card say so."""
    scenario = tmp_path / "refused.json"
    planning = [{"raw_permission": CANCEL_ONLY}, {"end": "cancelled"}]
    scenario.write_text(json.dumps({"planning": planning, "working": []}), encoding="utf-8")
    agent = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent", "--report"]
    agent += ["--scenario", str(scenario), *agent_log_option(tmp_path)]

    async def main():
        await person("on")
        async with bridged(tmp_path, agent=agent) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await client.report("set_mode")
            done = await asyncio.wait_for(prompt(conn, sid, "Clean the sales data"), 30)
            assert done.stop_reason == "cancelled"
            said = updates_of(client, "patch-1")
            assert [u.status for u in said] == ["failed"] * 5
            assert all(text_of(u).startswith(REFUSED) for u in said[:4])
            assert text_of(said[-1]) == ENDED
            data = card_data(person.session, "a.ipynb")
            assert (data["activity"], data["agent"]["ended"]) == ("chat", ENDED)
            assert ENDED in card_html(data)
            # The next turn starts afresh: the card no longer says why the last one ended.
            await prompt(conn, sid, script({"say": "hello"}))
            assert card_data(person.session, "a.ipynb")["agent"]["ended"] is None

    run(main())


def test_a_request_decided_on_the_card_is_closed_in_the_client(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await client.report("set_mode")
            running = prompt(conn, sid, script({"exit_plan_mode": "# Plan\n\n1. Fit"}))
            asked = await client.next_asked()
            await person("approve", person.snapshot()["pending_proposal_hash"])
            await asyncio.wait_for(running, 10)
            (update,) = updates_of(client, asked.tool_call.tool_call_id)
            assert update.status == "completed"
            assert text_of(update).startswith("Approved outside this chat")
            assert update.field_meta == {"jupyter-plans": {"answered": "default"}}
            asked.choose("default")  # what the client's persona does with it: ignored
            await asyncio.sleep(0.3)  # on purpose: the late answer goes nowhere, in this while
            assert [len(a) for a in answers_to(tmp_path, "session/request_permission")] == [1]

    run(main())


def test_the_chats_display_name_is_shown_beside_its_username(tmp_path, person):
    """Jupyter AI's persona names the message's sender and their display name: a decision in
    the chat records the username, with the display name beside it for the card."""

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            params = {"sessionId": sid, "name": "dana", "display": "Dana Scully"}
            await conn.ext_notification(PERSON_METHOD[1:], params)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            (on,) = person.events("mode_changed")
            assert on.data["by"] == {"name": "dana", "via": "acp-client", "display": "Dana Scully"}
            assert "by dana (Dana Scully) in the ACP client" in describe_event(on)

    run(main())
