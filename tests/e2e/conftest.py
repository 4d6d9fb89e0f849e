"""A real JupyterLab server and Debian's Chromium, for the browser tests."""

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.browser import launch, require_chromium
from tests.jupyter_process import jupyter, jupyter_lab

REPO = Path(__file__).parents[2]


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


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a module's tests; each test has a context of its own (its own cookies,
    storage and pages), as a new browser would give it. While it runs, Playwright's loop holds
    the thread: a module that uses it runs no asyncio of its own."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(lab, browser):
    context = browser.new_context(viewport={"width": 1100, "height": 2400})
    yield context.new_page()
    context.close()


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


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    """Notebook 7 on a folder of its own, answering on 127.0.0.1."""

    require_chromium()
    root = tmp_path_factory.mktemp("nb7")
    settings = root / ".settings"
    settings.mkdir()
    quiet = {"checkForUpdates": False, "fetchNews": "false"}
    overrides = {"@jupyterlab/apputils-extension:notification": quiet}
    (settings / "overrides.json").write_text(json.dumps(overrides))
    token = "plans-nb7-token"
    options = (
        "--JupyterNotebookApp.expose_app_in_browser=True",
        f"--JupyterNotebookApp.app_settings_dir={settings}",
        f"--JupyterNotebookApp.user_settings_dir={root / '.user-settings'}",
    )
    with jupyter("notebook", root, token, *options, log=root / "notebook.log") as (_, base):
        yield {"base": base, "token": token, "root": root, "kind": "notebook7"}


@pytest.fixture(params=["jupyterlab", "notebook7"])
def app(request, lab):
    if request.param == "jupyterlab":
        return {**lab, "kind": "jupyterlab"}
    return request.getfixturevalue("notebook7")
