"""The one place a plan file is opened with SQLite; every other module asks this one.

The rules it keeps (DESIGN section 9, Locks): a process that holds an SQLite connection to a
plan file never opens that file by any other means, since closing any descriptor of a file
drops every POSIX lock the process holds on it, and SQLite then deletes a WAL that another
connection still writes into. So a plan file is opened here and only by SQLite:

- a reader (`reading`, `glance`) is a `mode=ro` URI and creates no side file (which a reader
  that cannot write would leave, 444 for a 444 file, blocking its owner): it reads through a
  writer's WAL, else the file alone as immutable;
- a writer (`writing`) makes no file but where asked (`create`): a store opens the file it
  checked, not whatever is at the path by then;
- a copy is SQLite's backup (`backup`), into a file that is not yet at a plan file's name;
- every connection is in autocommit at the driver: its transactions are its caller's
  (BEGIN IMMEDIATE for a writer, which then waits `wait` seconds at most for the lock).

Sizes come from `os.stat` and headers from SQLite itself (preflight.py). The only descriptor
of a plan file opened otherwise is `sync_unplaced`'s, on a copy no connection has open.

Imported by the coding-agent hook, which starts with the standard library's sqlite3 alone:
this module loads os and sqlite3, nothing else.
"""

from __future__ import annotations

import os
import sqlite3
import stat

SIDE_FILES = ("-wal", "-shm")
DRIVER_WAIT = 5.0  # seconds: sqlite3.connect's own busy timeout

# What a URI's path keeps as it is (urllib.parse.quote's safe characters and "/"): the rest of
# each byte is written %XX.
_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~/")


def wal_in_use(path_text: str) -> bool:
    """Whether a writer's WAL (both side files, not empty) may hold commits the file has not."""
    try:
        return all(os.stat(path_text + suffix).st_size > 0 for suffix in SIDE_FILES)
    except (FileNotFoundError, NotADirectoryError):
        return False


def file_uri(path: str | os.PathLike, query: str) -> str:
    """The `file:` URI of `path` (each byte that is no plain character written %XX)."""
    quoted = "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in os.fsencode(path))
    return f"file:{quoted}?{query}"


def reading_uri(path: str | os.PathLike, through_wal: bool | None = None) -> str:
    """A URI that reads a plan file and creates no side file: through a writer's WAL (when
    `through_wal`, or when one is in use), else the file alone, immutable."""
    through_wal = wal_in_use(os.fspath(path)) if through_wal is None else through_wal
    return file_uri(path, "mode=ro" + ("" if through_wal else "&immutable=1"))


def reading(
    path: str | os.PathLike,
    through_wal: bool | None = None,
    wait: float = DRIVER_WAIT,
    shared: bool = False,
) -> sqlite3.Connection:
    """A connection that reads the plan file at `path` and cannot write; `shared`, for use on
    other threads than this one. Raises sqlite3.Error (UnicodeError for a path that is no
    text of the file system)."""
    return sqlite3.connect(
        reading_uri(path, through_wal),
        uri=True,
        timeout=wait,
        isolation_level=None,
        check_same_thread=not shared,
    )


def writing(
    path: str | os.PathLike, wait: float = DRIVER_WAIT, create: bool = False, shared: bool = False
) -> sqlite3.Connection:
    """A connection that reads and writes the file at `path`, waiting `wait` seconds at most
    for its lock; it makes a file only with `create`. Raises sqlite3.Error."""
    return sqlite3.connect(
        file_uri(path, "mode=rwc" if create else "mode=rw"),
        uri=True,
        timeout=wait,
        isolation_level=None,
        check_same_thread=not shared,
    )


def glance(path: str | os.PathLike) -> sqlite3.Connection | None:
    """A reading connection to the regular file at `path` for a short look at what it says;
    None when no regular file is there (a pipe would hold the open forever; a symbolic link
    is not followed) or it cannot be opened."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return reading(path)
    except (OSError, ValueError, sqlite3.Error):  # UnicodeError is a ValueError
        return None


def backup(reader: sqlite3.Connection, target: str | os.PathLike) -> None:
    """Copy the database `reader` reads into `target` (a new or empty file), with SQLite's
    backup: never a copy of the file's bytes, whose reading would drop this process's locks."""
    made = writing(target, create=True)
    try:
        reader.backup(made)
    finally:
        made.close()


def sync_unplaced(path: str | os.PathLike) -> None:
    """Write a finished copy to the disk before it is put at a plan file's name. No connection
    of this process may have it open: the descriptor this closes drops every lock of them."""
    fd = os.open(path, os.O_RDWR)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
