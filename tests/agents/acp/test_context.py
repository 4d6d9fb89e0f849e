"""The first session/prompt of each session the bridge sees, new or loaded, opens with the
plan's context block; later prompts do not."""

from __future__ import annotations

import asyncio

from .harness import TIMEOUT, bridged, new_session, prompt, run, script


def test_the_first_prompt_of_each_session_opens_with_the_context_block(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            first = await new_session(conn, tmp_path)
            await prompt(conn, first, script({"plan": [["Fit the model", "in_progress"]]}))
            await prompt(conn, first, "again")
            second = await new_session(conn, tmp_path)
            await prompt(conn, second, "hello")
            one, two, three = [r["texts"] for r in client.reports("prompt")]
            assert one[0].startswith('<plan_context source="jupyter-plans"') and len(one) == 2
            assert two == ["again"]
            assert three[0].startswith("<plan_context") and three[1:] == ["hello"]
            assert "Fit the model" in three[0]  # the block shows the plan as it is now
            return first

    first = run(main())

    async def loaded():
        async with bridged(tmp_path) as (client, conn, _):
            await asyncio.wait_for(
                conn.load_session(cwd=str(tmp_path), session_id=first, mcp_servers=[]), TIMEOUT
            )
            await prompt(conn, first, "back")
            (texts,) = [r["texts"] for r in client.reports("prompt")]
            assert texts[0].startswith("<plan_context") and texts[1:] == ["back"]

    run(loaded())
