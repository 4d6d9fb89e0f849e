"""A plan store opened read-only, for the coding-agent hooks: it creates no file and runs no
migration, yet `PlanSession`'s reads (snapshot, open question, the context block) run on it
unchanged. The one write it makes is the guard's heartbeat (DESIGN section 15), at most once
in 10 s per agent, in a short transaction of its own that never waits long for the lock.

PlanStore opens a store to use it, so it creates a missing file and upgrades an old schema;
a hook that runs before every tool call must do neither. This object offers the part of
PlanStore's interface that reading uses (`read()`, `plan_cache`, `current_session_id()`) on a
connection that cannot write: SQLite's `mode=ro`, or a PostgreSQL session whose transactions
are read only. A plan file is read with the statements' shipped SQLite forms, so no
SQLAlchemy is imported for it.

The hook's PreToolUse opens a plan file with this module alone, in a process that starts for
that one answer: it loads the standard library's sqlite3, and neither pathlib nor typing nor
the rest of the store (the transactions of read() load with the first).
"""

from __future__ import annotations

import os
import sqlite3

from ..errors import PlanStoreError
from ..plan.ids import DEFAULT_SESSION, plainly_a_session_id
from .compiled import StatementCache
from .following.moves import MAX_HOPS, MOVES_VERSION, last_move
from .guards import WRITE_WAIT_SECONDS, beat_params, fresh, now_ms
from .migrations import LATEST
from .opener import reading, writing
from .preflight import check_plan_file, file_mode, plain_path, read_only_reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .transaction import Tx

BUSY_TIMEOUT_SECONDS = 2.0  # a reader waits only for a WAL recovery or a non-WAL writer
CONNECT_TIMEOUT_SECONDS = 3
STATEMENT_TIMEOUT_MS = 2000
# Columns every schema version has: the tool boundary reads them from any plan file.
_GATE = "SELECT mode, pending_proposal_hash FROM plans_sessions WHERE session_id = {}"
GUARD_SEEN_VERSION = 7  # the schema version that has the guard_seen table


class StoreMissing(PlanStoreError):
    """There is no plan to read yet: no file, or a database without plan tables."""


class ReadOnlyStore:
    """The reading half of a PlanStore, on a connection that cannot write."""

    def __init__(self, connection: Any, dialect: Any, where: str, version: int, **driver: Any):
        self._connection = connection
        self._statements = StatementCache(dialect)
        self.where = where
        self.version = version
        self._begin = driver["begin"]
        self._placeholder = driver["placeholder"]
        self.driver_error = driver["error"]
        self.plan_cache: dict[str, tuple[int, dict]] = {}
        self.check_cache: dict[str, Any] = {}

    def __repr__(self) -> str:
        return self.where

    def translate(self, error: Exception, words: str) -> PlanStoreError:
        """A driver's error as ours (driver_errors.py, loaded with the first error)."""
        from .driver_errors import from_psycopg, from_sqlite

        return (from_sqlite if self._placeholder == "?" else from_psycopg)(error, words)

    def read(self) -> Tx:
        from .transaction import Tx

        return Tx(self._statements, self._begin, self)

    def cursor(self) -> Any:
        return self._connection.cursor()

    def lost(self, cursor: Any) -> bool:
        return False  # one short-lived process: a lost connection is an error, not a retry

    def on_file(self, write: bool, cursor: Any = None) -> bool:
        return True  # never asked: the transactions look at no file (write is None)

    def follow(self, write: bool) -> None:
        raise AssertionError("a read-only store follows no file")

    def current_session_id(self) -> str:
        """The file's current session (the one `%plan new` last made current), else the
        default, read as the session's mode is (gate)."""
        row = self._run(self.cursor(), "SELECT_CURRENT", {}).fetchone()
        return (row[0] if row is not None else None) or DEFAULT_SESSION

    def check_schema(self) -> None:
        """Refuse a session's full reads on an older schema: they need the one this code writes."""
        if self.version < LATEST:
            raise PlanStoreError(
                f"{self} was written by an older jupyter-plans (plan schema version "
                f"{self.version}, this one reads {LATEST}); open it once in the notebook to "
                "upgrade it"
            )

    def gate(self, session_id: str | None = None) -> tuple[str, str | None]:
        """The session's mode and its waiting proposal: what the tool boundary needs, read
        from columns every schema version has, so an upgrade never lifts plan mode."""
        if session_id is None:
            session_id = self.current_session_id()
        if not plainly_a_session_id(session_id):  # else intake.py need not load: it takes it
            from ..plan.intake import check_session_id

            check_session_id(session_id)
        cursor = self.cursor()
        row = cursor.execute(_GATE.format(self._placeholder), (session_id,)).fetchone()
        for _hop in range(MAX_HOPS if self.version >= MOVES_VERSION else 0):
            if row is not None or session_id is None:
                break  # there, or never renamed with its notebook
            session_id = last_move(cursor, self._placeholder, session_id)
            if session_id is not None:
                row = cursor.execute(_GATE.format(self._placeholder), (session_id,)).fetchone()
        return (row[0], row[1]) if row is not None else ("default", None)

    def record_seen(self, agent: str, version: str | None, point: str) -> bool:
        """The guard's heartbeat: written when the agent's last one is 10 s old or more (looked
        at first, on this connection, so most runs write nothing); True when written."""
        if self.version < GUARD_SEEN_VERSION:
            return False
        at = now_ms()
        last = self._run(self.cursor(), "GUARD_SEEN_AT", {"agent": agent}).fetchone()
        if last is not None and fresh(last[0], at):
            return False
        params = beat_params(agent, version, point, at)
        if self._placeholder == "?":
            return self._sqlite_beat(params)
        from .pg_notices import NOTIFY

        cursor = self.cursor()
        cursor.execute("BEGIN READ WRITE")  # this session's transactions are read only
        try:
            written = self._run(cursor, "GUARD_SEEN_UPSERT", params).rowcount > 0
            cursor.execute(NOTIFY)  # the cards and the panel look again
            cursor.execute("COMMIT")
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        return written

    def _sqlite_beat(self, params: dict) -> bool:
        if read_only_reason(self.where) is not None:
            # Not this process's to write (another user's 0444 file): SQLite would leave a -wal
            # and a -shm of this user with the file's modes, which keep its owner from writing.
            return False
        # The reading connection cannot write: a short-lived one that does, and does not wait.
        writer = writing(self.where, wait=WRITE_WAIT_SECONDS)
        try:
            writer.execute("PRAGMA synchronous = NORMAL")  # a heartbeat need not wait for fsync
            writer.execute("BEGIN IMMEDIATE")
            written = self._run(writer.cursor(), "GUARD_SEEN_UPSERT", params).rowcount > 0
            writer.execute("COMMIT")
            return written
        finally:
            writer.close()

    def _run(self, cursor: Any, name: str, params: dict) -> Any:
        compiled = self._statements.get(name)
        params = {**compiled.defaults, **params}  # the values the statement itself gives
        positions = compiled.positions
        cursor.execute(compiled.sql, params if positions is None else positions(params))
        return cursor

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> ReadOnlyStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_read_only(url_or_path: str | os.PathLike) -> ReadOnlyStore:
    """The store at a path or URL, for reading; raises StoreMissing or PlanStoreError."""
    text = os.fspath(url_or_path)
    if plain_path(text):
        return _sqlite(text)
    from pathlib import Path

    from .urls import place_of

    place = place_of(text)
    return _sqlite(str(place)) if isinstance(place, Path) else _postgres(place)


