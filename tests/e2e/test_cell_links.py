"""The card links each step to the cells that did it (DESIGN section 13), in JupyterLab and in
Notebook 7 with real Chromium: as cells run while a step is in progress the live card shows
them as [N] links (a failed run marked); a link followed by mouse or by keyboard makes its cell
the notebook's active, selected cell and scrolls it into view; evidence citing `cell:<id>`
shows the same link; a deleted cell's link says so; a completed step's cell run again with
other code reads "changed after completion"; and the saved card, reopened, leads there too."""

from __future__ import annotations

import nbformat
import pytest

from tests.e2e.lab_actions import save_notebook, shut_down_kernel
from tests.e2e.notebook_page import open_in, open_panel, run_cells, serious_findings
from tests.waiting import wait_until

NOTEBOOK = "window.jupyterapp.shell.currentWidget.content"
CARDS = ".jp-Notebook .jp-OutputArea .jp-plans-card"

OK_ID = "parse-ok-5b0f2c1e"
FAILED_ID = "parse-failed-7e0d5b4c"
SCRATCH_ID = "scratch-0a1b2c3d"
NEVER_ID = "7e0d5b4c-1f2a-4c3b-9d8e-0a1b2c3d4e5f"  # cited, but no cell of the notebook has it

SETUP = """%load_ext jupyter_plans
import jupyter_plans
s = jupyter_plans.current_session()
_ = s.call_tool("update_plan", {"expected_revision": 0, "steps": [
    {"id": "parse", "description": "Parse the dates", "status": "in_progress"}]})"""
COMPLETE = f"""_ = s.call_tool("update_plan", {{
    "expected_revision": s.snapshot().plan.revision,
    "steps": [
        {{"id": "parse", "description": "Parse the dates", "status": "completed",
          "evidence": "Parsed in cell:{OK_ID}; `cell:{FAILED_ID}` failed on June; "
                      "the first try was cell:{NEVER_ID}."}},
        {{"id": "fit", "description": "Fit the model", "status": "pending"}}]}})"""
FILLER = "\n".join(f"# a note that takes room, line {n}" for n in range(14))


def notebook_cells() -> list:
    """The setup cell (its output is the card) far above the cells that do the step, and the
    cell that shows the card again far below them: every link has somewhere to scroll to."""
    code = nbformat.v4.new_code_cell
    cells = [code(SETUP, id="setup")]
    cells += [code(FILLER, id=f"above-{n}") for n in range(10)]
    cells += [
        code('dates = ["2024-06-01"]', id=OK_ID),
        code('int("June")', id=FAILED_ID),
        code("scratch = 0", id=SCRATCH_ID),
    ]
    cells += [code(FILLER, id=f"below-{n}") for n in range(8)]
    cells += [code(COMPLETE, id="complete"), code("%plan", id="show")]
    return cells


@pytest.fixture(params=["jupyterlab", "notebook7"])
def app(request, lab):
    if request.param == "jupyterlab":
        return {**lab, "kind": "jupyterlab"}
    return request.getfixturevalue("notebook7")


def index_of(page, cell_id: str) -> int:
    return page.evaluate(
        f"(id) => {NOTEBOOK}.widgets.findIndex(cell => cell.model.id === id)", cell_id
    )


def count_of(page, cell_id: str) -> int:
    return page.evaluate(
        f"(id) => {NOTEBOOK}.widgets.find(cell => cell.model.id === id).model.executionCount",
        cell_id,
    )


def run(page, *cell_ids: str) -> None:
    for cell_id in cell_ids:
        index = index_of(page, cell_id)
        run_cells(page, index, index)


# Whether cell `id` shows in the notebook's viewport and in the window.
IN_VIEW = f"""(id) => {{
    const cell = {NOTEBOOK}.widgets.find(cell => cell.model.id === id);
    if (!cell || !cell.node.isConnected) return false;
    const box = cell.node.getBoundingClientRect();
    const port = {NOTEBOOK}.node.getBoundingClientRect();
    const top = Math.max(port.top, 0), bottom = Math.min(port.bottom, window.innerHeight);
    return box.height > 0 && box.top < bottom - 10 && box.bottom > top + 10;
}}"""

# Whether cell `id` is the notebook's active cell, the only one selected, and in view.
AT_CELL = f"""(id) => {{
    const notebook = {NOTEBOOK};
    const cell = notebook.activeCell;
    if (!cell || cell.model.id !== id || notebook.mode !== 'command') return false;
    if (!cell.node.classList.contains('jp-mod-selected')) return false;
    if (notebook.widgets.some(other => other !== cell && notebook.isSelected(other))) return false;
    return ({IN_VIEW})(id);
}}"""


