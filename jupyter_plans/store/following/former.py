"""The notebooks a plan file was moved from (follow.py's move), on the file itself: a hook
registered for an old name finds the plan by them, and says so once.

Imported by the coding-agent hook: the standard library only.
"""

from __future__ import annotations

import json
import os
import sqlite3

from ..compiled import set_setting, setting
from ..guards import WRITE_WAIT_SECONDS
from ..keys import FORMER_KEY, TOLD_KEY

TYPE_CHECKING = False  # nor typing: the hook starts with the standard library's sqlite3
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MAX_FORMER = 20  # former names kept, newest last


def add_former(connection: sqlite3.Connection, old_notebook: Path, plan: Path) -> None:
    """In the caller's transaction on the moved copy: `old_notebook` is a former name."""
    names = _names(setting(connection, FORMER_KEY))
    name = os.path.relpath(old_notebook, plan.parent)
    names = [n for n in names if n != name] + [name]
    set_setting(connection, FORMER_KEY, json.dumps(names[-MAX_FORMER:]))


def moved_from(plan: Path, notebook_name: str) -> bool:
    """Whether the plan file says it was moved from a notebook of that name beside it."""
    from ..opener import glance

    connection = glance(plan)
    if connection is None:
        return False
    try:
        return notebook_name in _names(setting(connection, FORMER_KEY))
    except sqlite3.Error:
        return False
    finally:
        connection.close()


def first_telling(plan: Path, notebook_name: str) -> bool:
    """True the first time a hook for the former notebook `notebook_name` follows `plan` (it
    then says so once): recorded in the plan file. False after, or when it cannot be written."""
    import contextlib

    from ..opener import writing

    entry = f"{notebook_name} -> {plan.name}"  # moved on again, it is said again
    if not _writable(plan):
        return False  # another user's file: no side file of this user is left beside it
    with contextlib.suppress(sqlite3.Error, OSError):
        connection = writing(plan, wait=WRITE_WAIT_SECONDS)
        try:
            connection.execute("BEGIN IMMEDIATE")
            told = _names(setting(connection, TOLD_KEY))
            if entry in told:
                connection.execute("ROLLBACK")
                return False
            told = (told + [entry])[-MAX_FORMER:]
            set_setting(connection, TOLD_KEY, json.dumps(told))
            connection.execute("COMMIT")
            return True
        finally:
            connection.close()
    return False


def _writable(plan: Path) -> bool:
    effective = os.access in os.supports_effective_ids
    return os.access(plan, os.W_OK, effective_ids=effective) and os.access(
        plan.parent, os.W_OK | os.X_OK, effective_ids=effective
    )


def _names(value: Any) -> list[str]:
    try:
        names = json.loads(value) if value is not None else []
    except (TypeError, ValueError):
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
