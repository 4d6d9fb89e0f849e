"""SQLite engine for a plan file: WAL, synchronous=FULL, busy timeout, BEGIN IMMEDIATE writes.

pysqlite's own transaction handling reads outside the transaction and sends a plain BEGIN, which
lets two writers deadlock into "database is locked"; so the driver is put in autocommit and the
BEGIN is ours: IMMEDIATE for writers (they take the write lock up front and wait their turn),
plain for readers (who never block a writer in WAL mode).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import zlib
from pathlib import Path

from ..errors import PlanStoreError
from . import migrations
from .driver_errors import from_sqlite
from .following import marker, records
from .migrations import LATEST
from .opener import SIDE_FILES, reading, writing
from .preflight import FileIdentity, check_plan_file, file_identity, read_only_reason
from .transaction import WRITE_OPTION

BUSY_TIMEOUT_MS = 10_000


class SQLiteBackend:
    """One plan file: its connections, and a SQLAlchemy engine only when a migration needs one.

    The store works on plain sqlite3 connections, so a current plan file is opened and used
    without importing SQLAlchemy (see compiled.py).
    """

    dialect = "sqlite"
    statement_dialect = "sqlite"  # compiled forms ship with the package
    begin_write = "BEGIN IMMEDIATE"
    begin_read = "BEGIN"
    driver_error = sqlite3.Error
    translate = staticmethod(from_sqlite)
    # In a transaction: changes when another connection (any process) has committed since.
    others_commits = "PRAGMA data_version"
    pipelines = False  # a statement is a call into the library, not a round trip
    # Nothing is sent with a commit: another process's is told by the file system (changes.py).
    notify = notify_session = None

    def __init__(self, path: Path) -> None:
        self._engine = None
        self.repoint(path)
        self.look()
        # The file this store opened, once it has: see tracking.py. None while there
        # is no plan file at the path (reads then see an empty store).
        self.opened: FileIdentity | None = None
        self._opened_sides: list[FileIdentity | None] = [None, None]
        self._keeper: sqlite3.Connection | None = None
        self._keeper_lock = threading.Lock()
        self._version_lock = threading.Lock()
        self._version_conn: sqlite3.Connection | None = None
        self._version_file: FileIdentity | None = None
        self._version_epoch = 0

    def repoint(self, path: Path) -> None:
        """Use the plan file at `path` from now on: it moved there with its notebook."""
        self.path = path
        self.path_text = str(path)
        self._sides = [self.path_text + suffix for suffix in SIDE_FILES]
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def look(self) -> None:
        """Look at the path before opening it: refuse what is no plan file, and tell whether this
        process can write it (`read_only`: why not). If not, reads write nothing, writes fail.
        What the file says of a move at this first look (`marker_at_open`) is never followed,
        and only moves made from `since` on are (see marker.py)."""
        opened_at, seen, whole = time.time(), [], []

        def look(connection: sqlite3.Connection) -> None:
            whole.append(migrations.check_file(connection, self.path))
            seen.append(marker.read(connection))

        version = check_plan_file(self.path, look)
        # None, like a database's: the tables are not yet their version's (a development
        # build's file), and the migrations read them again under the write lock.
        self.schema_version: int | None = version if all(whole) else None
        self.marker_at_open: marker.Marker | None = seen[0] if seen else None
        try:
            changed_at = os.lstat(self.path_text).st_ctime
        except OSError:
            changed_at = float("inf")  # none there yet: this store makes it
        self.since: marker.Since = (opened_at, changed_at)
        self.read_only = read_only_reason(self.path)
        if self.read_only and (0 < version < LATEST or not all(whole)):
            made = "older than" if version < LATEST else "a development build's tables, not"
            raise PlanStoreError(
                f"{self.path} is read-only and of plan schema version {version}, "
                f"{made} the {LATEST} this reads: open it once with write access to upgrade"
            )

    @property
    def engine(self):
        """A SQLAlchemy engine on the file, made on first use (migrations, tools, tests)."""
        if self._engine is None:
            from sqlalchemy import create_engine, event

            # Its connections are the opener's too (a migration's, a tool's): see opener.py.
            url = f"sqlite+pysqlite:///{self.path}"  # a file's: pooled, shared by threads
            engine = create_engine(url, creator=self._engine_connection)
            event.listen(engine, "connect", lambda conn, _record: _configure(conn))
            event.listen(engine, "begin", _begin)
            self._engine = engine
        return self._engine

    def _engine_connection(self) -> sqlite3.Connection:
        return writing(self.path_text, wait=BUSY_TIMEOUT_MS / 1000, create=True, shared=True)

    def create_latest(self) -> bool:
        """Create the latest schema in a new file from the shipped DDL; False when the file
        turned out not to be new (another process got there first), for the migrations.
        Where this process cannot write, nothing is made: reads see an empty store."""
        if self.read_only:
            return True
        connection, _ = self.connect(create=True)
        try:
            connection.execute("BEGIN IMMEDIATE")
            found = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'plans_schema_version'"
            ).fetchone()
            if found is not None:
                connection.execute("ROLLBACK")
                return False
            for statement in migrations.statements():
                connection.execute(statement)
            connection.execute("INSERT INTO plans_schema_version (version) VALUES (?)", (LATEST,))
            notebook = records.notebook_beside(self.path)
            if notebook is not None:  # a plan file records its notebook, whoever made it
                records.record(connection, notebook, self.path)
            connection.execute("COMMIT")
            return True
        except sqlite3.Error as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise PlanStoreError(f"cannot create the plan file {self.path}: {exc}") from None
        finally:
            connection.close()

    def connect(self, create: bool = False) -> tuple[sqlite3.Connection, sqlite3.Connection]:
        """A new connection: (what to close, the driver connection). Only `create` makes a
        file where there is none: a store opens the file it checked, not whatever is there."""
        connection = writing(
            self.path_text, wait=BUSY_TIMEOUT_MS / 1000, create=create, shared=True
        )
        _configure(connection)
        if not create:
            # The WAL's side files now exist, held open by this connection; which ones they
            # are tells, once the plan file is replaced, whether those at the path are still
            # its own (see let_go).
            self._opened_sides = [file_identity(side) for side in self._sides]
        return connection, connection

    @property
    def where(self) -> str:
        return self.path_text

    def identity(self) -> FileIdentity | None:
        return file_identity(self.path_text)

    def open(self) -> tuple[sqlite3.Connection, FileIdentity | None] | None:
        """A connection to the file the store opened, with that file's identity; while there
        is no plan file, to an empty database (identity None). None when the path has come
        to name another file: the store opens that one first."""
        opened = self.opened
        if opened is None or (self.read_only and self.schema_version == 0):
            return self.empty(), opened  # no plan file, or an empty one this cannot write
        if self.identity() != opened:
            # Not even for a look: a connection to the new file, while the old one's -wal is
            # still at the path, would take its frames in (and put them into the file when
            # it closes). The store lets go of the old file first; see let_go.
            return None
        try:
            connection = self.reader() if self.read_only else self.connect()[0]
            self._keep()
        except sqlite3.Error as exc:
            if self.identity() != opened:
                return None
            raise PlanStoreError(f"cannot open {self.path}: {exc}") from None
        if self.identity() != opened:
            connection.close()
            return None
        return connection, opened

    def _keep(self) -> None:
        """Hold one connection on the opened file, through which the store learns where the
        file went if it moves with its notebook (a thread that had none open cannot)."""
        with self._keeper_lock:
            if self._keeper is None and not self.read_only:
                self._keeper = self.connect()[0]

    def went(self) -> marker.Marker | None:
        """Where the opened file says it went (see marker.py); None if it says nothing, or no
        connection is held on it."""
        with self._keeper_lock:
            return None if self._keeper is None else marker.read(self._keeper, self.opened)

    def _let_keeper_go(self) -> None:
        with self._keeper_lock:
            if self._keeper is not None:
                self._keeper.close()
                self._keeper = None

    def reader(self) -> sqlite3.Connection:
        """For a store that cannot write: a connection that reads and creates nothing."""
        return reading(self.path_text, wait=BUSY_TIMEOUT_MS / 1000, shared=True)

    def empty(self) -> sqlite3.Connection:
        """A database in memory with the latest schema and no rows: what a read sees while
        there is no plan file at the path, so every read statement runs unchanged and a
        read creates no file."""
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        connection.isolation_level = None
        for statement in migrations.statements():
            connection.execute(statement)
        return connection

    def let_go(self) -> None:
        """Forget the plan file the store had open: it was deleted or replaced.

        SQLite finds a database's -wal and -shm files by the path's name, so the ones the old
        file left at the path would be read as part of whatever file is there next (its
        committed frames laid over the new file's pages). They are removed while they are
        still the old file's; connections that still have the old file open keep theirs.
        """
        self.opened = None
        self._let_keeper_go()
        for side, known in zip(self._sides, self._opened_sides, strict=True):
            if known is not None and file_identity(side) == known:
                try:
                    os.unlink(side)
                except OSError:
                    pass  # gone already, or a folder this process cannot write
        self._opened_sides = [None, None]
        if self._engine is not None:
            self._engine.dispose()  # its pooled connections have the old file open

    def forget(self, handle) -> None:
        handle.close()

    def take(self, connection) -> bool:
        return True  # a connection to a file is never closed for idling

    def connection_lost(self, connection, error: Exception | None = None) -> bool:
        return False  # a file does not go away mid-transaction

    def transient(self, error: BaseException) -> bool:
        return False  # a file that cannot be opened will not open on a second try

    def committed(self, session_id: str | None = None) -> None:
        pass  # other processes are told by the file system

    def on_change(self, callback):
        """Call `callback()` (on another thread) soon after another process may have committed
        to the file, as the file system tells; None where it does not (poll instead)."""
        from .changes import on_change

        return on_change(self.path, callback)

    def session_token(self, session_id: str) -> None:
        return None  # nothing tells which session a commit to the file changed

    def change_token(self) -> int:
        """A number that changes whenever any connection, in any process, commits to the file,
        and when another file (or none) is at the path than when it was last asked."""
        with self._version_lock:
            found = self.identity()
            # Only the file the store checked and opened (another may be no plan file), writable.
            watched = found is not None and found == self.opened and not self.read_only
            if found != self._version_file or (self._version_conn is None and watched):
                self._close_version_connection()
                self._version_file = found
                self._version_epoch += 1
                if watched:
                    try:
                        self._version_conn = writing(self.path_text, shared=True)
                    except sqlite3.Error:
                        pass  # gone again: the next look tells
            base = self._version_epoch << 32  # data_version is a 32-bit counter
            if self.read_only and found is not None:
                return base + _stamp(self.path_text)
            if self._version_conn is None:
                return base
            return base + self._version_conn.execute("PRAGMA data_version").fetchone()[0]

    def _close_version_connection(self) -> None:
        if self._version_conn is not None:
            self._version_conn.close()
            self._version_conn = None

    def dispose(self) -> None:
        self._let_keeper_go()
        with self._version_lock:
            self._close_version_connection()
        if self._engine is not None:
            self._engine.dispose()


def _stamp(path_text: str) -> int:
    """A 32-bit number that changes as the file or its -wal is written (by another process)."""
    seen = []
    for name in (path_text, path_text + "-wal"):
        with contextlib.suppress(OSError):
            seen.append((name, os.stat(name).st_mtime_ns, os.stat(name).st_size))
    return zlib.crc32(repr(seen).encode())


def _configure(connection: sqlite3.Connection) -> None:
    # Autocommit at the driver (the opener's): the transactions are ours (BEGIN IMMEDIATE for
    # writers), which wait BUSY_TIMEOUT_MS for the lock.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def _begin(conn) -> None:
    writer = conn.get_execution_options().get(WRITE_OPTION, False)
    # Straight to the driver: this runs on every transaction, and SQLAlchemy's execute path
    # would cost more than the statement.
    conn.connection.driver_connection.execute("BEGIN IMMEDIATE" if writer else "BEGIN")
