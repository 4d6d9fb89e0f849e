"""A real JupyterLab server and Debian's Chromium, for the browser tests."""

import contextlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.jupyter_process import jupyter
from tests.lanes import needs

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
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
    with running_lab(root) as found:
        yield found


@contextlib.contextmanager
def running_lab(root: Path, *options: str):
    """JupyterLab serving ROOT with OPTIONS added, as the browser tests run it."""
    settings = root / ".settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:notification": {
                    "checkForUpdates": False,
                    "fetchNews": "false",
                }
            }
        )
    )
    token = "plans-e2e-token"
    options = (
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={root / '.user-settings'}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
        *options,
    )
    with jupyter("lab", root, token, *options, log=root / "lab.log") as (_, base):
        yield {"base": base, "token": token, "root": root}


@contextlib.contextmanager
def chromium_page():
    """A page of Debian's Chromium, headless, closed when the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        context = browser.new_context(viewport={"width": 1100, "height": 2400})
        yield context.new_page()
        browser.close()


@pytest.fixture
def page(lab):
    with chromium_page() as opened:
        yield opened


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
