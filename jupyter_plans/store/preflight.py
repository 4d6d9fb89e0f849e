"""What a file must be before it is opened as a plan file: a look that writes nothing."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import PlanStoreError
from .migrations import LATEST

FileIdentity = tuple[int, int]  # (device, inode): which file a path names


def file_identity(path: str) -> FileIdentity | None:
    """The (device, inode) of what `path` names itself (a symbolic link is not followed);
    None when nothing is there."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found.st_dev, found.st_ino


SIDE_FILES = ("-wal", "-shm")
_VERSIONS = "plans_schema_version"


def wal_in_use(path_text: str) -> bool:
    """Whether a writer's WAL (both side files, not empty) may hold commits the file has not."""
    try:
        return all(os.stat(path_text + suffix).st_size > 0 for suffix in SIDE_FILES)
    except (FileNotFoundError, NotADirectoryError):
        return False


def reading_uri(path: Path | str, through_wal: bool | None = None) -> str:
    """A URI that reads a plan file and creates no side file (which a reader that cannot write
    would leave, 444 for a 444 file, blocking its owner): through a writer's WAL, else immutable."""
    text = str(path)
    through_wal = wal_in_use(text) if through_wal is None else through_wal
    return f"file:{quote(os.fsencode(text))}?mode=ro" + ("" if through_wal else "&immutable=1")


def check_plan_file(path: Path, look: Callable[[Any], Any] | None = None) -> int:
    """Refuse, without writing a byte, a file that is not ours to open; return its plan
    schema version (0 for a new or empty file). `look(connection)`, when given, is called
    with the connection that read a plan file, to read more of it in the same look."""
    if path.is_symlink():
        raise PlanStoreError(f"{path} is a symbolic link; a plan file must be a regular file")
    if not path.exists():
        if not path.parent.is_dir():
            raise PlanStoreError(f"cannot create {path}: the folder {path.parent} does not exist")
        return 0
    if not path.is_file():
        raise PlanStoreError(f"{path} is not a regular file")
    if path.stat().st_size == 0:
        return 0
    # Side files made by a look that raced a closing writer go again if the file is refused.
    sides = [path.with_name(path.name + suffix) for suffix in SIDE_FILES]
    created = [side for side in sides if not side.exists()]
    try:
        return _preflight(path, look)
    except PlanStoreError:
        for side in created:
            side.unlink(missing_ok=True)
        raise


def _preflight(path: Path, look: Callable[[Any], Any] | None) -> int:
    through_wal = wal_in_use(str(path))
    try:
        conn = sqlite3.connect(reading_uri(path, through_wal), uri=True)
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot open {path}: {exc}") from None
    try:
        # Without a WAL in use the connection reads the file alone: it looks at the header.
        _check_length(path, through_wal, None if through_wal else conn)
        kinds = dict(conn.execute("SELECT name, type FROM sqlite_master"))
        if not kinds:
            return 0  # an SQLite file with nothing in it: a new store
        if kinds.get(_VERSIONS) != "table":
            raise PlanStoreError(
                f"{path} is an SQLite database of another program (it has tables or views of "
                "its own and no plan tables); choose another file for the plan"
            )
        rows = conn.execute(f"SELECT version, typeof(version) FROM {_VERSIONS} LIMIT 2").fetchall()
        version = rows[0][0] if len(rows) == 1 and rows[0][1] == "integer" else 0
        if version > LATEST:
            raise PlanStoreError(
                f"{path} has plan schema version {version}, newer than the {LATEST} this "
                "jupyter-plans knows; upgrade jupyter-plans to open it"
            )
        if version < 1:
            found = "more than one row" if len(rows) > 1 else "no row"
            found = f"the version {repr(rows[0][0])[:40]}" if len(rows) == 1 else found
            raise PlanStoreError(
                f"{path} is not a readable plan file: its plans_schema_version table holds "
                f"{found}, not one version from 1 to {LATEST}; choose another file for the plan"
            )
        if look is not None:
            look(conn)
        return version
    except sqlite3.DatabaseError as exc:
        raise PlanStoreError(f"{path} is not a readable plan file: {exc}") from None
    finally:
        conn.close()


def _check_length(path: Path, through_wal: bool, conn: sqlite3.Connection | None) -> None:
    """Refuse a file that is not SQLite (which SQLite may read as empty), or shorter than its
    header says: the end of the plan was cut off. `conn`, when given, reads the file alone.

    The file is never opened but by SQLite (DESIGN section 9, Locks): closing any other
    descriptor of it would drop every lock this process's connections hold on it, and another
    process would then delete a WAL they still write into. Its size comes from `os.stat`, its
    header from SQLite, which trusts the header's page count only when it is marked valid and
    refuses a file shorter than that count; a checkpoint in another process may grow the file
    as this runs, so a short file is looked at again before it is refused.
    """
    for attempt in range(3):
        whole = _whole(path, conn if attempt == 0 else None)
        size = os.stat(path).st_size
        if whole is None or size < _SMALLEST_DATABASE:
            if through_wal:
                return  # its pages may still be in the WAL: the read-only open tells
            raise PlanStoreError(f"{path} is not a readable plan file: not an SQLite database")
        if whole:
            return
        time.sleep(0.05 * (attempt + 1))
    raise PlanStoreError(
        f"{path} is not a readable plan file: it is truncated ({size} bytes, shorter than its "
        "header says); restore it from a copy"
    )


# One page of the smallest size: a shorter file that is not empty is no SQLite database
# (SQLite reads a file of one byte as an empty database).
_SMALLEST_DATABASE = 512


def _whole(path: Path, conn: sqlite3.Connection | None = None) -> bool | None:
    """Whether the file holds every page its header counts, as SQLite reads the file itself
    (its WAL aside; `conn` such a connection, else one is opened); None for a file SQLite
    does not take for a database."""
    try:
        if conn is not None:
            conn.execute("PRAGMA user_version").fetchone()  # reads the header, not the schema
            return True
        with contextlib.closing(_alone(path)) as look:
            look.execute("PRAGMA user_version").fetchone()
            return True
    except sqlite3.DatabaseError:
        pass
    try:
        with contextlib.closing(_alone(path)) as look:
            # Told to read what it can, SQLite takes a file shorter than its header says.
            look.execute("PRAGMA writable_schema=ON")
            look.execute("PRAGMA user_version").fetchone()
            return False
    except sqlite3.DatabaseError:
        return None


def _alone(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(reading_uri(path, through_wal=False), uri=True)
