"""Debian's Chromium, started as the browser tests and `make screenshots` start it: never a
downloaded browser, and nothing it would fetch on its own."""

import os
import shutil
from pathlib import Path

import pytest

from tests.lanes import needs

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


def require_chromium() -> None:
    """Browser tests fail in CI without Chromium, and skip with the reason elsewhere."""
    needs("browser", "Chromium")
    if Path(CHROMIUM).exists():
        return
    reason = "Debian's chromium is not installed (as root: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)
