"""The person's own words on the live card in a real JupyterLab and Chromium: the notes of a
request for changes stay shown (as text) while the agent works on them and beside the
proposal that answers them, until the person decides on it; and an open edit
keeps Approve disabled and the steps' acceptance in view."""

from tests.e2e.lab_actions import live_card
from tests.e2e.notebook_page import agent_session
from tests.helpers.plans import PROPOSAL, RESUBMITTED

ACCEPTANCE = "MAPE printed for the held-out month"
WITH_ACCEPTANCE = {
    **PROPOSAL,
    "steps": [
        *PROPOSAL["steps"],
        {"id": "fit", "description": "Fit a baseline", "acceptance": ACCEPTANCE},
    ],
}
NOTES = "Split by <b>week</b>, not month"


def test_the_notes_of_a_request_stay_with_the_proposal_that_answers_them(
    page, lab, dialogs, errors
):
    session = agent_session(lab["root"], "notes")
    session.on()
    assert not session.call_tool("plan_submit", WITH_ACCEPTANCE, turn_id="t1").is_error
    card = live_card(page, lab, "notes")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    approve = card.get_by_role("button", name="Approve")
    assert approve.is_enabled()

    # While an edit is open, Approve waits: the proposal would change under it.
    card.get_by_role("button", name="Edit").click()
    editor = card.locator(".jp-plans-editor")
    editor.wait_for(timeout=5_000)
    assert approve.is_disabled()
    assert approve.get_attribute("title") == "Save or cancel your edit first"
    editor.get_by_text(ACCEPTANCE).wait_for(timeout=5_000)  # the acceptance lines stay
    editor.get_by_role("button", name="Cancel").click()
    editor.wait_for(state="detached", timeout=5_000)
    assert approve.is_enabled()

    # The person asks for changes, with markup in the words: they show as written, as text.
    card.get_by_role("button", name="Request changes…").click()
    card.locator("textarea").fill(NOTES)
    card.get_by_role("button", name="Send").click()
    notes = card.locator(".jp-plans-notes")
    notes.wait_for(timeout=10_000)
    assert notes.inner_text() == f"Changes you asked for: {NOTES}"
    assert card.locator(".jp-plans-notes b").count() == 0
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)

    # They stay while the agent works on them, and in the Plan panel too.
    decision = {"title": "Weekly buckets", "rationale": "the person asked for weeks"}
    assert not session.call_tool("record_decision", decision, turn_id="t2").is_error
    card.get_by_text("Weekly buckets").wait_for(timeout=10_000)
    assert notes.inner_text() == f"Changes you asked for: {NOTES}"
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.locator(".jp-plans-notes").get_by_text(NOTES).wait_for(timeout=10_000)

    # The agent's next proposal answers them: they stay beside it, so the person sees what it
    # answers, until the person decides on it.
    assert not session.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error
    card.get_by_text("Fit one baseline per store").wait_for(timeout=10_000)
    card.get_by_text("Waiting for your decision").wait_for(timeout=10_000)
    assert notes.inner_text() == f"Changes you asked for: {NOTES}"
    card.get_by_role("button", name="Approve").click()
    notes.wait_for(state="detached", timeout=10_000)
    panel.locator(".jp-plans-notes").wait_for(state="detached", timeout=10_000)
    assert dialogs == []
    errors.assert_none()
