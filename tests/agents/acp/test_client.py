"""The notebook's ACP client (`BridgedChat`): what reached it, in words that are the same on every
run, and its own answers, which the bridge takes as the person's."""

from __future__ import annotations

import sys

import pytest

from jupyter_plans import DecisionRefused
from jupyter_plans.agents.acp.client import BridgedChat

from .harness import Person

DEMO = [sys.executable, "-m", "jupyter_plans.agents.acp.demo_agent"]
TASK = "Fit a baseline"


def _play(folder) -> list[list[str]]:
    """The whole scenario, as notebook 05 plays it; every transcript."""
    (folder / "nb.ipynb").write_text("{}")
    person = Person(folder / "nb.plans.sqlite", session_id="default")
    try:
        with BridgedChat.start(DEMO, notebook=folder / "nb.ipynb") as chat:
            shown = [repr(chat)]
            person.session.on()
            planning = chat.send(TASK)
            person.session.approve(person.snapshot()["pending_proposal_hash"])
            return [shown, list(planning), list(chat.wait()), list(chat.answer("allow"))]
    finally:
        person.close()


def test_the_transcripts_are_the_same_on_every_run(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first, second = _play(tmp_path / "one"), _play(tmp_path / "two")
    assert first[1:] == second[1:]
    assert first[0][0].splitlines() == [
        f"An ACP client connected to: jupyter-plans acp --notebook {tmp_path / 'one' / 'nb.ipynb'}"
        " -- python -m jupyter_plans.agents.acp.demo_agent",
        "agent session scripted-1; modes default, acceptEdits, plan, bypassPermissions; "
        "now default",
    ]
    text = "\n".join(line for transcript in first for line in transcript)
    assert str(tmp_path) not in text.split("\n", 1)[1]  # no path past the command line


def test_the_clients_own_answer_is_the_persons_decision(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nb.ipynb").write_text("{}")
    person = Person(tmp_path / "nb.plans.sqlite", session_id="default")
    try:
        with BridgedChat.start(DEMO, notebook="nb.ipynb") as chat:
            person.session.on()
            chat.send(TASK)
            digest = person.snapshot()["pending_proposal_hash"]
            answered = chat.answer("default")  # the editor's "Yes, and manually approve edits"
            assert answered[:2] == ["you answer: default (allow_once)", "mode: default"]
            snapshot = person.snapshot()
            assert (snapshot["mode"], snapshot["approved_proposal_hash"]) == ("default", digest)
            with pytest.raises(DecisionRefused):  # the first answer won
                person.session.approve(digest)
            assert chat.answer("allow")[-1] == "turn ended: end_turn"
    finally:
        person.close()


def test_misuse_is_told_plainly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nb.ipynb").write_text("{}")
    with BridgedChat.start(DEMO, notebook="nb.ipynb") as chat:
        assert chat.wait() == ["(no turn is running)"]
        with pytest.raises(ValueError, match="no permission request"):
            chat.answer("allow")
        chat.send(TASK)  # not in plan mode: the first edit asks
        with pytest.raises(ValueError, match="'maybe' is not one of the options"):
            chat.answer("maybe")
        assert chat.answer("reject")[-1] == "turn ended: end_turn"
        assert "Traceback" not in chat.stderr
    with pytest.raises(ValueError, match="exactly one of notebook and db"):
        BridgedChat(DEMO)
