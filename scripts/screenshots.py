"""Every picture under docs/, made again (`make screenshots`): a real JupyterLab and Debian's
Chromium, each plan written as an agent writes it (tests/e2e/scenes.py shares the busiest one
with the browser tests). Pictures are made here only, never by a test; look at each before
committing it.

    .venv/bin/python scripts/screenshots.py            # all of them
    .venv/bin/python scripts/screenshots.py card-light # those whose name starts so
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e import scenes  # noqa: E402
from tests.e2e.browser import launch  # noqa: E402
from tests.e2e.lab_actions import (  # noqa: E402
    CARDS,
    cell_of,
    live_card,
    run_new_cell,
    save_card_output,
    set_theme,
    settled,
)
from tests.e2e.notebook_page import cell_index, open_notebook, run_cells  # noqa: E402
from tests.jupyter_process import jupyter_lab  # noqa: E402

DOCS = REPO / "docs"
THEMES = {"light": False, "dark": True}


def clip(page, locators, name: str, margin: int = 12) -> None:
    """docs/NAME: the smallest box of the page holding every locator, plus `margin`."""
    locators[0].scroll_into_view_if_needed()
    settled(page)
    boxes = [locator.bounding_box() for locator in locators]
    left = max(0, min(box["x"] for box in boxes) - margin)
    top = max(0, min(box["y"] for box in boxes) - margin)
    right = max(box["x"] + box["width"] for box in boxes) + margin
    bottom = max(box["y"] + box["height"] for box in boxes) + margin
    size = {"width": right - left, "height": bottom - top}
    page.screenshot(path=str(DOCS / name), clip={"x": left, "y": top, **size})
    print(f"docs/{name}: {round(size['width'])} x {round(size['height'])}")


def themed(page, name: str, take) -> None:
    """docs/NAME-light.png and docs/NAME-dark.png, by take(file name); light again after."""
    for theme, dark in THEMES.items():
        set_theme(page, dark)
        take(f"{name}-{theme}.png")
    set_theme(page, False)


def open_panel(page):
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.wait_for(timeout=10_000)
    return panel


def waiting(card):
    card.get_by_text("Waiting for your decision").wait_for(timeout=60_000)
    return card


# The pictures, each a function of (page, lab); every name is a file of docs/.


def card_and_panel(page, lab) -> None:
    """card-light/dark (the projector card at the mockup's width) and panel-250-light/dark."""
    scenes.projector(lab["root"], "sales-analysis", lab["codex"])
    page.set_viewport_size({"width": 940, "height": 1400})
    card = waiting(live_card(page, lab, "sales-analysis"))
    card.locator(".jp-plans-guard-silent").wait_for(timeout=30_000)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # the mockup's width
    settled(page)
    print(f"the card: {card.bounding_box()['width']} x {card.bounding_box()['height']} px")
    themed(page, "card", lambda name: clip(page, [cell_of(card)], name))
    page.set_viewport_size({"width": 1100, "height": 950})
    panel = waiting(open_panel(page))
    settled(page)
    themed(page, "panel-250", lambda name: clip(page, [panel], name, margin=0))


def panel_beside(page, lab) -> None:
    """panel.png: the Plan panel beside its notebook, a revised proposal waiting."""
    scenes.projector(lab["root"], "beside")
    page.set_viewport_size({"width": 1360, "height": 940})
    waiting(live_card(page, lab, "beside"))
    waiting(open_panel(page))
    settled(page)
    page.screenshot(path=str(DOCS / "panel.png"))
    print("docs/panel.png: 1360 x 940")


def superseded(page, lab) -> None:
    """card-superseded-light/dark: a newer card took over; the older tells its moment."""
    session = scenes.waiting(lab["root"], "story")
    page.set_viewport_size({"width": 1100, "height": 1600})
    open_notebook(page, lab, "story.ipynb")
    run_cells(page, 0, 0)
    run_new_cell(page, "%plan")
    newer = waiting(page.locator(CARDS).nth(1))
    scenes.resubmit(session)
    newer.get_by_text(scenes.RESUBMITTED["steps"][0]["description"]).wait_for(timeout=30_000)
    cells = [cell_of(page.locator(CARDS).nth(0)), cell_of(newer)]
    settled(page)
    themed(page, "card-superseded", lambda name: clip(page, cells, name))


def saved(page, lab) -> None:
    """card-saved-light/dark and card-now-light/dark: a saved card, and the plan as it is now."""
    session = scenes.waiting(lab["root"], "saved")
    save_card_output(lab["root"], "saved", session, scenes.KERNELSPEC)
    scenes.resubmit(session)
    page.set_viewport_size({"width": 1100, "height": 1200})
    open_notebook(page, lab, "saved.ipynb")
    card = page.locator(CARDS).first
    offer = card.get_by_role("button", name="Show the plan as it is now")
    offer.wait_for(timeout=30_000)
    settled(page)
    themed(page, "card-saved", lambda name: clip(page, [cell_of(card)], name))
    offer.click()
    card.locator(".jp-plans-notice-current").wait_for(timeout=30_000)
    settled(page)
    themed(page, "card-now", lambda name: clip(page, [cell_of(card)], name))


def one_card(stem: str, make, name: str, ready: str, width: int = 1100):
    """A picture of the live card of `stem` once it shows `ready`."""

    def take(page, lab) -> None:
        make(lab["root"], stem)
        page.set_viewport_size({"width": width, "height": 1400})
        card = live_card(page, lab, stem)
        card.get_by_text(ready).first.wait_for(timeout=60_000)
        settled(page)
        clip(page, [card], name, margin=0)

    take.__doc__ = f"{name}: the live card of {stem}"
    return take


def quickstart(page, lab) -> None:
    """card-in-lab.png and card-proposal.png (the quickstart's proposal), card-progress.png."""
    open_notebook(page, lab, "01-quickstart.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    approve = cell_index(page, "%plan approve")
    run_cells(page, 0, approve - 1)
    card = waiting(page.locator(CARDS).last)
    settled(page)
    clip(page, [card], "card-in-lab.png", margin=0)
    clip(page, [card], "card-proposal.png", margin=0)
    card.get_by_role("button", name="Approve").click()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=30_000)
    total = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.length")
    run_cells(page, approve + 1, total - 1)
    last = page.locator(CARDS).last
    last.get_by_text("steps marked complete by the agent").wait_for(timeout=60_000)
    settled(page)
    clip(page, [last], "card-progress.png", margin=0)


def acp_bridge(page, lab) -> None:
    """acp-proposal.png: notebook 05's bridged agent proposing, at twice the pixels."""
    open_notebook(page, lab, "05-acp-bridge.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    sent = cell_index(page, "chat.send(")
    run_cells(page, 0, sent)
    card = waiting(page.locator(CARDS).last)  # the card chat.send shows: the live one
    settled(page)
    clip(page, [card], "acp-proposal.png", margin=0)


def earlier_session(page, lab) -> None:
    """panel-earlier.png: an earlier session picked in the panel, with its notice."""
    scenes.sessions_with_an_earlier(lab["root"], "picker")
    page.set_viewport_size({"width": 1100, "height": 950})
    open_notebook(page, lab, "picker.ipynb")
    panel = open_panel(page)
    picker = panel.locator(".jp-plans-panel-sessions")
    picker.wait_for(timeout=30_000)
    picker.select_option("default")
    waiting(panel)
    notice = panel.locator(".jp-plans-panel-earlier")
    settled(page)
    clip(page, [panel.locator(".jp-plans-panel-bar"), notice], "panel-earlier.png", margin=0)


PICTURES = {
    "card-light": card_and_panel,
    "panel.png": panel_beside,
    "card-superseded": superseded,
    "card-saved": saved,
    "card-cells": one_card("cells", scenes.cells, "card-cells.png", "changed after completion"),
    "card-comments": one_card("comments", scenes.comments, "card-comments.png", "keep it short"),
    "card-question": one_card("question", scenes.question, "card-question.png", "The agent asks"),
    "card-finished": one_card("finished", scenes.finished, "card-finished.png", "Finished"),
    "card-in-lab": quickstart,
    "acp-proposal": acp_bridge,
    "panel-earlier": earlier_session,
}


def main(wanted: list[str]) -> int:
    picked = tuple(wanted) or ("",)
    chosen = [make for name, make in PICTURES.items() if name.startswith(picked)]
    root = Path(tempfile.mkdtemp(prefix="jupyter-plans-screenshots-"))
    for notebook in (REPO / "notebooks").glob("*.ipynb"):
        (root / notebook.name).write_bytes(notebook.read_bytes())
    codex = root.parent / f"{root.name}-codex-home"
    started = time.monotonic()
    with jupyter_lab(root, "screenshots", env={"CODEX_HOME": str(codex)}) as base:
        lab = {"base": base, "token": "screenshots", "root": root, "codex": codex}
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for make in chosen:
                scale = 2 if make is acp_bridge else 1
                context = browser.new_context(
                    viewport={"width": 1100, "height": 1400}, device_scale_factor=scale
                )
                make(context.new_page(), lab)
                context.close()
            browser.close()
    print(f"{len(chosen)} groups of pictures in {time.monotonic() - started:.0f} s; look at each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