def _sqlite(path: str) -> ReadOnlyStore:
    # Nothing there, not even a dangling link.
    if file_mode(path, follow=False) is None:
        raise StoreMissing(f"there is no plan file at {path} yet")
    # A symbolic link, another program's database, a truncated file, a newer schema.
    version = check_plan_file(path)
    if version == 0:
        raise StoreMissing(f"{path} has no plan in it yet")
    try:
        # Creates no side file, even where it cannot write; the transactions are Tx's.
        connection = reading(path, wait=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot open {path}: {exc}") from None
    return ReadOnlyStore(
        connection,
        "sqlite",
        path,
        version,
        begin="BEGIN",
        placeholder="?",
        error=sqlite3.Error,
    )


def _postgres(url: Any) -> ReadOnlyStore:
    try:
        import psycopg
    except ImportError:
        raise PlanStoreError(
            "PostgreSQL needs psycopg 3: pip install 'jupyter-plans[postgres]'"
        ) from None
    from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg

    from .driver_errors import first_line as _line

    where = url.render_as_string(hide_password=True)
    try:
        connection, begin = _pg_connect(psycopg, url)
    except psycopg.Error as exc:
        raise PlanStoreError(f"cannot connect to {where}: {_line(exc)}") from None
    try:
        version = _pg_version(psycopg, connection, where)
    except BaseException:
        connection.close()
        raise
    return ReadOnlyStore(
        connection,
        PGDialect_psycopg(),
        where,
        version,
        begin=begin,
        placeholder="%s",
        error=psycopg.Error,
    )


def _pg_connect(psycopg: Any, url: Any) -> tuple[Any, str]:
    """A connection whose transactions only read, and the BEGIN that makes them so."""
    settings = [
        url.query.get("options", ""),
        "-c default_transaction_read_only=on",
        f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
    ]
    # plans_listen is the stores' listener's (postgres.py), not libpq's.
    conninfo = url.set(drivername="postgresql").difference_update_query(["options", "plans_listen"])
    conninfo = conninfo.render_as_string(hide_password=False)
    begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    timeout = int(url.query.get("connect_timeout", CONNECT_TIMEOUT_SECONDS))
    try:
        connection = psycopg.connect(
            conninfo,
            autocommit=True,  # the transactions are Tx's
            options=" ".join(filter(None, settings)),
            connect_timeout=timeout,
        )
    except psycopg.OperationalError as exc:
        # PgBouncer refuses settings at connect: it says so only in words (no SQLSTATE
        # reaches a connection that failed to start).
        if "unsupported startup parameter" not in str(exc):
            raise
        # Its transaction pooling keeps no setting between transactions, nor a prepared
        # statement: each transaction sets its own.
        connection = psycopg.connect(
            conninfo, autocommit=True, prepare_threshold=None, connect_timeout=timeout
        )
        begin += f"; SET LOCAL statement_timeout = {STATEMENT_TIMEOUT_MS}"
    return connection, begin


def _pg_version(psycopg: Any, connection: Any, where: str) -> int:
    """The database's plan schema version; refused, in one line, where there is no plan or
    one newer than this code."""
    from .driver_errors import first_line as _line

    try:
        row = connection.execute("SELECT max(version) FROM plans_schema_version").fetchone()
    except psycopg.errors.UndefinedTable:
        raise StoreMissing(f"{where} has no plan in it yet") from None
    except psycopg.Error as exc:
        raise PlanStoreError(f"{where} is not a readable plan store: {_line(exc)}") from None
    if row[0] is None:
        raise StoreMissing(f"{where} has no plan in it yet")
    if row[0] > LATEST:
        raise PlanStoreError(
            f"{where} has plan schema version {row[0]}, newer than the {LATEST} this "
            "jupyter-plans knows; upgrade jupyter-plans"
        )
    return row[0]
