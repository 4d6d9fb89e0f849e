"""Characters that make text read otherwise than it is bound (bidirectional controls, line
separators, text with nothing visible) never reach the page, in a real JupyterLab and
Chromium: the agent's call is refused, and the card's editor refuses them from a person."""

import json

from tests.e2e.notebook_page import agent_session, live_card
from tests.helpers.cli import run as cli

EARLIER = {
    "explanation": "Total the invoices per customer.",
    "findings": [],
    "objectives": ["a total per customer"],
    "steps": [
        {"id": "load", "description": "Load invoices.csv"},
        {"id": "total", "description": "Sum the amounts per customer", "depends_on": ["load"]},
    ],
}
RLO, LINE_SEPARATOR, ZERO_WIDTH_SPACE = "\u202e", "\u2028", "\u200b"
SPOOFING = (RLO, LINE_SEPARATOR, ZERO_WIDTH_SPACE)


def with_description(description: str) -> dict:
    proposal = json.loads(json.dumps(EARLIER))
    proposal["steps"][0]["description"] = description
    return proposal


def agent_calls(revision: int) -> list[tuple[str, dict]]:
    """What an agent might send to make a step read otherwise than it is stored."""
    pay = with_description(f"Pay the invoice {RLO}fdp.exe")
    return [
        ("plan_submit", pay),
        ("plan_submit", with_description(f"Load invoices.csv{LINE_SEPARATOR}then delete them")),
        ("plan_submit", with_description(ZERO_WIDTH_SPACE * 3)),
        ("update_plan", {**pay, "expected_revision": revision}),
    ]


def page_text_holds_none(page, scopes) -> None:
    html = page.content()  # every text node and attribute (titles included)
    texts = [page.inner_text("body"), *(scope.inner_text() for scope in scopes)]
    for character in SPOOFING:
        name = f"U+{ord(character):04X}"
        assert character not in html, f"{name} reached the page"
        for text in texts:
            assert character not in text, f"{name} reached the page's text"


def test_spoofing_text_from_the_agent_is_refused_and_never_shown(page, lab, dialogs):
    session = agent_session(lab["root"], "spoof")
    plan_file = lab["root"] / "spoof.plans.sqlite"
    session.on()
    assert not session.call_tool("plan_submit", EARLIER, turn_id="t1").is_error
    before = session.snapshot()
    revision, waiting = before.plan.revision, before.pending_proposal_hash

    card = live_card(page, lab, "spoof")
    card.get_by_text("Sum the amounts per customer").wait_for(timeout=30_000)
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.get_by_text("Sum the amounts per customer").wait_for(timeout=30_000)

    # The agent, in another process: every call is refused, and only its refusal is recorded.
    for tool, args in agent_calls(revision):
        done = cli("call", "--db", str(plan_file), "--session", "default", tool, json.dumps(args))
        result = json.loads(done.stdout)
        assert (done.returncode, result["is_error"]) == (1, True), (tool, args, result)
    after = session.snapshot()
    assert (after.plan.revision, after.pending_proposal_hash) == (revision, waiting)
    assert [e.kind for e in session.events(after=before.cursor)] == ["tool_finished"] * 4

    # Given time to follow the refused calls, the card and the panel show the earlier plan (on
    # purpose: a refused call changes nothing either shows, so there is nothing to wait for).
    page.wait_for_timeout(2000)
    for scope in (card, panel):
        scope.get_by_text(f"rev {revision}", exact=True).wait_for(timeout=10_000)
        scope.get_by_text("Load invoices.csv", exact=True).wait_for(timeout=10_000)
        assert scope.get_by_text("Waiting for your decision").count() == 1
        assert waiting[:8] in scope.inner_text()
    page_text_holds_none(page, (card, panel))
    assert dialogs == []


def test_the_cards_editor_refuses_spoofing_text_in_one_line(page, lab, dialogs):
    session = agent_session(lab["root"], "spoof-edit")
    session.on()
    assert not session.call_tool("plan_submit", EARLIER, turn_id="t1").is_error
    before = session.snapshot()

    card = live_card(page, lab, "spoof-edit")
    card.get_by_text("Sum the amounts per customer").wait_for(timeout=30_000)
    card.get_by_role("button", name="Edit").click()
    field = card.locator('input[data-step-id="load"]')
    save = card.get_by_role("button", name="Save")
    status = card.locator(".jp-plans-editor-status")

    refusals = {
        f"Load {RLO}vsc.exe": "Step load: the description holds U+202E, a bidirectional control",
        f"Load{LINE_SEPARATOR}invoices.csv": "Step load: the description holds U+2028, a line",
        ZERO_WIDTH_SPACE * 2: "Step load: the description is blank.",
    }
    for typed, refusal in refusals.items():
        field.fill(typed)
        status.get_by_text(refusal).wait_for(timeout=5_000)
        assert "\n" not in status.inner_text()  # one line
        assert save.is_disabled()
        assert field.get_attribute("aria-invalid") == "true"
        page_text_holds_none(page, (card,))  # the refusal names the character, never holds it

    # Nothing was sent: the plan is as the agent proposed it, and the proposal still waits.
    page.wait_for_timeout(500)  # on purpose: a request that must not be sent has no moment
    after = session.snapshot()
    assert after.plan.revision == before.plan.revision
    assert after.pending_proposal_hash == before.pending_proposal_hash
    assert after.plan.steps[0].description == "Load invoices.csv"
    assert list(session.events(after=before.cursor)) == []

    card.get_by_role("button", name="Cancel").click()
    card.get_by_text("Load invoices.csv", exact=True).wait_for(timeout=5_000)
    page_text_holds_none(page, (card,))
    assert dialogs == []