def scroll_to_top(page) -> None:
    """The notebook scrolled back to its first cell (the card's), as a person would."""
    page.evaluate(f"async () => {{ await {NOTEBOOK}.scrollToItem(0, 'start'); }}")
    page.wait_for_function(f"() => ({IN_VIEW})('setup')", timeout=30_000)


def away_from(page, cell_id: str) -> None:
    """The active cell is another one, and `cell_id` is out of view: a test that it was gone to
    can fail."""
    assert page.evaluate(f"(id) => !({IN_VIEW})(id)", cell_id), f"{cell_id} is in view already"
    assert not page.evaluate(f"(id) => {NOTEBOOK}.activeCell.model.id === id", cell_id)


# What the notebook shows, for a failure's message.
WHERE = f"""(id) => {{
    const notebook = {NOTEBOOK};
    return {{
        active: notebook.activeCell && notebook.activeCell.model.id,
        mode: notebook.mode,
        selected: notebook.widgets.filter(c => notebook.isSelected(c)).map(c => c.model.id),
        inView: ({IN_VIEW})(id),
        focus: document.activeElement && document.activeElement.outerHTML.slice(0, 120),
    }};
}}"""


def shows(locator, text) -> None:
    """The text a person sees there (spaces collapsed), once it is laid out."""
    from playwright.sync_api import expect

    expect(locator).to_have_text(text, use_inner_text=True, timeout=30_000)


def arrives_at(page, cell_id: str) -> None:
    from playwright.sync_api import TimeoutError as Timeout

    try:
        page.wait_for_function(AT_CELL, arg=cell_id, timeout=30_000)
    except Timeout:
        where = page.evaluate(WHERE, cell_id)
        raise AssertionError(f"the notebook did not go to cell {cell_id}: {where}") from None


