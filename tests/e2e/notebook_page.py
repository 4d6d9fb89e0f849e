"""A notebook in the page, for the browser tests: written, opened in JupyterLab or Notebook 7,
its cells run, its live card found, the Plan panel opened, and what axe-core finds there."""

from __future__ import annotations

from pathlib import Path

from jupyter_plans import PlanStore


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


PANEL = "#jupyter-plans-panel"


def open_panel(page):
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator(PANEL)
    panel.wait_for(timeout=10_000)
    return panel


def run_cell_without_waiting(page, source: str) -> None:
    page.evaluate(
        """async (source) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = panel.content.widgets.length - 1;
            await window.jupyterapp.commands.execute('notebook:insert-cell-below');
            panel.content.activeCell.model.sharedModel.setSource(source);
            void window.jupyterapp.commands.execute('notebook:run-cell');
        }""",
        source,
    )


CARDS = ".jp-NotebookPanel:visible .jp-OutputArea .jp-plans-card"


def open_in(page, app, name: str) -> None:
    """Opens notebook `name` in the app, and waits for its kernel."""
    if app["kind"] == "jupyterlab":
        workspace = "".join(c if c.isalnum() else "-" for c in name)
        url = f"{app['base']}/lab/workspaces/{workspace}/tree/{name}?token={app['token']}"
    else:
        url = f"{app['base']}/notebooks/{name}?token={app['token']}"
    page.goto(url)
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.path === name && w.sessionContext"
        " && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.status === 'idle'; }",
        arg=name,
        timeout=60_000,
    )


def live_card_in(page, app, stem: str):
    open_in(page, app, f"{stem}.ipynb")
    run_cells(page, 0, 0)
    card = page.locator(f"{CARDS}, .jp-Notebook .jp-OutputArea .jp-plans-card").first
    card.wait_for(timeout=30_000)
    return card


AXE = Path(__file__).parents[2] / "labextension" / "node_modules" / "axe-core" / "axe.min.js"


def serious_findings(page, selector: str) -> list[str]:
    """What axe-core (the npm package, in the page) finds serious or critical in `selector`."""
    assert page.locator(selector).count() == 1, selector
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async (selector) => {
            const results = await window.axe.run(document.querySelector(selector),
                {resultTypes: ['violations']});
            return results.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => `${v.id} (${v.impact}): `
                    + v.nodes.map(n => n.target.join(' ')).join(', '));
        }""",
        selector,
    )
    return found


def cell_index(page, needle):
    return run_js(
        page,
        f"""() => window.jupyterapp.shell.currentWidget.content.widgets
              .findIndex(c => c.model.sharedModel.getSource().includes({needle!r}))""",
    )
