"""What each surface says of a step's check (DESIGN section 17), from one session with a
passed, a failed, a not-run and an unapproved check: the card's text/plain line (nbval's), the
static card, %plan history, the context block the agent reads, and the journal's plan.md and
progress.md. Only a check that passed says a step was checked; none says verified."""

from __future__ import annotations

import json

import pytest

from jupyter_plans.agents.context import context_block
from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.journal.views import export
from jupyter_plans.plan.checks import CheckRun
from jupyter_plans.plan.text import describe_event, render_text
from jupyter_plans.session.checks import due_checks, record_check

STEPS = [
    {"id": "clean", "description": "Drop rows with no price", "check": "missing == 0"},
    {"id": "fit", "description": "Fit the baseline", "check": "error < 0.1"},
    {"id": "chart", "description": "Chart the fit", "check": "len(charts) == 1"},
    {"id": "notes", "description": "Write the notes", "check": "bool(notes)"},
    {"id": "share", "description": "Share it"},
]


@pytest.fixture
def checked(session):
    """clean passed, fit failed, chart not run (not completed), notes unapproved."""
    session.on()
    args = {"explanation": "why", "findings": [], "objectives": ["A baseline"], "steps": STEPS}
    assert not session.call_tool("plan_submit", args).is_error
    session.approve(by="ann")
    done = {"clean", "fit", "notes"}
    steps = [
        {
            **step,
            "status": "completed" if step["id"] in done else "pending",
            "check": "notes != ''" if step["id"] == "notes" else step.get("check"),
        }
        for step in STEPS
    ]
    assert not session.call_tool(
        "update_plan", {"expected_revision": 1, "steps": steps, "objectives": ["A baseline"]}
    ).is_error
    _, due = due_checks(session)
    runs = {"clean": CheckRun(True, "True", None), "fit": CheckRun(False, "np.False_", None)}
    for step_id, check, since in due:
        record_check(session, step_id, check, runs[step_id], 9, None, since)
    by = {"name": "ann", "via": "magic"}
    record_check(session, "fit", "error < 0.1", CheckRun(False, None, "NameError: x"), 11, by)
    return session


def test_text_plain_counts_the_checks_in_one_line(checked):
    text = render_text(checked.snapshot())
    assert "checks: 1 passed, 1 failed, 1 not run, 1 unapproved" in text.splitlines()
    assert "missing == 0" not in text  # nothing else of them: nbval's text stays short


def test_text_plain_leaves_unapproved_out_when_there_is_none(session):
    args = {"expected_revision": 0, "steps": STEPS[:1]}
    assert not session.call_tool("update_plan", args).is_error
    assert "checks: 0 passed, 0 failed, 0 not run, 1 unapproved" in render_text(session.snapshot())
    assert "checks:" not in render_text({**session.snapshot_data(), "checks": {}})


def test_the_static_card_shows_each_check_as_code_and_what_the_notebook_said(checked):
    html = card_html(card_data(checked, None))
    assert "check <code>missing == 0</code> &middot; check passed in cell [9]" in html
    assert (
        "check <code>error &lt; 0.1</code> &middot; check failed in cell [11]: NameError: x" in html
    )
    assert "not run yet: it runs once the step is completed" in html
    assert "unapproved: changed after your approval, not run" in html
    assert "verified" not in html


def test_history_says_who_ran_each_check_and_how_it_went(checked):
    told = [describe_event(e) for e in checked.events() if e.kind == "step_checked"]
    assert told[0].endswith("the check of step clean ran in cell [9] by itself: passed")
    assert told[-1].endswith(
        "the check of step fit ran in cell [11] by ann with %plan: failed: NameError: x"
    )


def test_the_context_block_gives_the_agent_each_checks_status_value_or_error(checked):
    block = context_block(checked)
    data = json.loads(block.split("\n")[2])
    steps = {s["id"]: s for phase in data["plan"]["phases"] for s in phase["steps"]}
    assert steps["clean"]["check"] == {
        "expression": "missing == 0",
        "status": "passed",
        "value": "True",
        "error": None,
        "ran_in_cell": 9,
    }
    assert steps["fit"]["check"]["status"] == "failed"
    assert steps["fit"]["check"]["error"] == "NameError: x"
    assert steps["chart"]["check"]["status"] == "not_run"
    assert steps["notes"]["check"]["status"] == "unapproved"
    assert "check" not in steps["share"]


def test_a_failed_check_stays_in_view_when_completed_steps_are_cut(checked):
    block = context_block(checked, limit=1400)
    data = json.loads(block.split("\n")[2])
    shown = {s["id"]: s for phase in data["plan"]["phases"] for s in phase["steps"]}
    assert shown["fit"]["check"]["status"] == "failed"
    assert "clean" not in shown or shown["clean"].get("acceptance", 0) == 0


def test_the_journal_shows_checks_and_their_runs(checked, tmp_path):
    export(checked, tmp_path)
    plan = (tmp_path / "plan.md").read_text()
    assert "  - Check: missing == 0 (check passed in cell \\[9\\])" in plan
    assert "  - Check: error \\< 0.1 (check failed in cell \\[11\\]: NameError: x)" in plan
    assert "  - Check: notes != '' (unapproved: not in the plan the person approved" in plan
    progress = (tmp_path / "progress.md").read_text()
    assert "The check of **clean** ran in cell [9], by itself at the end of the cell: passed." in (
        progress
    )
    assert "The check of **fit** ran in cell [11], by ann with %plan: failed (NameError: x)." in (
        progress
    )
