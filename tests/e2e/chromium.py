"""Debian's Chromium for the browser tests, or the reason there is none."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.lanes import needs

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def require_chromium() -> None:
    """Browser tests fail in CI without Chromium, and skip with the reason elsewhere."""
    needs("browser", "Chromium")
    if Path(CHROMIUM).exists():
        return
    reason = "Debian's chromium is not installed (as root: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)
