"""What a person does to a notebook in JupyterLab, for the browser tests: restart or shut down
its kernel, switch the theme, and photograph a part of the page for docs/."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_browser import open_notebook, run_cells

DOCS = Path(__file__).parents[2] / "docs"

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


def set_theme(page, dark: bool) -> None:
    theme = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    page.wait_for_function(
        "(dark) => document.body.dataset.jpThemeLight === String(!dark)", arg=dark, timeout=30_000
    )
    page.wait_for_timeout(400)  # the theme's variables reach every element


def shot_of(page, locators, name: str, margin: int = 12) -> Path:
    """A screenshot of the smallest box holding every locator (plus `margin`), as docs/NAME."""
    boxes = [locator.bounding_box() for locator in locators]
    left = max(0, min(box["x"] for box in boxes) - margin)
    top = max(0, min(box["y"] for box in boxes) - margin)
    right = max(box["x"] + box["width"] for box in boxes) + margin
    bottom = max(box["y"] + box["height"] for box in boxes) + margin
    path = DOCS / name
    page.screenshot(
        path=str(path), clip={"x": left, "y": top, "width": right - left, "height": bottom - top}
    )
    return path


def cell_of(locator):
    """The notebook cell around LOCATOR: its prompt and input, as a person sees the output."""
    return locator.locator(
        "xpath=ancestor::div[contains(concat(' ', @class, ' '), ' jp-Cell ')][1]"
    )


def in_both_themes(page, name: str, take) -> list[Path]:
    """Calls take(filename) in the light theme, then the dark one; back to light after."""
    paths = []
    for dark in (False, True):
        set_theme(page, dark)
        paths.append(take(f"{name}-{'dark' if dark else 'light'}.png"))
    set_theme(page, False)
    return paths


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
