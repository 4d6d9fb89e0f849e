"""What ships with the package for SQLite, made ahead by compiled.py: every statement's compiled
form and the tables of a new plan file, read once per process."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SHIPPED = Path(__file__).with_name("sqlite_statements.json")


@functools.cache
def shipped_forms() -> dict[str, Any]:
    """The compiled forms for SQLite that ship with the package (statements.py)."""
    try:
        return json.loads(SHIPPED.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
