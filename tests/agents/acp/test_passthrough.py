"""Pass-through: every message the bridge has no rule for goes through unchanged, both ways,
with its id; the client sees the agent's own updates, permission requests and results."""

from __future__ import annotations

import asyncio
import json
import sys

from .harness import (
    AGENT,
    ROOT,
    TIMEOUT,
    agent_log,
    agent_log_option,
    bridged,
    new_session,
    prompt,
    run,
    script,
)


def _sent(log: list[dict], direction: str) -> list[dict]:
    return [entry["message"] for entry in log if entry["direction"] == direction]


def test_the_agents_messages_reach_the_client_unchanged(tmp_path):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, "hello")  # the first prompt carries the context block
            task = prompt(
                conn,
                sid,
                script({"say": "ünïcode ✓"}, {"edit": "Edit a.py"}, {"write": ["a.py", "x = 1\n"]}),
            )
            asked = await client.next_asked()  # not in plan mode: the client is asked
            assert (asked.tool_call.title, asked.tool_call.kind) == ("Edit a.py", "edit")
            asked.choose("allow")
            await task
            assert client.writes == [("a.py", "x = 1\n")]
            assert (await client.report("edit"))["outcome"] == {
                "outcome": "selected",
                "optionId": "allow",
            }
        log = agent_log(tmp_path)
        agent_sent, agent_got = _sent(log, "outgoing"), _sent(log, "incoming")
        # Everything the agent sent reached the client as it was, ids included ...
        assert agent_sent == client.raw_in
        # ... and everything the client sent reached the agent as it was, but the first
        # prompt, which the context block opens.
        first_prompt = next(m for m in client.raw_out if m.get("method") == "session/prompt")
        assert [m for m in client.raw_out if m is not first_prompt] == [
            m for m in agent_got if m.get("id") != first_prompt["id"] or "method" not in m
        ]

    run(main())


def test_ids_of_any_type_and_unknown_methods_pass_through(tmp_path):
    """A raw JSON-RPC client (no SDK) sends string ids and a method nobody knows."""

    async def main():
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "jupyter_plans.agents.acp",
            "--db",
            str(tmp_path / "a.plans.sqlite"),
            "--",
            *AGENT,
            *agent_log_option(tmp_path),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )
        lines = [
            {
                "jsonrpc": "2.0",
                "id": "init-ä",
                "method": "initialize",
                "params": {"protocolVersion": 1},
            },
            {"jsonrpc": "2.0", "id": 7.5, "method": "_vendor/unknown", "params": {"x": [1, 2]}},
            {"jsonrpc": "2.0", "method": "_vendor/note", "params": {}},
        ]
        for line in lines:
            process.stdin.write((json.dumps(line, ensure_ascii=False) + "\n").encode())
        await process.stdin.drain()
        answers = {}
        while len(answers) < 2:
            reply = json.loads(await asyncio.wait_for(process.stdout.readline(), TIMEOUT))
            answers[json.dumps(reply["id"], ensure_ascii=False)] = reply
        process.stdin.close()
        await asyncio.wait_for(process.wait(), TIMEOUT)
        assert answers['"init-ä"']["result"]["protocolVersion"] == 1
        assert answers["7.5"]["error"]["code"] == -32601  # the agent's own answer
        got = [m for m in _sent(agent_log(tmp_path), "incoming")]
        assert got == lines

    run(main())


def test_a_hostile_line_is_read_as_no_message_and_the_next_one_still_is():
    """Nested a million deep, non-UTF-8 bytes, a 10**30 id: none stops the bridge's reading."""
    from jupyter_plans.agents.acp.wire import Peer

    async def main():
        reader = asyncio.StreamReader(limit=1 << 24)
        reader.feed_data(b"[" * 1_000_000 + b"\n")
        reader.feed_data(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}\n')
        reader.feed_data(
            b'{"jsonrpc": "2.0", "id": 1000000000000000000000000000000, "method": "x"}\n'
        )
        reader.feed_eof()
        return [message async for message, _line in Peer("client", reader, None).messages()]

    deep, bad_bytes, big = asyncio.run(main())
    assert deep is None and bad_bytes is None
    assert big["id"] == 10**30
