"""The agent's question in a real JupyterLab and Chromium: shown on the live card as text,
answered from it into the store, shown read-only in the Plan panel, hostile text kept inert."""

from tests.e2e.notebook_page import agent_session, live_card
from tests.helpers.plans import DRAFT

HOSTILE = "<img src=x onerror=alert(1)>"
QUESTION = (
    "Should the held-out month be the last full calendar month (June), "
    "or the last 30 days of `sales.csv`?"
)


def test_the_card_shows_the_question_and_takes_the_answer(page, lab, dialogs):
    # The agent, in another process: a draft plan while it researches, then one question.
    session = agent_session(lab["root"], "question")
    session.on()
    assert not session.call_tool("update_plan", DRAFT, turn_id="t1").is_error
    assert not session.call_tool("ask_user", {"question": QUESTION}, turn_id="t1").is_error

    card = live_card(page, lab, "question")
    box = card.locator(".jp-plans-banner-question")
    box.get_by_text("The agent asks").wait_for(timeout=30_000)
    assert "sales.csv" in box.locator(".jp-plans-question-text").inner_text()
    assert card.get_by_text("The agent is researching").count() == 0
    field = box.get_by_role("textbox")
    send = box.get_by_role("button", name="Answer")
    assert send.is_disabled()  # nothing typed yet
    field.fill("The last full month, June")
    assert send.is_enabled()
    # The agent writes meanwhile: the card redraws, the half-typed answer and focus stay.
    decision = {"title": "Use MAPE, not RMSE", "rationale": "revenue scales differ by 40x"}
    assert not session.call_tool("record_decision", decision, turn_id="t1").is_error
    card.get_by_text("Use MAPE, not RMSE").wait_for(timeout=10_000)
    assert field.input_value() == "The last full month, June"
    assert field.evaluate("element => element === document.activeElement")

    send.click()
    box.wait_for(state="detached", timeout=10_000)
    card.get_by_text("The agent is researching").wait_for(timeout=10_000)
    assert session.open_question() is None
    (message,) = session.deliver()
    assert (message.source, message.text) == ("person", "The last full month, June")

    # A question of markup arrives from the other process: the live card shows it as text.
    assert not session.call_tool("ask_user", {"question": HOSTILE}, turn_id="t2").is_error
    card.locator(".jp-plans-question-text").get_by_text(HOSTILE).wait_for(timeout=10_000)
    # The Plan panel shows it too, and leaves answering to the card in the notebook.
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.locator(".jp-plans-question-text").get_by_text(HOSTILE).wait_for(timeout=30_000)
    assert panel.locator(".jp-plans-banner-question input").count() == 0
    assert panel.get_by_text("Answer it from the plan card in the notebook.").count() == 1
    page.wait_for_timeout(500)  # on purpose: an injected element's handler would have run
    assert dialogs == []
    assert page.locator(".jp-plans-card img").count() == 0
    assert session.open_question().question == HOSTILE

    # Enter in the card's field sends the answer too (JupyterLab's shortcuts leave it be).
    field = card.locator(".jp-plans-banner-question").get_by_role("textbox")
    field.fill("No markup, please")
    field.press("Enter")
    card.locator(".jp-plans-banner-question").wait_for(state="detached", timeout=10_000)
    assert session.open_question() is None
    assert [m.text for m in session.deliver()] == ["No markup, please"]
