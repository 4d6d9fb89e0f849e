"""The notebook tells the plan's story, in JupyterLab and in Notebook 7, with real Chromium:
a note being typed is never lost to Approve, Escape closes the note's form, focus stays on
the card after a decision and a live region says what changed; a card a newer one took over
from says the proposal waited there, and leads to the live card; a card whose extension was
unloaded says so and acts no more."""

from tests.e2e.notebook_page import (
    AXE,
    CARDS,
    agent_session,
    live_card_in,
    open_in,
    run_cells,
    serious_findings,
)
from tests.helpers.plans import PROPOSAL, RESUBMITTED

NOTE = "Hold out June only"


def focused_in_card(page) -> bool:
    return page.evaluate(
        "() => document.activeElement !== null"
        " && document.activeElement.closest('.jp-plans-card') !== null"
    )


def live_region(page) -> str:
    """What the page's polite live region says now (it is cleared a moment later)."""
    return page.evaluate("() => document.getElementById('jp-plans-announcer').textContent")


def test_a_typed_note_holds_approve_and_escape_keeps_it(page, app, dialogs):
    stem = f"note-{app['kind']}"
    session = agent_session(app["root"], stem)
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    proposed = session.snapshot().pending_proposal_hash

    card = live_card_in(page, app, stem)
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    approve = card.get_by_role("button", name="Approve")
    toggle = card.get_by_role("button", name="Request changes…")
    toggle.focus()
    page.keyboard.press("Enter")
    note = card.locator("textarea")
    note.wait_for(timeout=10_000)
    assert approve.is_enabled()  # nothing typed yet
    note.press_sequentially(NOTE)
    # With a note typed, Approve waits: approving would drop it.
    assert approve.is_disabled()
    assert approve.get_attribute("title") == "Send or cancel your request for changes first"
    assert note.evaluate("element => element === document.activeElement")  # no redraw lost it

    # Escape closes the form, as Cancel does; focus goes back to the button that opened it.
    page.keyboard.press("Escape")
    assert card.locator("textarea").count() == 0
    assert toggle.evaluate("element => element === document.activeElement")
    assert toggle.get_attribute("aria-expanded") == "false"
    page.keyboard.press("Enter")  # opened again: the note is still there
    assert card.locator("textarea").input_value() == NOTE
    page.keyboard.press("Escape")
    assert session.snapshot().pending_proposal_hash == proposed  # nothing was sent

    # Approve by keyboard, reached with Shift+Tab from the button beside it: its focus ring is
    # the card's, 2 px outside the button (JupyterLab's inset ring in the focus colour vanished
    # on Approve's own colour).
    toggle.focus()
    page.keyboard.press("Shift+Tab")
    ring = approve.evaluate(
        "e => { const s = getComputedStyle(e); return [e === document.activeElement,"
        " e.matches(':focus-visible'), s.outlineStyle, s.outlineWidth, s.outlineOffset]; }"
    )
    assert ring == [True, True, "solid", "2px", "2px"], ring
    # Approve by keyboard: focus stays in the card, and the live region says what happened.
    page.keyboard.press("Enter")
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    # The card's next drawing, after the kernel's answer, says it in the live region.
    said = page.wait_for_function(
        "(start) => { const t = document.getElementById('jp-plans-announcer').textContent;"
        " return t.startsWith(start) ? t : null; }",
        arg=f"Proposal {proposed[:12]} approved by ",
        timeout=10_000,
    ).json_value()
    assert focused_in_card(page), page.evaluate("() => document.activeElement.outerHTML")
    assert said.endswith("on the card."), said

    # A new proposal is announced as it arrives.
    session.on()
    assert not session.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error
    again = session.snapshot().pending_proposal_hash
    card.get_by_text("Waiting for your decision").wait_for(timeout=10_000)
    page.wait_for_function(
        "(said) => document.getElementById('jp-plans-announcer').textContent === said",
        arg=f"New proposal {again[:12]}: it needs your decision.",
        timeout=5_000,
    )
    assert dialogs == []


SUPERSEDING = """
%load_ext jupyter_plans
import jupyter_plans
session = jupyter_plans.current_session()
"""


