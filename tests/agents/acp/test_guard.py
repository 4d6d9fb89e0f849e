"""The guard: while the session is in plan mode or a proposal waits, the agent's writes and
terminals get a JSON-RPC error and its edit, delete, move and execute permission requests get
their reject option; none reaches the client, and each is recorded as a refused call."""

from __future__ import annotations

from .harness import bridged, new_session, prompt, run, script

ACTIONS = (
    {"write": ["analysis.py", "import pandas\n"]},
    {"terminal": "rm -rf build"},
    {"edit": "Edit analysis.py"},
    {"execute": "Run the tests"},
)


async def _act(client, conn, tmp_path, person, plan_mode: bool):
    sid = await new_session(conn, tmp_path)
    if plan_mode:
        await person("on")
        await client.report("set_mode")
    running = prompt(conn, sid, script(*ACTIONS))
    if not plan_mode:
        for _ in range(2):
            (await client.next_asked()).choose("allow")
    await running
    return {name: await client.report(name) for name in ("write", "terminal", "edit", "execute")}


def test_in_plan_mode_writes_terminals_and_edits_are_refused_before_the_client(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            reports = await _act(client, conn, tmp_path, person, plan_mode=True)
            assert reports["write"]["error"]["code"] == -32001
            assert "plan mode" in reports["write"]["error"]["message"]
            assert reports["terminal"]["error"]["code"] == -32001
            assert reports["edit"]["outcome"] == {"outcome": "selected", "optionId": "reject"}
            assert reports["execute"]["outcome"] == {"outcome": "selected", "optionId": "reject"}
            # Nothing reached the client.
            assert (client.writes, client.terminals, client.asked_all) == ([], [], [])
            refused = person.events("tool_finished")
            assert [e.data["name"] for e in refused] == [
                "fs/write_text_file",
                "terminal/create",
                "Edit analysis.py",
                "Run the tests",
            ]
            assert all(e.data["result"]["is_error"] for e in refused)
            assert "analysis.py" in refused[0].data["result"]["content"]
            assert "rm -rf build" in refused[1].data["result"]["content"]
            assert "'Edit analysis.py'" in refused[2].data["result"]["content"]

    run(main())


def test_out_of_plan_mode_they_reach_the_client(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            reports = await _act(client, conn, tmp_path, person, plan_mode=False)
            assert reports["write"]["error"] is None and reports["terminal"]["error"] is None
            assert reports["edit"]["outcome"] == {"outcome": "selected", "optionId": "allow"}
            assert client.writes == [("analysis.py", "import pandas\n")]
            assert client.terminals == ["rm -rf build"]
            assert [a.tool_call.title for a in client.asked_all] == [
                "Edit analysis.py",
                "Run the tests",
            ]
            assert person.events("tool_finished") == []

    run(main())


def test_while_a_proposal_waits_the_guard_holds(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            await client.report("set_mode")
            running = prompt(conn, sid, script({"exit_plan_mode": "Plan"}))
            asked = await client.next_asked()
            other = await new_session(conn, tmp_path)  # another chat of the same plan session
            await prompt(conn, other, script({"write": ["b.py", "x"]}))
            assert (await client.report("write"))["error"]["code"] == -32001
            assert client.writes == []
            asked.cancel()
            await running

    run(main())


def test_in_plan_mode_a_permission_request_the_models_refuse_is_still_guarded(tmp_path, person):
    """An edit whose content the SDK's models do not know (0.11 refuses it whole) is refused as
    an edit; one that cannot be read at all is answered cancelled; neither reaches the client."""
    odd = {
        "toolCall": {
            "toolCallId": "t1",
            "title": "Write x.py",
            "kind": "edit",
            "content": [{"type": "hologram", "data": 1}],
            "locations": [{"path": 7}],
        },
        "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ],
    }
    unreadable = {"toolCall": "not an object", "options": "none"}

    async def main():
        await person("on")
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            actions = [{"raw_permission": odd}, {"raw_permission": unreadable}]
            await prompt(conn, sid, script(*actions))
            first, second = client.reports("raw_permission")
            assert first["outcome"]["outcome"] == {"outcome": "selected", "optionId": "reject"}
            assert second["outcome"]["outcome"] == {"outcome": "cancelled"}
            assert client.asked_all == []
            refused = [e.data["name"] for e in person.events("tool_finished")]
            assert refused == ["Write x.py", "session/request_permission"]

    run(main())
