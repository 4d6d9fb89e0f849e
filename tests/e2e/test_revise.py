"""Asking for changes from the live card in a real JupyterLab and Chromium: the note survives
the agent's writes while it is typed, and arrives in the store as the person's message."""

from jupyter_plans.plan.who import local_person
from tests.e2e.notebook_page import agent_session, live_card
from tests.helpers.plans import DRAFT as PROPOSAL

NOTE = "Split by week, not month"


def test_the_card_sends_a_request_for_changes_as_the_persons_message(page, lab, dialogs):
    # The agent, in another process, proposes a plan and waits.
    session = agent_session(lab["root"], "revise")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    proposed = session.snapshot().pending_proposal_hash
    assert proposed is not None

    card = live_card(page, lab, "revise")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    toggle = card.get_by_role("button", name="Request changes…")
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    note = card.locator("textarea")
    note.wait_for(timeout=10_000)
    assert note.evaluate("element => element === document.activeElement")
    send = card.get_by_role("button", name="Send")
    assert send.is_disabled()  # nothing typed yet
    note.press_sequentially(NOTE[:-5])
    assert send.is_enabled()

    # The agent writes meanwhile: the card redraws; the form, the half-typed note and focus stay.
    decision = {"title": "Use MAPE, not RMSE", "rationale": "revenue scales differ by 40x"}
    assert not session.call_tool("record_decision", decision, turn_id="t1").is_error
    card.get_by_text("Use MAPE, not RMSE").wait_for(timeout=10_000)
    assert note.input_value() == NOTE[:-5]
    assert note.evaluate("element => element === document.activeElement")
    note.press_sequentially(NOTE[-5:])
    assert session.snapshot().pending_proposal_hash == proposed  # nothing is sent by typing

    note.press("Control+Enter")
    page_person = page.evaluate(
        "() => window.jupyterapp.serviceManager.user.ready.then(() =>"
        " window.jupyterapp.serviceManager.user.identity.display_name)"
    )
    # A shared token's made-up identity is named by its readable display name, not its
    # random 32-hex username.
    assert page_person.startswith("Anonymous ") and page_person != local_person()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    assert card.locator("textarea").count() == 0
    snapshot = session.snapshot()
    assert (snapshot.mode, snapshot.pending_proposal_hash) == ("plan", None)
    (message,) = session.deliver()
    assert (message.source, message.text) == ("person", NOTE)
    assert [e.data for e in session.events() if e.kind == "decision"] == [
        # The card's click names the person the JupyterLab page holds (its /api/me).
        {
            "action": "changes_requested",
            "hash": proposed,
            "by": {"name": page_person, "via": "card"},
        }
    ]
    assert dialogs == []
