"""The person's comments on the card, in JupyterLab and Notebook 7, with real Chromium (DESIGN
section 14): Comment on a step by keyboard and by mouse, the thread under the step with who,
status and the agent's reply (as text, labelled as the agent's), the open count in the header,
Resolve and Reopen; "on an earlier wording" after a revision; the Plan panel's comments
through the server; a saved card shows the threads and offers no action; axe-core finds
nothing serious with threads and a form open."""

from tests.e2e.lab_actions import CARDS, KERNEL, save_card_output
from tests.e2e.notebook_page import agent_session, live_card_in, open_notebook, serious_findings

STEPS = [
    {"id": "load", "description": "Load sales.csv"},
    {"id": "fill", "description": "Fill the missing prices with the mean"},
    {"id": "fit", "description": "Fit a weekly model", "depends_on": ["load", "fill"]},
]
PROPOSAL = {
    "explanation": "Clean the prices, then fit a weekly model.",
    "findings": ["price is missing in 412 rows"],
    "objectives": ["a weekly model"],
    "steps": STEPS,
}
REWORDED = {
    **PROPOSAL,
    "steps": [STEPS[0], {**STEPS[1], "description": "Fill the missing prices with the median"}],
}


def thread(card, step_id: str):
    return card.locator(f'[data-step-id="{step_id}"] .jp-plans-thread')


def proposal_session(root, stem):
    session = agent_session(root, stem)
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    return session


def test_comment_by_keyboard_and_mouse_resolve_and_reopen(page, app, dialogs, errors):  # noqa: F811
    stem = f"comments-{app['kind']}"
    session = proposal_session(app["root"], stem)
    card = live_card_in(page, app, stem)
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)

    # By keyboard: the step's Comment button, Enter, type, Ctrl+Enter.
    toggle = card.get_by_role("button", name="Comment on step fill")
    toggle.focus()
    page.keyboard.press("Enter")
    area = card.get_by_role(
        "textbox", name="Your comment on step fill: it goes to the agent as your words"
    )
    area.wait_for(timeout=5_000)
    assert area.evaluate("(node) => node === document.activeElement")
    page.keyboard.type("use the median: a few <b>huge</b> orders pull the mean up")
    page.keyboard.press("Control+Enter")
    item = thread(card, "fill").locator(".jp-plans-comment")
    item.wait_for(timeout=10_000)
    assert item.locator(".jp-plans-comment-text").inner_text() == (
        "use the median: a few <b>huge</b> orders pull the mean up"
    )
    assert item.locator("b").count() == 0  # the person's words, as text
    assert item.locator(".jp-plans-comment-status").inner_text() == "open"
    card.locator(".jp-plans-comment-count").get_by_text("1 open comment").wait_for(timeout=5_000)
    (made,) = session.snapshot().comments
    assert (made.id, made.step_id, made.by["via"]) == ("c1", "fill", "card")
    assert made.by["name"] == item.locator(".jp-plans-comment-who").inner_text()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.textContent === 'Comment'",
        timeout=5_000,
    )  # focus back on the step's Comment

    # The agent replies: its words as text, labelled as the agent's; the comment is addressed.
    reply = {"comment_id": "c1", "reply": "Median per product now <img src=x onerror=alert(1)>"}
    assert not session.call_tool("comment_reply", reply, turn_id="t1").is_error
    replied = item.locator(".jp-plans-comment-reply")
    replied.wait_for(timeout=10_000)
    assert replied.inner_text() == f"The agent replied: {reply['reply']}"
    assert card.locator(".jp-plans-comment img").count() == 0
    assert item.locator(".jp-plans-comment-status").inner_text() == "addressed by the agent"

    # The agent's revision rewords the step: the comment stays, on an earlier wording.
    session.revise("fill per product", by="ann")
    assert not session.call_tool("plan_submit", REWORDED, turn_id="t2").is_error
    card.get_by_text("Fill the missing prices with the median").first.wait_for(timeout=10_000)
    anchor = item.locator(".jp-plans-comment-anchor")
    anchor.wait_for(timeout=10_000)
    assert anchor.inner_text() == "on an earlier wording: Fill the missing prices with the mean"

    # Resolve by keyboard, Reopen by mouse; focus follows the button that undoes it.
    card.get_by_role("button", name="Resolve comment c1").focus()
    page.keyboard.press("Enter")
    item.locator(".jp-plans-comment-status").get_by_text("resolved").wait_for(timeout=10_000)
    page.wait_for_function(
        "() => document.activeElement"
        " && document.activeElement.getAttribute('aria-label') === 'Reopen comment c1'",
        timeout=5_000,
    )
    assert session.snapshot().comments[0].status == "resolved"
    card.get_by_role("button", name="Reopen comment c1").click()
    item.locator(".jp-plans-comment-status").get_by_text("open").wait_for(timeout=10_000)
    assert session.snapshot().comments[0].status == "open"

    # A comment on the plan as a whole, by mouse; a refusal is one line on the card.
    card.get_by_role("button", name="Comment on the plan as a whole").click()
    card.get_by_role(
        "textbox", name="Your comment on the plan as a whole: it goes to the agent as your words"
    ).fill("keep it short")
    card.get_by_role("button", name="Comment", exact=True).click()
    card.locator(".jp-plans-other-threads").get_by_text("keep it short").wait_for(timeout=10_000)
    assert [c.step_id for c in session.snapshot().comments] == ["fill", None]

    # Approve with comments: the banner says what the decision does with them.
    hint = card.locator(".jp-plans-comments-hint").inner_text()
    assert hint.startswith("2 open comments go with your decision: approving leaves them")
    card.get_by_role("button", name="Approve").click()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    approval = [e for e in session.events() if e.kind == "decision"][-1]
    assert (approval.data["action"], approval.data["comments"]) == ("approved", ["c1", "c2"])
    assert dialogs == []
    errors.assert_none()


