"""Where focus goes after a decision made by keyboard on the live card: on what says where
things stand, visible, labelled and with a focus ring, never on an unmarked container."""

from tests.e2e.notebook_page import agent_session, live_card
from tests.helpers.plans import DRAFT as PROPOSAL

FOCUSED = """() => {
    const element = document.activeElement;
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    return {
        label: element.getAttribute("aria-label") || element.textContent.trim(),
        inCard: Boolean(element.closest(".jp-plans-card")),
        isCard: element.classList.contains("jp-plans-card"),
        visible: box.width > 0 && box.height > 0,
        ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
    };
}"""


def test_after_approve_and_leave_by_keyboard_focus_lands_on_a_visible_labelled_line(
    page, lab, dialogs
):
    session = agent_session(lab["root"], "focus")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    card = live_card(page, lab, "focus")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)

    card.get_by_role("button", name="Approve").focus()
    page.keyboard.press("Enter")
    card.locator(".jp-plans-approved").wait_for(timeout=30_000)
    page.wait_for_function("() => document.activeElement.closest('.jp-plans-approved')")
    focused = page.evaluate(FOCUSED)
    assert focused["inCard"] and not focused["isCard"], focused
    assert focused["visible"] and focused["ring"], focused
    assert focused["label"].startswith("approved "), focused

    # Plan mode again, then the card's Leave plan mode by keyboard: on the mode chip.
    session.on()
    leave = card.get_by_role("button", name="Leave plan mode")
    leave.wait_for(timeout=30_000)
    leave.focus()
    page.keyboard.press("Enter")
    card.get_by_text("DEFAULT MODE").wait_for(timeout=30_000)
    page.wait_for_function("() => document.activeElement.closest('[data-jp-plans-standing]')")
    focused = page.evaluate(FOCUSED)
    assert focused["visible"] and focused["ring"] and focused["label"], focused
    dialogs_seen = list(dialogs)
    assert dialogs_seen == []
