"""A finished plan in a real JupyterLab and Chromium: the live card and the Plan panel show the
agent's final review as text, and a later change to the plan takes it away again."""

from tests.e2e.notebook_page import agent_session, live_card
from tests.helpers.plans import DONE as STEPS

HOSTILE = "<img src=x onerror=alert(1)>"
OBJECTIVES = ["a weekly revenue chart", "a baseline model with MAPE on June"]
REVIEW = [
    {"objective": OBJECTIVES[0], "outcome": "drawn for 26 weeks", "evidence": "figure 1"},
    {"objective": OBJECTIVES[1], "outcome": "fitted: MAPE 8.1% on June", "evidence": "cell 7"},
]
# The same review again, with markup in an outcome: it must show as text.
HOSTILE_REVIEW = [REVIEW[0], {**REVIEW[1], "outcome": f"fitted {HOSTILE}"}]


def test_the_card_shows_the_final_review_until_a_change_reopens_the_plan(page, lab, dialogs):
    session = agent_session(lab["root"], "finished")
    args = {"expected_revision": 0, "objectives": OBJECTIVES, "steps": STEPS}
    assert not session.call_tool("update_plan", args).is_error

    card = live_card(page, lab, "finished")
    card.get_by_text("Fit the baseline").wait_for(timeout=30_000)
    assert card.locator(".jp-plans-banner-finished").count() == 0

    # The agent, in another process, finishes the plan: the live card follows by itself.
    assert not session.call_tool("finish_plan", {"review": REVIEW}).is_error
    banner = card.locator(".jp-plans-banner-finished")
    banner.get_by_text("Finished").wait_for(timeout=10_000)
    assert "the agent reviewed 2 objectives" in banner.inner_text()
    objectives = banner.locator(".jp-plans-review-objective").all_inner_texts()
    assert objectives == OBJECTIVES
    assert "figure 1" in banner.locator(".jp-plans-review-evidence").first.inner_text()

    # A review holding markup (finish_plan again replaces the review) shows it as text.
    assert not session.call_tool("finish_plan", {"review": HOSTILE_REVIEW}).is_error
    banner.get_by_text(f"fitted {HOSTILE}").wait_for(timeout=10_000)
    assert page.locator(".jp-plans-card img").count() == 0

    # The Plan panel shows the same review.
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.locator(".jp-plans-banner-finished").get_by_text(f"fitted {HOSTILE}").wait_for(
        timeout=30_000
    )

    # A later change reopens the plan: the review leaves the card.
    args = {"expected_revision": 1, "objectives": OBJECTIVES, "steps": STEPS[:1]}
    assert not session.call_tool("update_plan", args).is_error
    banner.wait_for(state="detached", timeout=10_000)
    panel.locator(".jp-plans-banner-finished").wait_for(state="detached", timeout=10_000)
    page.wait_for_timeout(300)  # on purpose: an injected element's handler would have run
    assert dialogs == []
