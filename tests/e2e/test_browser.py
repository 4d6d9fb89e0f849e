"""The quickstart in a real JupyterLab and Chromium: see the card, approve from it, stay safe."""

from pathlib import Path


def loading_notebook(root: Path, name: str) -> Path:
    """A notebook whose one cell loads the extension, with a kernel named, so JupyterLab
    opens it without asking which kernel to use."""
    import nbformat

    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("%load_ext jupyter_plans")],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    nbformat.write(notebook, root / name)
    return root / name


def agent_session(root: Path, stem: str):
    """A notebook `stem`.ipynb that loads the extension, and its session as an agent in
    another process reaches it."""
    from jupyter_plans import PlanStore

    loading_notebook(root, f"{stem}.ipynb")
    return PlanStore(root / f"{stem}.plans.sqlite").session("default")


def live_card(page, lab, stem):
    """The live card of the notebook `stem`.ipynb, opened and its one cell run."""
    open_notebook(page, lab, f"{stem}.ipynb")
    run_cells(page, 0, 0)
    return page.locator(".jp-OutputArea .jp-plans-card").first


def run_js(page, script):
    return page.evaluate(script)


def open_notebook(page, lab, name):
    # A workspace of this notebook's own: the default one restores the notebooks an earlier
    # test of the module left open (one with no kernelspec asks to select a kernel, in a
    # dialog over this one).
    workspace = "".join(c if c.isalnum() else "-" for c in name)
    page.goto(f"{lab['base']}/lab/workspaces/{workspace}/tree/{name}?token={lab['token']}")
    # This notebook, not one the workspace of an earlier test of the module restored first.
    page.wait_for_function(
        "(name) => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.context"
        " && window.jupyterapp.shell.currentWidget.context.path === name"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel",
        arg=name,
        timeout=60_000,
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
        " === 'idle'",
        timeout=60_000,
    )


def cell_index(page, needle):
    return run_js(
        page,
        f"""() => window.jupyterapp.shell.currentWidget.content.widgets
              .findIndex(c => c.model.sharedModel.getSource().includes({needle!r}))""",
    )


def run_cells(page, first, last):
    """Run cells first..last (inclusive), one by one, waiting for each."""
    for index in range(first, last + 1):
        run_js(
            page,
            f"""async () => {{
                const panel = window.jupyterapp.shell.currentWidget;
                panel.content.activeCellIndex = {index};
                await window.jupyterapp.commands.execute('notebook:run-cell');
            }}""",
        )
        page.wait_for_function(
            f"""() => {{
                const cell = window.jupyterapp.shell.currentWidget.content.widgets[{index}];
                return cell.model.type !== 'code' || cell.model.executionCount !== null
                    && window.jupyterapp.shell.currentWidget.sessionContext.session
                        .kernel.status === 'idle';
            }}""",
            timeout=60_000,
        )


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
