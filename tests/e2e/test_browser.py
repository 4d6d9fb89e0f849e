"""The quickstart in a real JupyterLab and Chromium: see the card, approve from it, stay safe."""

from tests.e2e.notebook_page import cell_index, open_notebook, run_cells, run_js


def test_quickstart_card_approve_and_progress(page, lab, dialogs):
    open_notebook(page, lab, "01-quickstart.ipynb")
    run_js(page, "() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    approve_cell = cell_index(page, "%plan approve")
    assert approve_cell > 0
    run_cells(page, 0, approve_cell - 1)

    card = page.locator(".jp-plans-card").last
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    card.get_by_text("PLAN MODE", exact=False).first.wait_for()

    card.get_by_role("button", name="Approve").click()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)

    total = run_js(page, "() => window.jupyterapp.shell.currentWidget.content.widgets.length")
    run_cells(page, approve_cell + 1, total - 1)
    page.locator(".jp-plans-card").last.get_by_text("steps marked complete by the agent").wait_for()
    text = page.locator(".jp-plans-card").last.inner_text()
    assert "0 of" not in text.split("steps marked complete")[0][-8:]

    # Model text is text: a step described as HTML shows as those characters, and runs nothing.
    hostile = "<img src=x onerror=alert(1)>"
    source = (
        "import jupyter_plans\n"
        "s = jupyter_plans.current_session()\n"
        "s.call_tool('update_plan', {'expected_revision': s.snapshot().plan.revision,"
        f" 'steps': [{{'id': 'x', 'description': {hostile!r}}}]}})"
    )
    page.evaluate(
        """async (source) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = panel.content.widgets.length - 1;
            await window.jupyterapp.commands.execute('notebook:insert-cell-below');
            panel.content.activeCell.model.sharedModel.setSource(source);
            await window.jupyterapp.commands.execute('notebook:run-cell');
        }""",
        source,
    )
    # One live card per session: the last one shown follows; the earlier ones keep their story.
    live = page.locator(".jp-OutputArea .jp-plans-card").last
    live.get_by_text(hostile).wait_for(timeout=10_000)
    page.wait_for_timeout(500)  # on purpose: an injected element's handler would have run
    assert dialogs == []
    assert page.locator(".jp-plans-card img").count() == 0
