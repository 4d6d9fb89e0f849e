"""The live card through a day in a real JupyterLab and Chromium: its kernel restarts or is
shut down, a newer card of its session takes over, and the page logs no error on the way."""

from tests.e2e.lab_actions import (
    CARDS,
    live_card,
    restart_kernel,
    run_new_cell,
    set_presentation_mode,
    shut_down_kernel,
)
from tests.e2e.notebook_page import agent_session, open_notebook, run_cells
from tests.helpers.plans import PROPOSAL, RESUBMITTED
from tests.waiting import wait_until

DECISION_BUTTONS = ("Approve", "Request changes…", "Leave plan mode")


def waiting_session(lab, stem: str):
    session = agent_session(lab["root"], stem)
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    return session, session.snapshot().pending_proposal_hash


def test_after_a_restart_the_card_decides_through_the_server(page, lab, dialogs, errors):
    session, waiting = waiting_session(lab, "restart")
    card = live_card(page, lab, "restart")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    # A hash reads the same everywhere: 12 hex digits, as in the palette's dialog.
    assert card.locator(".jp-plans-hash").inner_text() == waiting[:12]
    assert card.locator(".jp-plans-command").get_attribute("title") == f"%plan approve {waiting}"

    restart_kernel(page)
    notice = card.locator(".jp-plans-notice-server")
    notice.get_by_text("through the Jupyter server").wait_for(timeout=10_000)
    approve = card.get_by_role("button", name="Approve")
    assert approve.is_enabled()

    # The click approves that hash through POST decision; the card shows the new state.
    approve.click()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    snapshot = session.snapshot()
    assert (snapshot.mode, snapshot.approved_proposal_hash) == ("default", waiting)
    assert card.locator(".jp-plans-approved code").inner_text() == waiting[:12]

    # The agent, in another process, goes on: the card follows without a kernel.
    steps = [
        {**step, "status": "in_progress"} if step["id"] == "load" else step
        for step in PROPOSAL["steps"]
    ]
    args = {"expected_revision": snapshot.plan.revision, "steps": steps}
    assert not session.call_tool("update_plan", args, turn_id="t2").is_error
    card.get_by_text("in progress", exact=True).first.wait_for(timeout=5_000)
    assert dialogs == []
    errors.assert_none()


def test_without_the_server_routes_a_card_whose_kernel_is_gone_says_so(page, lab, errors):
    session, waiting = waiting_session(lab, "gone")
    card = live_card(page, lab, "gone")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)

    # As where the server extension is not installed: its routes answer 404.
    errors.expect_failures_of("/api/plans/")
    page.route("**/api/plans/**", lambda route: route.fulfill(status=404, body="Not Found"))
    shut_down_kernel(page)
    gone = card.locator(".jp-plans-notice-kernel-gone")
    gone.wait_for(timeout=10_000)
    assert "kernel is gone" in gone.inner_text()
    assert "\n" not in gone.inner_text().strip()  # one line
    for name in DECISION_BUTTONS:
        assert card.get_by_role("button", name=name).is_disabled()
    card.get_by_text("Waiting for your decision").wait_for()  # it keeps what it showed
    page.wait_for_timeout(500)  # on purpose: nothing is decided, in this while
    assert session.snapshot().pending_proposal_hash == waiting
    errors.assert_none()


def visible_in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.evaluate("() => window.innerHeight")
    return box is not None and box["y"] < height and box["y"] + box["height"] > 0


