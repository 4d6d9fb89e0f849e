"""A real JupyterLab server and Debian's Chromium, for the browser tests."""

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.browser import CHROMIUM, launch
from tests.jupyter_process import jupyter_lab
from tests.lanes import needs

REPO = Path(__file__).parents[2]


def require_chromium() -> None:
    """Browser tests fail in CI without Chromium, and skip with the reason elsewhere."""
    needs("browser", "Chromium")
    if Path(CHROMIUM).exists():
        return
    reason = "Debian's chromium is not installed (as root: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a copy of notebooks/, answering on 127.0.0.1."""
    require_chromium()
    root = tmp_path_factory.mktemp("lab")
    for notebook in (REPO / "notebooks").glob("*.ipynb"):
        shutil.copy(notebook, root / notebook.name)
    token = "plans-e2e-token"
    with jupyter_lab(root, token) as base:
        yield {"base": base, "token": token, "root": root}


@pytest.fixture
def page(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(viewport={"width": 1100, "height": 2400})
        yield context.new_page()
        browser.close()


@pytest.fixture
def dialogs(page):
    """The messages of every JavaScript dialog the page opens (a sign of injected script);
    each is dismissed."""
    seen: list[str] = []
    page.on("dialog", lambda dialog: (seen.append(dialog.message), dialog.dismiss()))
    return seen


@pytest.fixture
def errors(page):
    """The errors the page logs (console errors, uncaught exceptions); see console.py."""
    from tests.e2e.console import PageErrors

    return PageErrors(page)