def test_a_superseded_card_tells_its_moment_and_leads_to_the_live_card(page, lab, dialogs):
    """Four cards of one session in JupyterLab (shown on load, with each proposal, and by
    %plan): the earlier ones keep their own cell's moment, say a proposal waited there, and
    'Go to the live card' from the first lands on the last, the live one."""
    import nbformat

    root = lab["root"]
    cells = [
        SUPERSEDING,
        f"session.on()\nsession.call_tool('plan_submit', {PROPOSAL!r}, turn_id='t1')\n"
        "print(session.snapshot().pending_proposal_hash)",
        "%plan revise keep the outliers",
        f"session.call_tool('plan_submit', {RESUBMITTED!r}, turn_id='t2')\n"
        "print(session.snapshot().pending_proposal_hash)",
        "%plan approve",
        "%plan",
    ]
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in cells],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbformat.write(notebook, root / "chain.ipynb")
    open_in(page, {**lab, "kind": "jupyterlab"}, "chain.ipynb")
    run_cells(page, 0, len(cells) - 1)
    cards = page.locator(CARDS)
    cards.nth(3).wait_for(timeout=30_000)
    printed = page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets.map(cell =>
              cell.model.outputs ? cell.model.outputs.toJSON()
                .filter(o => o.output_type === 'stream').map(o => o.text).join('').trim() : '')"""
    )
    first, second = printed[1], printed[3]
    assert cards.count() == 4
    # Each card shows the plan as its own cell left it, though newer ones came after it.
    assert cards.nth(0).get_by_text("No plan yet.").count() == 1  # plan mode was not on yet
    assert cards.nth(1).locator(".jp-plans-hash").get_attribute("title") == first
    assert cards.nth(2).locator(".jp-plans-hash").get_attribute("title") == second
    for superseded in (cards.nth(1), cards.nth(2)):
        assert superseded.get_by_text("Was waiting for a decision here").count() == 1
        assert superseded.get_by_text("Waiting for your decision").count() == 0
    newest = cards.nth(3)
    assert newest.locator(".jp-plans-approved code").inner_text() == second[:12]
    cards.nth(0).get_by_role("button", name="Go to the live card").click()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.classList.contains('jp-plans-card')"
        " && !document.activeElement.hasAttribute('data-jp-plans-superseded-by')",
        timeout=5_000,
    )
    assert newest.evaluate("card => card === document.activeElement")
    assert dialogs == []


def test_a_card_of_an_unloaded_extension_says_so_and_acts_no_more(page, lab, dialogs):
    import nbformat

    root = lab["root"]
    session = agent_session(root, "unloaded")  # a notebook that loads the extension
    notebook = nbformat.read(root / "unloaded.ipynb", as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("%unload_ext jupyter_plans"))
    nbformat.write(notebook, root / "unloaded.ipynb")
    steps = {"steps": [{"id": "load", "description": "Load the data"}], "expected_revision": 0}
    assert not session.call_tool("update_plan", steps).is_error
    open_in(page, {**lab, "kind": "jupyterlab"}, "unloaded.ipynb")
    run_cells(page, 0, 1)
    card = page.locator(CARDS).first
    card.get_by_text("This card stopped when the plan extension was unloaded").wait_for(
        timeout=10_000
    )
    assert card.get_by_role("button", name="Edit").is_disabled()
    assert "is closed" not in card.inner_text() and "PlanStore(" not in card.inner_text()
    assert dialogs == []


def test_axe_finds_nothing_serious_on_the_card_or_the_panel(page, lab, errors):
    from tests.e2e.notebook_page import open_panel

    assert AXE.exists(), "axe-core is a dev dependency of labextension/ (jlpm install)"
    session = agent_session(lab["root"], "axe")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    card = live_card_in(page, {**lab, "kind": "jupyterlab"}, "axe")
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    card.get_by_role("button", name="Request changes…").click()  # the form open too
    assert serious_findings(page, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-plans-card") == []
    panel = open_panel(page)
    panel.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    assert serious_findings(page, "#jupyter-plans-panel") == []
    # The check can fail: a button without a name in the panel is a critical finding.
    page.evaluate(
        "() => document.querySelector('#jupyter-plans-panel .jp-plans-card')"
        ".append(document.createElement('button'))"
    )
    assert any(f.startswith("button-name") for f in serious_findings(page, "#jupyter-plans-panel"))
    errors.assert_none()