def test_one_live_card_per_session(page, lab, dialogs, errors):
    session, first = waiting_session(lab, "story")
    open_notebook(page, lab, "story.ipynb")
    run_cells(page, 0, 0)  # loading the extension shows the first card
    older = page.locator(CARDS).nth(0)
    older.get_by_text("Waiting for your decision").wait_for(timeout=30_000)

    run_new_cell(page, "%plan")  # a newer card of the same session
    newer = page.locator(CARDS).nth(1)
    newer.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    note = older.locator(".jp-plans-notice-superseded")
    note.get_by_text("Superseded by a newer card of this plan").wait_for(timeout=10_000)
    for name in DECISION_BUTTONS:
        assert older.get_by_role("button", name=name).is_disabled()
        assert newer.get_by_role("button", name=name).is_enabled()
    assert newer.locator(".jp-plans-notice").count() == 0

    # The agent re-submits: only the live card follows; the older one keeps the first proposal.
    assert not session.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error
    newer.get_by_text("Fit one baseline per store").wait_for(timeout=10_000)
    page.wait_for_timeout(500)  # on purpose: the older card does not follow, in this while
    assert older.get_by_text("Fit one baseline per store").count() == 0
    assert older.locator(".jp-plans-hash").inner_text() == first[:12]

    # Its control takes the person to the live card.
    page.set_viewport_size({"width": 1100, "height": 700})
    older.scroll_into_view_if_needed()
    note.get_by_role("button", name="Go to the live card").click()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.classList.contains('jp-plans-card')"
        " && Array.from(document.querySelectorAll('.jp-OutputArea .jp-plans-card'))"
        ".indexOf(document.activeElement) === 1",
        timeout=5_000,
    )
    wait_until(lambda: visible_in_viewport(page, newer), "the smooth scroll to the live card")
    page.set_viewport_size({"width": 1100, "height": 2400})

    # A restart: the older card stays as it was; the live one carries on through the server.
    restart_kernel(page)
    newer.locator(".jp-plans-notice-server").wait_for(timeout=10_000)
    assert "Superseded" in older.locator(".jp-plans-notice").inner_text()
    assert older.get_by_role("button", name="Approve").is_disabled()

    # The new kernel's card takes over from it: one live card per session again.
    run_new_cell(page, "%load_ext jupyter_plans")  # it shows the card at the end of its cell
    newest = page.locator(CARDS).nth(2)
    newest.get_by_text("Fit one baseline per store").wait_for(timeout=30_000)
    newer.locator(".jp-plans-notice-superseded").wait_for(timeout=10_000)
    assert newer.get_by_role("button", name="Approve").is_disabled()
    assert newest.get_by_role("button", name="Approve").is_enabled()
    assert dialogs == []
    errors.assert_none()


# What presentation mode must enlarge: every kind of text of the card, not only its body.
PARTS = (
    ".jp-plans-title",
    ".jp-plans-chip",
    ".jp-plans-step-desc",
    ".jp-plans-step-meta",
    ".jp-plans-footer-note",
)


# Its icons, sized by the text beside them (a 12 px icon on 20 px text is lost on a projector).
ICONS = (
    ".jp-plans-step-icon svg",
    ".jp-plans-banner-title svg",
    ".jp-plans-notebook svg",
    ".jp-plans-footer-note svg",
)


def font_sizes(card) -> dict[str, float]:
    """The font size of each part, and the width of each icon."""
    return card.evaluate(
        "(card, [parts, icons]) => Object.fromEntries([...parts.map((part) =>"
        " [part, parseFloat(getComputedStyle(card.querySelector(part)).fontSize)]),"
        " ...icons.map((icon) => [icon, card.querySelector(icon).getBoundingClientRect().width"
        " || NaN])])",
        [list(PARTS), list(ICONS)],
    )


def drawn_sizes(card) -> dict[str, float] | None:
    """font_sizes, once every part is in the page (a part not there yet has no size: NaN)."""
    sizes = font_sizes(card)
    return sizes if all(size == size for size in sizes.values()) else None


def test_on_a_projector_the_whole_card_grows_with_the_text(page, lab, errors):
    """View > Presentation Mode enlarges the notebook's text; the card's header, labels,
    acceptance lines, footer and icons grow with its descriptions, in the same proportion."""
    waiting_session(lab, "projector")
    card = live_card(page, lab, "projector")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    # Its sizes once it is drawn in the page (the first drawing happens before it is there).
    before = wait_until(lambda: drawn_sizes(card), "the card drawn in the page")
    set_presentation_mode(page, True)
    during = font_sizes(card)
    grown = {part: during[part] / before[part] for part in (*PARTS, *ICONS)}
    text = grown[".jp-plans-step-desc"]
    assert text > 1.1, f"presentation mode did not enlarge the text: {before} -> {during}"
    for part, ratio in grown.items():
        assert ratio > 1.1 and abs(ratio - text) < 0.15 * text, (part, before, during)
    set_presentation_mode(page, False)
    assert font_sizes(card) == before
