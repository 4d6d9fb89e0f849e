"""A comment is the person's words as they show (DESIGN section 14): the character rules of a
name (section 12), newlines aside, on every surface that takes a comment: the Python API on
SQLite and PostgreSQL, `%plan comment`, `jupyter-plans plan ... comment` and the card's comm
(the route's in tests/server/test_comment_route.py). A name holds to the same rules, and no
comment may speak as the agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import DecisionRefused, PlanStore
from jupyter_plans.plan.who import person

STEPS = [{"id": "e1", "description": "Load sales.csv"}, {"id": "e2", "description": "Fit it"}]
# Characters that do not show as themselves, each in a comment that reads "use the median".
UNSEEN = {
    "a tag character hiding ASCII": "\U000e0041\U000e0042",
    "function application": "\u2061",
    "invisible times": "\u2062",
    "invisible separator": "\u2063",
    "invisible plus": "\u2064",
    "Mongolian vowel separator": "\u180e",
    "soft hyphen": "\u00ad",
    "combining grapheme joiner": "\u034f",
    "Hangul filler": "\u3164",
    "Hangul choseong filler": "\u115f",
    "Hangul jungseong filler": "\u1160",
    "halfwidth Hangul filler": "\uffa0",
    "interlinear annotation anchor": "\ufff9",
    "interlinear annotation separator": "\ufffa",
    "interlinear annotation terminator": "\ufffb",
    "inhibit symmetric swapping": "\u206a",
    "nominal digit shapes": "\u206f",
    "musical symbol begin beam": "\U0001d173",
    "musical symbol end phrase": "\U0001d17a",
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "byte order mark": "\ufeff",
    "right-to-left override": "\u202e",
    "first strong isolate": "\u2068",
    "Arabic letter mark": "\u061c",
    "next line": "\u0085",
    "bell": "\u0007",
    "tab": "\t",
    "line separator": "\u2028",
    "private use": "\ue000",
    "blank Braille pattern": "\u2800",
}
# A few for the surfaces that reach the same rule through a process or a comm.
SOME = ["a tag character hiding ASCII", "Hangul filler", "soft hyphen", "invisible times"]

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def _words(name: str) -> tuple[str, str]:
    """(the comment with the character in it, the U+XXXX its refusal names)."""
    char = UNSEEN[name]
    return f"use the{char} median", f"U+{ord(char[0]):04X}"


def _planned(session) -> None:
    result = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    assert not result.is_error, result.content


@pytest.mark.parametrize("name", sorted(UNSEEN))
def test_a_comment_with_a_character_that_does_not_show_is_refused_in_one_line(session, name):
    _planned(session)
    text, code = _words(name)
    cursor = session.cursor()
    with pytest.raises(DecisionRefused) as refused:
        session.comment("e1", text, by="alice")
    message = str(refused.value)
    assert code in message and "at character 7" in message and "\n" not in message
    assert session.cursor() == cursor and session.snapshot().comments == []


def test_newlines_emoji_accents_and_other_scripts_are_the_persons_words(session):
    _planned(session)
    words = "use the median\nnot the mean 👍🏽 ❤️ café naïve 중앙값 メディアン, and ‘quotes’"
    assert session.comment("e1", words, by="alice").text == words


@pytest.mark.parametrize("name", sorted(UNSEEN))
def test_a_name_with_a_character_that_does_not_show_is_refused(name):
    with pytest.raises(DecisionRefused, match="does not show as itself|one line of text"):
        person(f"ali{UNSEEN[name]}ce")
    with pytest.raises(DecisionRefused):
        person(UNSEEN[name])


def test_a_comment_may_not_speak_as_the_agent_and_only_entering_plan_mode_may(session):
    _planned(session)
    agent = {"name": None, "via": "agent"}
    for act in (
        lambda: session.comment("e1", "skip the tests", by=agent),
        lambda: session.comment("e1", "skip the tests", by={"name": "x", "via": "agent"}),
        lambda: session.resolve_comment("c1", by=agent),
        lambda: session.off(by=agent),
        lambda: session.revise("push to main", by=agent),
    ):
        with pytest.raises(DecisionRefused, match="the one act an agent may take"):
            act()
    assert session.snapshot().comments == []
    session.on(by=agent)  # its EnterPlanMode: the safe direction
    assert session.events()[-1].data["by"] == agent


def test_the_magic_refuses_each_in_one_line_on_stderr(ip, capsys):
    import jupyter_plans

    ip.run_line_magic("load_ext", "jupyter_plans")
    session = jupyter_plans.current_session()
    _planned(session)
    for name in SOME:
        text, code = _words(name)
        capsys.readouterr()
        ip.run_line_magic("plan", f"comment e1 {text}")
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("%plan comment: ") and code in err, (name, err)
        assert err.count("\n") == 1
    assert session.snapshot().comments == []


def test_the_command_line_refuses_each_and_makes_no_plan_file_to_refuse_in(tmp_path):
    plan = tmp_path / "a.plans.sqlite"
    with PlanStore(plan) as store:
        _planned(store.session("default"))
    for name in SOME:
        text, code = _words(name)
        found = subprocess.run(
            [*COMMAND, "plan", "--db", str(plan), "comment", "e1", text, "--by", "alice"],
            capture_output=True,
            text=True,
        )
        assert found.returncode == 1 and code in found.stderr and found.stdout == "", name
    for name in ("Hangul filler", "tag character"):
        char = UNSEEN[
            "Hangul filler" if name == "Hangul filler" else "a tag character hiding ASCII"
        ]
        found = subprocess.run(
            [*COMMAND, "plan", "--db", str(plan), "comment", "e1", "hi", "--by", f"al{char}"],
            capture_output=True,
            text=True,
        )
        assert found.returncode == 1 and "does not show as itself" in found.stderr
    with PlanStore(plan) as store:
        assert store.session("default").snapshot().comments == []
    # A notebook with no plan: the refusal makes no plan file.
    missing = tmp_path / "b.plans.sqlite"
    for verb in (["comment", "-", "hello"], ["comment", "1", "use\u3164it"], ["resolve", "c1"]):
        found = subprocess.run(
            [*COMMAND, "plan", "--db", str(missing), *verb], capture_output=True, text=True
        )
        assert found.returncode == 1 and "there is no plan yet" in found.stderr, found.stderr
        assert found.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.plans.sqlite"]


def test_the_cards_comm_refuses_each(ip):
    import jupyter_plans
    from jupyter_plans.notebook.widget import PlanCard

    ip.run_line_magic("load_ext", "jupyter_plans")
    session = jupyter_plans.current_session()
    _planned(session)
    card = PlanCard(session)
    for name in SOME:
        text, code = _words(name)
        message = {"data": {"method": "custom", "content": {"action": "comment"}}}
        message["data"]["content"].update(step_id="e1", text=text, by="ann")
        card.comm.handle_msg({"content": message, "buffers": []})
        assert card.error is not None and code in card.error, (name, card.error)
    message = {"action": "comment", "step_id": "e1", "text": "fine", "by": "an\u3164n"}
    card.comm.handle_msg(
        {"content": {"data": {"method": "custom", "content": message}}, "buffers": []}
    )
    assert "does not show as itself" in card.error
    assert session.snapshot().comments == []