def test_the_card_links_each_step_to_its_cells(page, app, dialogs, errors):
    page.set_viewport_size({"width": 1100, "height": 900})
    name = f"links-{app['kind']}.ipynb"
    notebook = nbformat.v4.new_notebook(
        cells=notebook_cells(),
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbformat.write(notebook, app["root"] / name)
    open_in(page, app, name)
    run(page, "setup")
    card = page.locator(CARDS).first
    card.get_by_text("Parse the dates").wait_for(timeout=30_000)

    # The cells run while the step is in progress appear on the live card by themselves.
    run(page, OK_ID, FAILED_ID, SCRATCH_ID)
    ok, failed, scratch = (count_of(page, cell) for cell in (OK_ID, FAILED_ID, SCRATCH_ID))
    cells = card.locator(".jp-plans-step-cells")
    ok_link = cells.get_by_role("button", name=f"Go to cell {ok}", exact=True)
    failed_link = cells.get_by_role("button", name=f"Go to cell {failed}, failed", exact=True)
    scratch_link = cells.get_by_role("button", name=f"Go to cell {scratch}", exact=True)
    scratch_link.wait_for(timeout=30_000)
    scroll_to_top(page)  # cells far out of view are not laid out (content-visibility)
    shows(cells.get_by_role("button"), [f"[{ok}]", f"[{failed}]", f"[{scratch}]"])
    # The failed run is marked by a crossed circle of its own, not by its colour alone.
    assert failed_link.locator(".jp-plans-icon-failed").count() == 1
    assert ok_link.locator(".jp-plans-icon-failed").count() == 0

    # A click selects the cell and scrolls to it.
    scroll_to_top(page)
    away_from(page, FAILED_ID)
    failed_link.click()
    arrives_at(page, FAILED_ID)

    # So does Enter on the focused link.
    scroll_to_top(page)
    ok_link.focus()
    away_from(page, OK_ID)
    page.keyboard.press("Enter")
    arrives_at(page, OK_ID)

    # A deleted cell's link says so when followed, and nothing else moves.
    page.evaluate(
        f"(id) => {NOTEBOOK}.model.sharedModel.deleteCell("
        f"{NOTEBOOK}.widgets.findIndex(cell => cell.model.id === id))",
        SCRATCH_ID,
    )
    scroll_to_top(page)
    scratch_link.click()
    card.get_by_text("That cell is no longer in this notebook.").wait_for(timeout=10_000)
    gone = cells.get_by_role(
        "button", name=f"Go to cell {scratch}, no longer in this notebook", exact=True
    )
    assert gone.get_attribute("title") == "That cell is no longer in this notebook."
    assert page.evaluate(f"() => {NOTEBOOK}.activeCell.model.id") == "setup"

    # The step completed, its evidence citing cells: each cited cell is the same link.
    run(page, "complete")
    evidence = card.locator(".jp-plans-step-evidence")
    evidence.wait_for(timeout=30_000)
    scroll_to_top(page)
    shows(
        evidence,
        f"evidence: Parsed in cell [{ok}]; cell [{failed}] failed on June;"
        f" the first try was cell {NEVER_ID[:8]}….",
    )
    scroll_to_top(page)
    away_from(page, OK_ID)
    evidence.get_by_role("button", name=f"Go to cell {ok}", exact=True).click()
    arrives_at(page, OK_ID)
    scroll_to_top(page)
    evidence.get_by_role("button", name=f"Go to cell {failed}, failed", exact=True).click()
    arrives_at(page, FAILED_ID)
    assert card.get_by_text("That cell is no longer in this notebook.").count() == 0
    scroll_to_top(page)
    evidence.get_by_role("button", name=f"Go to cell {NEVER_ID[:8]}…", exact=True).click()
    card.get_by_text("That cell is no longer in this notebook.").wait_for(timeout=10_000)
    # Model text stays text: the evidence made no element but its links and its code span.
    assert evidence.locator("*:not(button):not(button *):not(.jp-plans-meta-label)").count() == 0

    # The completed step's cell run again with other code: the step says it changed after.
    page.evaluate(
        f"(id) => {NOTEBOOK}.widgets.find(cell => cell.model.id === id)"
        '.model.sharedModel.setSource(\'dates = ["2024-06-01", "2024-06-02"]\')',
        OK_ID,
    )
    assert card.get_by_text("changed after completion").count() == 0
    run(page, OK_ID)
    rerun = count_of(page, OK_ID)
    parse = card.locator(".jp-plans-step[data-step-id='parse']")
    parse.get_by_text("changed after completion", exact=True).wait_for(timeout=30_000)
    scroll_to_top(page)
    shows(parse.locator(".jp-plans-changed-which"), f"cell [{rerun}] ran again with other code")
    changed_link = parse.locator(".jp-plans-step-cells").get_by_role(
        "button", name=f"Go to cell {rerun}, changed after completion", exact=True
    )
    shows(changed_link, f"[{rerun}]")

    # The card shown again holds the cells in its saved output.
    run(page, "show")
    shown = page.locator(CARDS).last
    shown.get_by_text("changed after completion", exact=True).wait_for(timeout=30_000)

    # The Plan panel shows the same links; they lead into the notebook it shows.
    panel = open_panel(page)
    panel_link = panel.locator(".jp-plans-step-cells").get_by_role(
        "button", name=f"Go to cell {failed}, failed", exact=True
    )
    panel_link.wait_for(timeout=30_000)
    assert serious_findings(page, "#jupyter-plans-panel") == []  # axe-core, as for the card
    scroll_to_top(page)
    away_from(page, FAILED_ID)
    panel_link.click()
    arrives_at(page, FAILED_ID)
    errors.assert_none()

    # Saved, and reopened with a new kernel: the saved card's links lead to the cells too.
    save_notebook(page)
    shut_down_kernel(page)
    open_in(page, app, name)
    saved = page.locator(CARDS).last
    saved.get_by_text("Saved output").wait_for(timeout=30_000)
    saved_link = saved.locator(".jp-plans-step-cells").get_by_role(
        "button", name=f"Go to cell {failed}, failed", exact=True
    )

    # At the top of the notebook's view, so the cells above the card (the failed one among
    # them) are out of it: centred, as Playwright scrolls, the short cells between may show it.
    # Scrolled again until it holds: a notebook just opened still lays out its cells, and
    # their heights, measured, move what shows.
    def link_at_the_top() -> bool:
        saved_link.evaluate("link => link.scrollIntoView({block: 'start'})")
        return page.evaluate(f"(id) => !({IN_VIEW})(id)", FAILED_ID)

    wait_until(link_at_the_top, f"cell {FAILED_ID} out of view", timeout=30)
    away_from(page, FAILED_ID)
    saved_link.click()
    arrives_at(page, FAILED_ID)
    assert dialogs == []
