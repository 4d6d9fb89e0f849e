"""Saved cards in a real JupyterLab and Chromium: a reopened notebook says which revision each
card shows, offers the plan as it is now when its session moved on (without touching the
saved output, which nbval compares), and logs no error on reopening or on a restart."""

from tests.e2e.lab_actions import (
    CARDS,
    KERNEL,
    live_card,
    notebook_dirty,
    output_json,
    restart_kernel,
    save_card_output,
    save_notebook,
    shut_down_kernel,
)
from tests.e2e.notebook_page import agent_session, open_notebook
from tests.helpers.plans import PROPOSAL, RESUBMITTED


def test_a_saved_card_shows_its_revision_and_the_plan_as_it_is_now(page, lab, dialogs, errors):
    session = agent_session(lab["root"], "saved-now")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    save_card_output(lab["root"], "saved-now", session, KERNEL)
    # After the notebook was saved, the session moved on: changes asked for, a new proposal.
    session.revise("one baseline per store")
    assert not session.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error

    open_notebook(page, lab, "saved-now.ipynb")
    card = page.locator(CARDS).first
    notice = card.locator(".jp-plans-notice")
    offer = notice.get_by_role("button", name="Show the plan as it is now")
    offer.wait_for(timeout=30_000)
    said = notice.locator(".jp-plans-notice-text").inner_text()
    assert said == "Saved output: the plan as of revision 1 when its cell ran."
    assert card.get_by_role("button", name="Approve").count() == 0  # as it was: no buttons
    save_notebook(page)  # the new kernel wrote its language into the metadata
    saved = output_json(page, 0)
    assert not notebook_dirty(page)

    # One click: the plan as it is now, labelled so, in place of the saved card.
    offer.click()
    now = card.locator(".jp-plans-notice-current")
    now.wait_for(timeout=10_000)
    assert "The plan as it is now, revision 2" in now.inner_text()
    assert "The saved output shows revision 1" in now.inner_text()
    card.get_by_text("Fit one baseline per store").wait_for(timeout=5_000)
    assert card.get_by_role("button", name="Approve").count() == 0

    # While it is shown, it stays current.
    decision = {"title": "Use MAPE, not RMSE", "rationale": "revenue scales differ by 40x"}
    assert not session.call_tool("record_decision", decision, turn_id="t2").is_error
    card.get_by_text("Use MAPE, not RMSE").wait_for(timeout=5_000)

    # And back: the saved card, exactly as saved; the output and the notebook untouched.
    now.get_by_role("button", name="Back to the saved card").click()
    card.locator(".jp-plans-notice-saved").wait_for(timeout=5_000)
    card.get_by_text("Load sales.csv and the store table").wait_for(timeout=5_000)
    assert output_json(page, 0) == saved
    assert not notebook_dirty(page)
    assert dialogs == []
    errors.assert_none()


def test_a_reopened_notebook_and_a_restart_log_no_error(page, lab, errors):
    session = agent_session(lab["root"], "reopen")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    card = live_card(page, lab, "reopen")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    save_notebook(page)
    shut_down_kernel(page)

    # Reopened with a new kernel, which never held the card's widget: the saved card shows.
    open_notebook(page, lab, "reopen.ipynb")
    card = page.locator(CARDS).first
    notice = card.locator(".jp-plans-notice-saved")
    notice.wait_for(timeout=30_000)
    assert "the plan as of revision 1 when its cell ran" in notice.inner_text()
    # On purpose: the widget manager restores its widgets meanwhile, and the restarted kernel
    # is given time; neither may take the saved card's place, and neither says when it is done.
    page.wait_for_timeout(3000)
    restart_kernel(page)
    page.wait_for_timeout(2000)
    assert card.locator(".jp-plans-notice-saved").count() == 1
    assert card.get_by_role("button", name="Approve").count() == 0
    errors.assert_none()
