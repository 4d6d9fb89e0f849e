"""Steps that check themselves on the card (DESIGN section 17), in JupyterLab and Notebook 7
with real Chromium: the person writes a step's check in the card's editor before approving,
by keyboard; after the agent (another process) completes the steps, the next cell run in the
notebook runs the approved checks; under each step the card shows its check as code and what
the notebook said ("check passed in cell [2]", "check failed in cell [2]: False",
"unapproved: changed after your approval, not run"), each in a group a screen reader names;
Run check, by keyboard, runs one again; nothing on the card says verified."""

from __future__ import annotations

import nbformat

from tests.e2e.contrast import failures, measure
from tests.e2e.lab_actions import set_theme
from tests.e2e.notebook_page import open_in, run_cells, serious_findings

CARDS = ".jp-Notebook .jp-OutputArea .jp-plans-card"
PROPOSAL = {
    "explanation": "Clean the prices, fit a baseline, chart it.",
    "findings": ["price is missing in 412 rows"],
    "objectives": ["A baseline of weekly revenue"],
    "steps": [
        {"id": "clean", "description": "Drop rows with no price", "check": "missing == 0"},
        {"id": "fit", "description": "Fit the baseline", "check": "error < 0.1"},
        {"id": "chart", "description": "Chart the fit"},
    ],
}


def notebook(root, stem):
    """The notebook: the extension loaded, the step's work, its fix."""
    code = nbformat.v4.new_code_cell
    cells = [
        code("%load_ext jupyter_plans", id="load"),
        code("missing = 0\nerror = 0.5\ncharts = ['weekly']", id="work"),
        code("error = 0.05", id="fix"),
    ]
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    made = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec})
    nbformat.write(made, root / f"{stem}.ipynb")
    from jupyter_plans import PlanStore

    return PlanStore(root / f"{stem}.plans.sqlite").session("default")


def check_line(card, step_id):
    """A step's check, as a screen reader finds it: the group named for it."""
    return card.get_by_role("group", name=f"Check of step {step_id}")


def complete_all(session, chart_check):
    """The agent marks every step completed, and changes the chart's check as it does."""
    plan = session.snapshot().plan.model_dump()
    for step in plan["steps"]:
        step["status"] = "completed"
        if step["id"] == "chart":
            step["check"] = chart_check
    args = {"expected_revision": plan["revision"], "steps": plan["steps"]}
    result = session.call_tool("update_plan", {**args, "objectives": plan["objectives"]})
    assert not result.is_error, result.content


def test_checks_on_the_card_by_keyboard_and_screen_reader(page, app, dialogs, errors):
    stem = f"checks-{app['kind']}"
    session = notebook(app["root"], stem)
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    open_in(page, app, f"{stem}.ipynb")
    run_cells(page, 0, 0)
    card = page.locator(CARDS).first
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    proposed = check_line(card, "clean")
    assert proposed.locator("code").inner_text() == "missing == 0"
    assert "proposed: runs in the notebook once you approve it" in proposed.inner_text()

    # The person writes the chart's check before approving, by keyboard.
    card.get_by_role("button", name="Edit").focus()
    page.keyboard.press("Enter")
    field = card.get_by_role("textbox", name="Check of step chart (optional)")
    field.focus()
    page.keyboard.type("len(charts) == 1")
    card.get_by_role("button", name="Save").focus()
    page.keyboard.press("Enter")
    check_line(card, "chart").get_by_text("len(charts) == 1").wait_for(timeout=10_000)
    assert session.snapshot().plan.steps[2].check == "len(charts) == 1"
    card.get_by_role("button", name="Approve").focus()
    page.keyboard.press("Enter")
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    assert {s: c.status for s, c in session.snapshot().checks.items()} == dict.fromkeys(
        ("clean", "fit", "chart"), "not_run"
    )

    # The agent completes every step, and changes the check the person wrote: that one is
    # unapproved now. The next cell the person runs runs the approved ones.
    complete_all(session, "True")
    run_cells(page, 1, 1)
    lines = {
        "clean": "check passed in cell [2]",
        "fit": "check failed in cell [2]: False",
        "chart": "unapproved: changed after your approval, not run",
    }
    for step_id, said in lines.items():
        check_line(card, step_id).get_by_text(said).wait_for(timeout=15_000)
    assert check_line(card, "fit").locator("code").inner_text() == "error < 0.1"
    output = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea").inner_text()
    assert "check clean: passed" in output and "check fit: failed: False" in output
    assert "check chart" not in output  # unapproved: not run by itself

    # Fixed in the next cell; Run check, by keyboard, runs it again: now it passes.
    run_cells(page, 2, 2)
    run = card.get_by_role("button", name="Run the check of step fit now, in the notebook")
    run.focus()
    page.keyboard.press("Enter")
    check_line(card, "fit").get_by_text("check passed, run outside a cell").wait_for(timeout=15_000)
    fit = session.snapshot().checks["fit"]
    assert (fit.status, fit.value, fit.execution_count) == ("passed", "True", None)
    ran = [e for e in session.events() if e.kind == "step_checked"][-1]
    assert ran.data["by"]["via"] == "card"

    assert "verified" not in card.inner_text().lower()
    assert serious_findings(page, CARDS) == []
    if app["kind"] == "jupyterlab":  # each check line reads at WCAG AA in light and dark
        for dark in (False, True):
            set_theme(page, dark)
            measured = measure(page, f"{CARDS} .jp-plans-step-check")
            assert len(measured) > 9 and failures(measured) == [], failures(measured)
        set_theme(page, False)
    assert dialogs == []
    errors.assert_none()
