"""The bridge under a hostile or careless peer: a lone surrogate, a request id used again, a line
over the limit, and, in plan mode, writes the guard cannot read. Each gets one clear answer,
nothing reaches the other side that should not, and the bridge goes on."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from acp import RequestError, text_block

from .harness import TIMEOUT, bridged, new_session, prompt, run, script, until

RAW = [sys.executable, "-m", "tests.agents.acp.raw_agent"]


def raw_agent(tmp_path, *lines) -> list[str]:
    """The raw agent's command, sending LINES on each prompt; its log is tmp_path/raw.jsonl."""
    path = tmp_path / "raw-script.json"
    path.write_text(json.dumps(list(lines)), encoding="utf-8")
    return [*RAW, str(path), str(tmp_path / "raw.jsonl")]


def raw_log(tmp_path) -> list:
    path = tmp_path / "raw.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_lone_surrogate_in_a_plan_and_a_proposal_is_passed_on_and_recorded(tmp_path, person):
    """JavaScript writes "\\ud800" when it cuts a string inside an emoji."""

    async def main():
        await person("on")
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            plan = {"raw_plan": [{"content": "Plot \ud800 it", "status": "pending"}]}
            exit_plan = {"exit_plan_mode": "# Plan\n\nPlot \ud800 the data.\n"}
            running = prompt(conn, sid, script(plan, exit_plan))
            asked = await client.next_asked()
            updates = [
                m["params"]["update"] for m in client.raw_in if m.get("method") == "session/update"
            ]
            passed = [u for u in updates if u.get("sessionUpdate") == "plan"]
            assert passed[0]["entries"][0]["content"] == "Plot \ud800 it"  # passed on as sent
            snapshot = person.snapshot()
            assert snapshot["plan"]["steps"][0]["description"] == "Plot \ufffd it"
            assert snapshot["plan"]["explanation"] == "Plot \ufffd the data."
            assert snapshot["pending_proposal_hash"] is not None
            asked.choose("plan")
            await asyncio.wait_for(running, TIMEOUT)

    run(main())


def test_a_request_id_used_again_gets_the_clients_answer(tmp_path, person):
    """A proposal request answered by the person, then an edit request with the same id in
    default mode: the client's answer to the second reaches the agent."""
    exit_plan = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "session/request_permission",
        "params": {
            "sessionId": "raw-1",
            "toolCall": {
                "toolCallId": "c1",
                "title": "Ready?",
                "kind": "switch_mode",
                "rawInput": {"plan": "# Plan\n\nDo it."},
            },
            "options": [
                {"optionId": "default", "name": "Yes", "kind": "allow_once"},
                {"optionId": "plan", "name": "No", "kind": "reject_once"},
            ],
        },
    }
    edit = {
        **exit_plan,
        "params": {
            **exit_plan["params"],
            "toolCall": {"toolCallId": "c2", "title": "Write x.py", "kind": "edit"},
        },
    }

    async def main():
        await person("on")
        agent = raw_agent(tmp_path, exit_plan)
        async with bridged(tmp_path, agent=agent) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            running = prompt(conn, sid, "go")
            await client.next_asked()
            await person("approve", person.snapshot()["pending_proposal_hash"])
            await asyncio.wait_for(running, TIMEOUT)
            (tmp_path / "raw-script.json").write_text(json.dumps([edit]))
            running = prompt(conn, sid, "go on")
            asked = await client.next_asked()
            assert asked.tool_call.title == "Write x.py"
            asked.choose("default")
            await asyncio.wait_for(running, TIMEOUT)
            answers = [m for m in raw_log(tmp_path) if m.get("id") == 5 and "result" in m]
            assert [a["result"]["outcome"]["optionId"] for a in answers] == ["default", "default"]

    run(main())


def test_a_line_over_the_limit_is_answered_with_an_error_and_dropped_whole(tmp_path, person):
    async def main():
        agent = raw_agent(tmp_path)
        async with bridged(tmp_path, agent=agent) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            huge = "x" * (50 * 1024 * 1024 + 10)
            with pytest.raises(RequestError) as refused:
                await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block(huge)]), 60)
            assert refused.value.code == -32600
            assert "over" in str(refused.value)
            # Nothing of it reached the agent, and the bridge goes on.
            response = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block("hi")]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"
            log = raw_log(tmp_path)
            assert [m.get("method") for m in log] == ["initialize", "session/new", "session/prompt"]

    run(main())


def test_in_plan_mode_writes_the_guard_cannot_read_are_refused(tmp_path, person):
    """A write without an id, a permission request with no options or an unknown option kind,
    and a batch: none reaches the client, each is recorded."""
    write = {
        "jsonrpc": "2.0",
        "method": "fs/write_text_file",
        "params": {"sessionId": "raw-1", "path": str(tmp_path / "x.py"), "content": "x"},
    }
    no_options = {
        "jsonrpc": "2.0",
        "id": 11,
        "method": "session/request_permission",
        "params": {
            "sessionId": "raw-1",
            "options": [],
            "toolCall": {"toolCallId": "c1", "title": "Run rm", "kind": "execute"},
        },
    }
    odd_kind = {
        **no_options,
        "id": 12,
        "params": {
            **no_options["params"],
            "options": [{"optionId": "go", "name": "Go", "kind": "allow_forever"}],
        },
    }
    batch = [
        {
            "jsonrpc": "2.0",
            "id": 13,
            "method": "fs/write_text_file",
            "params": {"sessionId": "raw-1", "path": str(tmp_path / "y.py"), "content": "y"},
        }
    ]

    async def main():
        await person("on")
        agent = raw_agent(tmp_path, write, no_options, odd_kind, batch)
        async with bridged(tmp_path, agent=agent) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("go")]), TIMEOUT)

            def answers() -> dict | None:
                log = raw_log(tmp_path)
                found = {m["id"]: m for m in log if isinstance(m, dict) and "result" in m}
                return found if {11, 12} <= set(found) else None

            by_id = await until(answers, what="the answers to requests 11 and 12")
            await until(lambda: len(person.events("tool_finished")) == 4, what="4 refusals")
            assert client.writes == [] and client.asked_all == []
            assert by_id[11]["result"]["outcome"] == {"outcome": "cancelled"}
            assert by_id[12]["result"]["outcome"] == {"outcome": "cancelled"}
            refused = [e.data["name"] for e in person.events("tool_finished")]
            assert refused == [
                "fs/write_text_file",
                "Run rm",
                "session/request_permission",
                "jsonrpc batch",
            ]

    run(main())
