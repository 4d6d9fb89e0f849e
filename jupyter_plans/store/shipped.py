"""What ships with the package for SQLite, made ahead by compiled.py: every statement's compiled
form and the tables of a new plan file, read once per process.

Imported by the coding-agent hook, which starts with the standard library's sqlite3 alone:
neither json, pathlib nor typing is loaded here (SHIPPED, a Path, loads pathlib when asked for).
"""

from __future__ import annotations

import functools
import os

from .. import json_lite

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SHIPPED_PATH = os.path.join(os.path.dirname(__file__), "sqlite_statements.json")


def __getattr__(name: str) -> Path:
    if name == "SHIPPED":
        from pathlib import Path

        return Path(SHIPPED_PATH)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def shipped_forms() -> dict[str, Any]:
    """The compiled forms for SQLite that ship with the package (statements.py)."""
    try:
        with open(SHIPPED_PATH, encoding="utf-8") as file:
            return json_lite.loads(file.read())
    except FileNotFoundError:
        return {}
