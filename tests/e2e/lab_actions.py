"""What a person does to a notebook in JupyterLab, for the browser tests: run a new cell,
restart or shut down its kernel, switch the theme, and write a notebook whose saved output is a
card."""

from __future__ import annotations

import nbformat

from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import MIME_TYPE, card_data
from jupyter_plans.plan.text import render_text
from tests.e2e.notebook_page import open_notebook, run_cells
from tests.waiting import wait_until

CURRENT = "window.jupyterapp.shell.currentWidget"
# The open notebook's cards, not those of a notebook an earlier test left in another tab.
CARDS = ".jp-NotebookPanel:visible .jp-OutputArea .jp-plans-card"


def live_card(page, lab, stem):
    """The live card of STEM.ipynb, opened and its one cell run."""
    open_notebook(page, lab, f"{stem}.ipynb")
    run_cells(page, 0, 0)
    return page.locator(CARDS).first


def wait_idle(page, timeout: int = 60_000) -> None:
    page.wait_for_function(
        f"() => {CURRENT}.sessionContext.session"
        f" && {CURRENT}.sessionContext.session.kernel"
        f" && {CURRENT}.sessionContext.session.kernel.status === 'idle'",
        timeout=timeout,
    )


def restart_kernel(page) -> None:
    """Restarts the current notebook's kernel, as Kernel > Restart Kernel does, without its
    confirmation dialog; returns once the new kernel is idle."""
    page.evaluate(f"() => {CURRENT}.sessionContext.restartKernel()")
    wait_idle(page)


def shut_down_kernel(page) -> None:
    page.evaluate(f"() => {CURRENT}.sessionContext.shutdown()")
    page.wait_for_function(f"() => !{CURRENT}.sessionContext.session", timeout=30_000)


def settled(page) -> None:
    """Until no CSS transition runs on the page and two frames were drawn since: what a change
    of theme or sizes restyles is drawn as it ends."""
    page.wait_for_function(
        "() => document.getAnimations().every(a => !(a instanceof CSSTransition)"
        " || a.playState !== 'running')",
        timeout=10_000,
    )
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def set_theme(page, dark: bool) -> None:
    theme = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    page.wait_for_function(
        "(dark) => document.body.dataset.jpThemeLight === String(!dark)", arg=dark, timeout=30_000
    )
    # JupyterLab's splash fades for 200 ms after a theme loads, then removes itself; a theme
    # changed again within that time has the splash removed twice and JupyterLab throws
    # "The node to be removed is not a child of this node". A person is never that quick.
    page.wait_for_function("() => !document.getElementById('jupyterlab-splash')", timeout=30_000)
    settled(page)  # the theme's variables reach every element


def set_presentation_mode(page, on: bool) -> None:
    """View > Presentation Mode, on or off, as its menu item toggles it."""
    shell = ".jp-LabShell.jp-mod-presentationMode"
    if page.evaluate("(shell) => !!document.querySelector(shell)", shell) != on:
        page.evaluate(
            "() => window.jupyterapp.commands.execute('application:toggle-presentation-mode')"
        )
    page.wait_for_function("([s, on]) => !!document.querySelector(s) === on", arg=[shell, on])
    settled(page)  # the new sizes reach every element


def run_new_cell(page, source: str) -> None:
    """A new code cell at the end holding SOURCE, run; returns once the kernel is idle."""
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
    page.wait_for_function(
        f"""(source) => {{
            const panel = {CURRENT};
            const cell = panel.content.widgets[panel.content.widgets.length - 1];
            return cell.model.sharedModel.getSource() === source
                && cell.model.executionCount !== null
                && panel.sessionContext.session.kernel.status === 'idle';
        }}""",
        arg=source,
        timeout=60_000,
    )


def cell_of(locator):
    """The notebook cell around LOCATOR: its prompt and input, as a person sees the output."""
    return locator.locator(
        "xpath=ancestor::div[contains(concat(' ', @class, ' '), ' jp-Cell ')][1]"
    )


def output_json(page, cell: int) -> str:
    """The outputs of cell number CELL as the notebook's model holds them (what is saved)."""
    return page.evaluate(
        f"(cell) => JSON.stringify({CURRENT}.content.widgets[cell].model.outputs.toJSON())", cell
    )


def save_notebook(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function(f"() => !{CURRENT}.context.model.dirty", timeout=30_000)


def notebook_dirty(page) -> bool:
    return page.evaluate(f"() => {CURRENT}.context.model.dirty")


KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def save_card_output(root, stem, session, kernelspec: dict | None = None) -> None:
    """STEM.ipynb with one cell whose saved output is the card of SESSION as it is now, and the
    widget view a kernel's card leaves behind (its model long gone)."""
    data = card_data(session, f"{stem}.ipynb")
    output = nbformat.v4.new_output(
        "display_data",
        data={
            MIME_TYPE: data,
            "application/vnd.jupyter.widget-view+json": {
                "version_major": 2,
                "version_minor": 0,
                "model_id": "0" * 32,
            },
            "text/html": card_html(data),
            "text/plain": render_text(session.snapshot()),
        },
    )
    cell = nbformat.v4.new_code_cell("%plan", outputs=[output], execution_count=1)
    metadata = {"kernelspec": kernelspec} if kernelspec else {}
    notebook = nbformat.v4.new_notebook(cells=[cell], metadata=metadata)
    nbformat.write(notebook, root / f"{stem}.ipynb")


def box(locator) -> dict:
    """The locator's bounding box, read again until it has one: the card draws itself anew on
    a change, and the node a read finds may be the one just replaced (no box)."""
    return wait_until(locator.bounding_box, f"a box for {locator}", timeout=30)


def line_height(locator) -> float:
    """The locator's computed line height in px, read again until it is a number: a node the
    card has just replaced is out of the document, and its computed style reads `normal`."""
    return wait_until(
        lambda: locator.evaluate(
            "(node) => node.isConnected ? parseFloat(getComputedStyle(node).lineHeight) || null"
            " : null"
        ),
        f"a line height for {locator}",
        timeout=30,
    )
