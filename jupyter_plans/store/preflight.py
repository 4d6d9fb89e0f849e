"""What a file must be before it is opened as a plan file: a look that writes nothing.

Imported by the coding-agent hook, which starts with the standard library's sqlite3 alone:
paths are looked at with os.path, and neither pathlib nor typing is loaded.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import time

from ..errors import PlanStoreError
from .migrations import LATEST
from .opener import SIDE_FILES, reading, wal_in_use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FileIdentity = tuple[int, int]  # (device, inode): which file a path names


def file_identity(path: str) -> FileIdentity | None:
    """The (device, inode) of what `path` names itself (a symbolic link is not followed);
    None when nothing is there."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found.st_dev, found.st_ino


_VERSIONS = "plans_schema_version"


def check_plan_file(path: str | os.PathLike, look: Callable[[Any], Any] | None = None) -> int:
    """Refuse, without writing a byte, a file that is not ours to open; return its plan
    schema version (0 for a new or empty file). `look(connection)`, when given, is called
    with the connection that read a plan file, to read more of it in the same look."""
    text = os.fspath(path)
    if stat.S_ISLNK(file_mode(text, follow=False) or 0):
        raise PlanStoreError(f"{path} is a symbolic link; a plan file must be a regular file")
    mode = file_mode(text)
    if mode is None:
        folder = os.path.dirname(text)
        if not stat.S_ISDIR(file_mode(folder) or 0):
            raise PlanStoreError(f"cannot create {path}: the folder {folder} does not exist")
        return 0
    if not stat.S_ISREG(mode):
        raise PlanStoreError(f"{path} is not a regular file")
    if os.stat(text).st_size == 0:
        return 0
    # Side files made by a look that raced a closing writer go again if the file is refused.
    created = [text + suffix for suffix in SIDE_FILES if file_mode(text + suffix) is None]
    try:
        return _preflight(path, look)
    except PlanStoreError:
        for side in created:
            try:
                os.unlink(side)
            except FileNotFoundError:
                pass
        raise


_EFFECTIVE = os.access in os.supports_effective_ids  # the ids this process writes with


def read_only_reason(path: str | os.PathLike) -> str | None:
    """Why this process cannot change the plan file at `path`, in one line; None if it can."""
    text = os.fspath(path)
    if not os.access(os.path.dirname(text) or ".", os.W_OK | os.X_OK, effective_ids=_EFFECTIVE):
        what = "its folder"
    elif file_mode(text) is not None and not os.access(text, os.W_OK, effective_ids=_EFFECTIVE):
        what = "it"
    else:
        return None
    return f"{path} is read-only: this process cannot write {what}; the plan can only be read"


def plain_path(text: str) -> bool:
    """Whether `text` is an absolute path as pathlib writes it (as `hook install` writes the
    hook's --notebook and --db): then str(Path(text)) is `text` itself, and a path can be
    worked with as text."""
    return os.path.isabs(text) and os.path.normpath(text) == text


def file_mode(text: str, follow: bool = True) -> int | None:
    """The mode of what is at `text` (of a symbolic link itself, with follow=False); None where
    nothing is, as pathlib reads it: another error (no permission to look) is raised."""
    try:
        return (os.stat if follow else os.lstat)(text).st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return None
        raise
    except ValueError:  # a NUL in the path
        return None


def _preflight(path: str | os.PathLike, look: Callable[[Any], Any] | None) -> int:
    through_wal = wal_in_use(str(path))
    try:
        conn = reading(path, through_wal)
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


def _check_length(
    path: str | os.PathLike, through_wal: bool, conn: sqlite3.Connection | None
) -> None:
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


def _whole(path: str | os.PathLike, conn: sqlite3.Connection | None = None) -> bool | None:
    """Whether the file holds every page its header counts, as SQLite reads the file itself
    (its WAL aside; `conn` such a connection, else one is opened); None for a file SQLite
    does not take for a database."""
    try:
        if conn is not None:
            conn.execute("PRAGMA user_version").fetchone()  # reads the header, not the schema
            return True
        look = _alone(path)
        try:
            look.execute("PRAGMA user_version").fetchone()
            return True
        finally:
            look.close()
    except sqlite3.DatabaseError:
        pass
    try:
        look = _alone(path)
        try:
            # Told to read what it can, SQLite takes a file shorter than its header says.
            look.execute("PRAGMA writable_schema=ON")
            look.execute("PRAGMA user_version").fetchone()
            return False
        finally:
            look.close()
    except sqlite3.DatabaseError:
        return None


def _alone(path: str | os.PathLike) -> sqlite3.Connection:
    return reading(path, through_wal=False)
