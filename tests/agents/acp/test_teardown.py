"""The tests' own end of a conversation with the bridge: it ends the same way on every run,
also when the bridge is still sending as the test ends (see harness.hang_up)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest
from acp.task import queue as sdk_queue

from tests import waiting

from .harness import bridged, new_session, prompt, run, script

FLOOD = 3000  # messages the agent says, one update each: still coming when the test ends


@pytest.fixture
def slow_close(monkeypatch):
    """The SDK 0.11's close, with the moment between closing its message queue and stopping its
    reading task made long (0.3 s instead of a few turns of the event loop): what arrives from
    the bridge in that moment is refused ("message queue already closed"), which happens now
    and then by itself, and here on every run where anything still arrives."""
    original = sdk_queue.InMemoryMessageQueue.close

    async def close(self) -> None:
        await original(self)
        await asyncio.sleep(0.3)  # on purpose: the moment made long

    monkeypatch.setattr(sdk_queue.InMemoryMessageQueue, "close", close)


def test_a_test_that_ends_while_the_bridge_still_sends_ends_cleanly(
    tmp_path, slow_close, bridge_sdk, caplog
):
    async def main() -> int:
        async with bridged(tmp_path, sdk=bridge_sdk) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            running = prompt(conn, sid, script(*[{"say": f"line {i}"} for i in range(FLOOD)]))
            # The agent is talking, and goes on.
            await waiting.until(lambda: len(client.kinds("agent_message_chunk")) >= 20, "talk")
        with contextlib.suppress(Exception):  # the prompt ends with the connection
            await running
        return len(client.kinds("agent_message_chunk"))

    with caplog.at_level(logging.ERROR):
        received = run(main())
    assert received >= 20
    refused = [r for r in caplog.records if "closed" in str(r.exc_info and r.exc_info[1])]
    assert refused == [], [r.getMessage() for r in refused]
    assert [r.getMessage() for r in caplog.records if r.name == "root"] == []
