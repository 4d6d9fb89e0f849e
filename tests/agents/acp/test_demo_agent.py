"""The shipped scripted ACP agent (`python -m jupyter_plans.agents.acp.demo_agent`) is the one
agent notebook 05 and these tests run: its scenario behind the bridge, through the notebook's
client, with the person deciding from another process's view of the plan file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jupyter_plans.agents.acp.client import BridgedChat

from .harness import AGENT, ROOT, Person

DEMO = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent"]
STEPS = [
    "Parse order_date from its two formats",
    "Normalise region and fill the 212 missing ones",
    "Aggregate revenue per region and month",
    "Fit a seasonal-naive baseline and report its error",
]
TASK = "Clean data/sales.csv and fit a baseline for monthly revenue per region"


@pytest.fixture
def notebook(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "analysis.ipynb"
    path.write_text("{}")
    viewer = Person(tmp_path / "analysis.plans.sqlite", session_id="default")
    yield path, viewer
    viewer.close()


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _answers_to_exit_plan_mode(log: list[dict]) -> list[dict]:
    asked = [
        e["message"]["id"]
        for e in log
        if e["direction"] == "outgoing"
        and e["message"].get("method") == "session/request_permission"
        and e["message"]["params"]["toolCall"]["kind"] == "switch_mode"
    ]
    return [
        e["message"]["result"]["outcome"]
        for e in log
        if e["direction"] == "incoming" and "method" not in e["message"]
        if e["message"].get("id") in asked
    ]


def test_there_is_one_scripted_acp_agent_and_notebook_05_runs_it():
    assert not (ROOT / "tests" / "agents" / "acp" / "scripted_agent.py").exists()
    assert AGENT[:3] == DEMO
    notebook = json.loads((ROOT / "notebooks" / "05-acp-bridge.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert '"-m", "jupyter_plans.agents.acp.demo_agent"' in code


def test_the_scenario_plans_asks_to_leave_plan_mode_and_works_once_approved(notebook, tmp_path):
    path, person = notebook
    log = tmp_path / "agent.jsonl"
    with BridgedChat.start([*DEMO, "--log", str(log)], notebook=path.name) as chat:
        person.session.on()
        planning = chat.send(TASK)
        assert planning[0] == "mode: plan"  # the bridge set the agent's mode before the prompt
        assert "agent: I read the plan's context block first." in planning
        assert planning[-4:-1] == [
            "agent asks: Ready to code? (switch_mode)",
            "  Clean the sales export, then fit a seasonal-naive baseline for monthly revenue "
            "per region.",
            "  options: acceptEdits (allow_always), default (allow_once), plan (reject_once)",
        ]
        assert planning[-1] == "(waiting for an answer)"
        # The guard answered the write itself: it never reached the client.
        assert any(line.startswith("agent: The write was refused:") for line in planning)
        assert chat.files == {}
        snapshot = person.snapshot()
        assert [s["description"] for s in snapshot["plan"]["steps"]] == STEPS
        assert [s["id"] for s in snapshot["plan"]["steps"]] == ["e1", "e2", "e3", "e4"]

        person.session.approve(snapshot["pending_proposal_hash"])
        working = chat.wait()
        # The request answered from the notebook is closed in the client, then the agent works.
        assert working[:2] == ["tool call call-2: completed", "mode: default"]
        assert working[-3:] == [
            "agent asks: Write clean.py (edit)",
            "  options: allow_always (allow_always), allow (allow_once), reject (reject_once)",
            "(waiting for an answer)",
        ]
        done = chat.answer("allow")
        assert done[0] == "you answer: allow (allow_once)"
        assert done[-1] == "turn ended: end_turn"
        assert list(chat.files) == ["clean.py"]
    # Approval answered the agent's request with allow_once, never the allow_always option.
    assert _answers_to_exit_plan_mode(_log(log)) == [{"outcome": "selected", "optionId": "default"}]
    final = person.snapshot()
    assert final["mode"] == "default"
    assert [s["status"] for s in final["plan"]["steps"]] == ["completed"] * 4


def test_revise_notes_open_the_next_prompt_and_the_agent_keeps_planning(notebook):
    path, person = notebook
    with BridgedChat.start(DEMO, notebook=path.name) as chat:
        person.session.on()
        chat.send(TASK)
        person.session.revise("Keep the returns as negative revenue")
        answered = chat.wait()
        assert answered[-2:] == [
            "agent: I keep planning; tell me what to change.",
            "turn ended: end_turn",
        ]
        again = chat.send("Go on")
        assert "agent: Noted before your message: Keep the returns as negative revenue" in again
        assert again[-1] == "(waiting for an answer)"  # a new proposal waits
        assert person.snapshot()["pending_proposal_hash"] is not None


def test_outside_plan_mode_the_agent_works_at_once_and_each_edit_asks(notebook):
    path, person = notebook
    with BridgedChat.start(DEMO, notebook=path.name) as chat:
        first = chat.send(TASK)
        assert "mode: plan" not in first
        assert first[-3] == "agent asks: Write clean.py (edit)"
        stopped = chat.answer("reject")
        assert stopped[-2:] == [
            "agent: 'Write clean.py' was not allowed, so I stop here.",
            "turn ended: end_turn",
        ]
        assert chat.files == {}
    assert person.snapshot()["pending_proposal_hash"] is None