def test_the_panel_comments_through_the_server_and_axe_finds_nothing(page, lab, errors):
    from tests.e2e.notebook_page import open_panel

    session = proposal_session(lab["root"], "comments-panel")
    session.comment("fit", "weekly, not daily", by="ann")
    assert not session.call_tool(
        "comment_reply", {"comment_id": "c1", "reply": "Weekly it is"}, turn_id="t1"
    ).is_error
    card = live_card_in(page, {**lab, "kind": "jupyterlab"}, "comments-panel")
    card.get_by_text("weekly, not daily").wait_for(timeout=30_000)
    card.get_by_role("button", name="Comment on step load").click()  # a form open too
    assert serious_findings(page, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-plans-card") == []

    panel = open_panel(page)
    panel.get_by_text("weekly, not daily").wait_for(timeout=30_000)
    panel.get_by_role("button", name="Comment on step load").click()
    panel.get_by_role(
        "textbox", name="Your comment on step load: it goes to the agent as your words"
    ).fill("mind the header row")
    assert serious_findings(page, "#jupyter-plans-panel") == []
    panel.get_by_role("button", name="Comment", exact=True).click()
    panel.get_by_text("mind the header row").wait_for(timeout=10_000)
    made = session.snapshot().comments[-1]
    assert (made.step_id, made.text, made.by["via"]) == ("load", "mind the header row", "panel")
    card.get_by_text("mind the header row").wait_for(timeout=10_000)  # the live card too
    panel.get_by_role("button", name="Resolve comment c1").click()
    panel.locator('[data-comment-id="c1"] .jp-plans-comment-status').get_by_text(
        "resolved"
    ).wait_for(timeout=10_000)
    assert session.snapshot().comments[0].by == {"name": "ann", "via": "api"}
    assert session.events()[-1].data["by"]["via"] == "panel"

    # A request for changes made of the open comments alone: Send takes an empty note.
    panel.get_by_role("button", name="Request changes…").click()
    send = panel.get_by_role("button", name="Send")
    assert send.is_enabled()
    send.click()
    panel.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    (message,) = session.waiting_messages()
    assert message.text == "On step load: mind the header row, said " + (made.by["name"])
    errors.assert_none()


def test_a_saved_card_shows_the_threads_and_offers_no_action(page, lab, dialogs, errors):
    session = proposal_session(lab["root"], "comments-saved")
    session.comment("fill", "use the median", by="ann")
    session.call_tool("comment_reply", {"comment_id": "c1", "reply": "Median it is"})
    session.comment(None, "keep it short", by="ann")
    save_card_output(lab["root"], "comments-saved", session, KERNEL)
    open_notebook(page, lab, "comments-saved.ipynb")
    card = page.locator(CARDS).first
    card.get_by_text("Median it is").wait_for(timeout=30_000)
    assert card.locator(".jp-plans-comment").count() == 2
    assert card.get_by_role("button", name="Comment on step fill").count() == 0
    assert card.get_by_role("button", name="Resolve comment c1").count() == 0
    assert card.locator(".jp-plans-comment-count").inner_text() == "1 open comment"
    assert dialogs == []
    errors.assert_none()
