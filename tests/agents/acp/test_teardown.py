"""The tests' own end of a conversation with the bridge: it ends the same way on every run,
also when the bridge is still sending as the test ends (see harness.hang_up)."""

from __future__ import annotations

import contextlib
import logging

from tests import waiting

from .harness import bridged, new_session, prompt, run, script

FLOOD = 3000  # messages the agent says, one update each: still coming when the test ends


def test_a_test_that_ends_while_the_bridge_still_sends_ends_cleanly(
    tmp_path, bridge_sdk, monkeypatch, caplog
):
    """When the SDK begins to close the connection (its close(), as spawn_agent_process ends),
    the bridge has exited and all it sent was read, so no line can arrive while the SDK closes
    (the SDK 0.11 refuses one with "message queue already closed": 1 run in 1,643 before)."""
    at_close = []

    async def main() -> int:
        async with bridged(tmp_path, sdk=bridge_sdk) as (client, conn, process):
            sdk_close = type(conn).close

            async def close(self) -> None:
                at_close.append((process.returncode is not None, process.stdout.at_eof()))
                await sdk_close(self)

            monkeypatch.setattr(type(conn), "close", close)
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
    assert at_close == [(True, True)]  # exited, and its stdout read to the end
    refused = [r for r in caplog.records if "closed" in str(r.exc_info and r.exc_info[1])]
    assert refused == [], [r.getMessage() for r in refused]
    assert [r.getMessage() for r in caplog.records if r.name == "root"] == []
