"""The bridge on each ACP SDK it supports (`agent-client-protocol>=0.11,<0.13`): the
environment's own, 0.11 beside Jupyter AI's ACP client, and 0.12 from `make acp-sdk`, each
through a whole flow with the scripted agent (the fixture `bridge_sdk` is harness's)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from .harness import ROOT, SDK_0_12, bridge_env, bridged, new_session, prompt, run, script

PLAN = [["Read the CSV", "completed"], ["Fit a model", "in_progress"]]
MARKDOWN = "Fit a linear model to the sales data.\n\n1. Read the CSV\n2. Fit a model\n"
SDK_OF_CHILD = (
    "import acp, importlib.metadata as m; "
    "print(m.version('agent-client-protocol'), acp.__file__, sep='\\n')"
)


def test_the_bridges_process_imports_the_sdk_it_is_given(bridge_sdk):
    done = subprocess.run(
        [sys.executable, "-c", SDK_OF_CHILD],
        env=bridge_env(bridge_sdk),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found, path = done.stdout.split()
    if bridge_sdk is None:
        assert found == version("agent-client-protocol")
        assert not path.startswith(str(SDK_0_12))
    else:
        assert found.startswith("0.12.")
        assert path == str(SDK_0_12 / "acp" / "__init__.py")


def test_a_proposal_approved_on_the_card(tmp_path, person, bridge_sdk):
    """Plan mode on, a write refused, the plan mirrored, the request to leave plan mode as the
    proposal, the person's approve as the agent's allow_once, and an edit that asks again."""

    async def main():
        async with bridged(tmp_path, sdk=bridge_sdk) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await person("on")
            assert (await client.report("set_mode"))["mode"] == "plan"
            actions = (
                {"write": ["analysis.py", "x = 1\n"]},
                {"plan": PLAN},
                {"exit_plan_mode": MARKDOWN},
                {"edit": "Edit analysis.py"},
            )
            running = prompt(conn, sid, script(*actions))
            asked = await client.next_asked()
            assert (asked.tool_call.title, asked.tool_call.kind) == (
                "Ready to code?",
                "switch_mode",
            )
            assert (await client.report("write"))["error"]["code"] == -32001
            plan = person.snapshot()["plan"]
            assert plan["explanation"] == "Fit a linear model to the sales data."
            assert [(s["id"], s["description"]) for s in plan["steps"]] == [
                ("e1", "Read the CSV"),
                ("e2", "Fit a model"),
            ]
            await person("approve", person.snapshot()["pending_proposal_hash"])
            report = await client.report("exit_plan_mode")
            assert report["outcome"] == {"outcome": "selected", "optionId": "default"}
            edit = await client.next_asked()  # out of plan mode, edits reach the client
            assert edit.tool_call.title == "Edit analysis.py"
            edit.choose("allow")
            assert (await client.report("edit"))["outcome"]["optionId"] == "allow"
            assert (await running).stop_reason == "end_turn"
            assert client.writes == []
            assert person.snapshot()["mode"] == "default"
            assert [e.data["name"] for e in person.events("tool_finished")] == [
                "fs/write_text_file"
            ]

    run(main())
