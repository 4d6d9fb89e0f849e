"""A driver's error said as ours, once, where a transaction ends (as eventsourcing's Transaction
does): code above the store catches our types (errors.py), never a driver's, and never reads a
driver's message to tell one error from another. Imported by the coding-agent hook: nothing
here loads SQLAlchemy, and psycopg only for an error of its own."""

from __future__ import annotations

import sqlite3

from ..errors import CallIdTaken, OlderSchema, PlanStoreError, RecordConflict, StoreBusy

TYPE_CHECKING = False  # typing is not loaded at run time (the hook)
if TYPE_CHECKING:
    from typing import Any

# The unique index on an accepted call's id (schema.py); a write that reuses the id breaks it.
CALL_INDEX = "plans_events_call"
# How SQLite names that index in its message: by its columns (it gives no constraint name).
_SQLITE_CALL_COLUMNS = "plans_events.session_id, plans_events.call_id"
_SQLITE_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
_SQLITE_NOT_THERE = ("no such table", "no such column")


def first_line(error: BaseException) -> str:
    """A driver's message, first line only: PostgreSQL adds CONTEXT and HINT lines."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def from_sqlite(error: Exception, words: str) -> PlanStoreError:
    """SQLite's `error` as ours, its message after `words` (what was being done)."""
    message = f"{words}: {first_line(error)}"
    name = getattr(error, "sqlite_errorname", None)
    if name in _SQLITE_BUSY:  # the busy timeout ran out: the same operation may succeed later
        return StoreBusy(message)
    if isinstance(error, sqlite3.IntegrityError):
        if name == "SQLITE_CONSTRAINT_UNIQUE" and str(error).endswith(_SQLITE_CALL_COLUMNS):
            return CallIdTaken(message)
        return RecordConflict(message)
    if isinstance(error, sqlite3.OperationalError) and str(error).startswith(_SQLITE_NOT_THERE):
        return OlderSchema(message)
    return PlanStoreError(message)


def from_psycopg(error: Exception, words: str) -> PlanStoreError:
    """psycopg's `error` as ours, its message after `words` (what was being done)."""
    from psycopg import errors

    message = f"{words}: {first_line(error)}"
    if isinstance(error, errors.IntegrityError):
        if _constraint(error) == CALL_INDEX:
            return CallIdTaken(message)
        return RecordConflict(message)
    if isinstance(error, errors.UndefinedTable | errors.UndefinedColumn):
        return OlderSchema(message)
    return PlanStoreError(message)


def _constraint(error: Any) -> str | None:
    diag = getattr(error, "diag", None)
    return None if diag is None else diag.constraint_name
