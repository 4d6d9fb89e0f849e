"""Transactions on a held driver connection, running Core statements compiled once per store.

SQLAlchemy builds and compiles every statement (for whichever dialect the store uses); the
statements then run straight on the driver. Measured on a 12-step plan, SQLAlchemy's execution
layer (pool checkout, events, result objects) cost more than the commit's fsync; this keeps the
SQL in Core and the time in the database.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConnectionLost, PlanStoreError
from .driver_errors import first_line as _line

if TYPE_CHECKING:
    from .compiled import Prepared, StatementCache

# The execution option that marks a SQLAlchemy connection (migrations) as a writer.
WRITE_OPTION = "plans_write"


# Tries of one operation whose connection was lost; the waits between them double from 20 ms
# and add up to 1.26 s, about what a PostgreSQL server takes to restart.
ATTEMPTS = 7
FOLLOWS = 3  # how many times one transaction opens a replaced plan file before giving up
_PLAIN_BLOCK = contextlib.nullcontext()  # Tx.pipeline() where statements cost no round trip


def reconnecting(operation):
    """Run `operation` again, from a fresh read of the session, when the database connection
    was lost before its commit (or its commit is known not to have landed). Never more than
    a few times: a database that keeps dropping connections is reported."""

    @functools.wraps(operation)
    def run(self, *args, **kwargs):
        for attempt in range(ATTEMPTS):
            try:
                return operation(self, *args, **kwargs)
            except ConnectionLost:
                if attempt == ATTEMPTS - 1:
                    raise
                time.sleep(0.02 * 2**attempt)  # a server restarting needs a moment
        raise AssertionError("unreachable")

    return run


class TransactionHost(Protocol):
    """What a transaction asks of the store it runs in: store.py's Store hosts its transactions
    in its `connections` (connections.py); readonly.py's ReadOnlyStore hosts its own, with no
    file to look at and nothing to tell. Its `repr()` names the store in a refusal."""

    @property
    def driver_error(self) -> type[Exception]: ...  # the base of the driver's errors

    def translate(self, error: Exception, words: str) -> PlanStoreError:
        """A driver's error as ours (driver_errors.py)."""
        ...

    def cursor(self) -> Any:
        """This thread's cursor, on a connection that is open."""
        ...

    def lost(self, cursor: Any) -> bool:
        """Whether the cursor's connection is gone (and, if so, was let go of)."""
        ...

    def on_file(self, write: bool, cursor: Any = None) -> bool:
        """Whether this thread's connection still has the plan file at the path open (asked
        only where Tx's `write` is not None: see tracking.py)."""
        ...

    def follow(self, write: bool) -> None:
        """Open what is at the plan file's path now (tracking.py)."""
        ...


class Tx:
    """One transaction, as a context manager: it commits when the block ends and rolls back if
    the block raises (nothing is committed in a finally). Rows come with attribute access.

    A driver's error is said as ours where the transaction ends (driver_errors.py): a broken
    unique rule as RecordConflict (CallIdTaken for an accepted call's id), a lock held too
    long as StoreBusy, any other as PlanStoreError; code above the store catches those.

    A connection found dead at BEGIN is replaced at once (nothing was done on it yet). One
    lost later raises ConnectionLost, and the store opens a new one for the next transaction.

    On a plan file, once BEGIN has run (a writer then holds the lock), the store looks that
    the file at its path is still the one the connection has open; if it was deleted or
    replaced, the transaction begins again on what is there now (see tracking.py).

    Pipelined (PostgreSQL): BEGIN goes to the server with the transaction's first statement,
    and `pipeline()` sends a block's statements together, so a write waits for the server
    three times (begin and lock, the writes, the commit) instead of once a statement.
    """

    __slots__ = (
        "_cursor",
        "_statements",
        "_begin",
        "_store",
        "_write",
        "_pipelined",
        "_begun",
        "_notify",
        "_told",
        "_committed",
    )

    def __init__(
        self,
        statements: StatementCache,
        begin: str,
        store: TransactionHost,
        write: bool | None = None,
        pipelined: bool = False,
        notify: tuple[str, str | None, Callable[[str | None], None]] | None = None,
        session_id: str | None = None,
    ) -> None:
        self._cursor = None
        self._statements = statements
        self._begin = begin
        self._store = store
        self._write = write  # None: no file to look at (PostgreSQL, a read-only store)
        self._pipelined = pipelined
        self._begun = True  # False while a pipelined BEGIN waits for the first statement
        # Sent with COMMIT, so other processes are told (PostgreSQL): the notice, the one
        # naming the session, and what this process is told once committed.
        self._notify, self._told, self._committed = None, None, None
        if notify is not None:
            self._notify, notify_session, self._committed = notify
            if session_id is not None:
                self._told = (notify_session, (session_id,))

    def __enter__(self) -> Tx:
        store, write = self._store, self._write
        if self._pipelined:
            self._cursor, self._begun = store.cursor(), False
            return self
        for attempt in range(FOLLOWS + 1):
            self._cursor = store.cursor()
            try:
                self._cursor.execute(self._begin)
            except store.driver_error as exc:
                if write is not None and not store.on_file(write):
                    store.follow(write)  # the old file's connection may fail to begin
                    continue
                if store.lost(self._cursor):
                    if attempt == 0:
                        continue  # a connection found dead before any work: replace it at once
                    # Again: the operation is run again after a pause, as one lost later is.
                    raise ConnectionLost(f"{store}: the connection was lost: {_line(exc)}") from exc
                raise store.translate(exc, f"cannot use {store}") from exc
            if write is None or store.on_file(write, self._cursor):
                return self
            try:
                self._cursor.execute("ROLLBACK")
            except store.driver_error:
                pass  # the connection is let go of next, whatever state it is in
            store.follow(write)
        raise PlanStoreError(f"cannot use {store}: the file at its path keeps being replaced")

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        store = self._store
        if not self._begun:
            return  # no statement ran: there is no transaction to end
        if kind is None:
            try:
                if self._notify is None:
                    self._cursor.execute("COMMIT")
                elif self._pipelined:  # one round trip: the notices go out with the commit
                    with self._cursor.connection.pipeline():
                        self._send_notices()
                        self._cursor.execute("COMMIT")
                else:
                    self._send_notices()
                    self._cursor.execute("COMMIT")
                if self._committed is not None:
                    self._committed(self._told and self._told[1][0])
                return
            except store.driver_error as exc:
                if store.lost(self._cursor):
                    raise ConnectionLost(
                        f"{store}: the connection was lost while committing: {_line(exc)}",
                        committing=True,
                    ) from exc
                error = exc
        if isinstance(error, store.driver_error) and store.lost(self._cursor):
            raise ConnectionLost(f"{store}: the connection was lost: {_line(error)}") from error
        try:
            self._cursor.execute("ROLLBACK")
        except store.driver_error:
            pass  # the database already ended the transaction (SQLite does on some errors)
        if isinstance(error, store.driver_error):
            raise store.translate(error, f"{store}: the change was not saved") from error

    def tell_session(self, session_id: str) -> None:
        """Name `session_id` in the commit's notice instead (its session was renamed)."""
        if self._told is not None:
            self._told = (self._told[0], (session_id,))

    def _send_notices(self) -> None:
        """The notice naming the session first, then the one every version listens for (see
        store/pg_notices.py)."""
        if self._told is not None:
            self._cursor.execute(*self._told)
        self._cursor.execute(self._notify)

    def _run(self, sql: str, params: Any) -> None:
        if self._begun:
            self._cursor.execute(sql, params)
        else:
            self._begin_with(sql, params)

    def _begin_with(self, sql: str, params: Any) -> None:
        """BEGIN and the first statement in one round trip. A connection found dead there is
        replaced at once, as at a BEGIN of its own: nothing was done on it yet."""
        store = self._store
        for attempt in range(2):
            self._begun = True  # from here on the transaction is ended, whatever happens
            try:
                with self._cursor.connection.pipeline():
                    self._cursor.execute(self._begin)
                    self._cursor.execute(sql, params)
                return
            except store.driver_error as exc:
                if attempt == 0 and store.lost(self._cursor):
                    self._cursor = store.cursor()
                    continue
                if store.lost(self._cursor):
                    raise ConnectionLost(f"{store}: the connection was lost: {_line(exc)}") from exc
                raise

    def pipeline(self) -> Any:
        """A block whose statements go to the server together, their results read when it
        ends (PostgreSQL); on SQLite, where a statement costs no round trip, a plain block."""
        if self._pipelined and self._begun:
            return self._cursor.connection.pipeline()
        return _PLAIN_BLOCK

    @property
    def rowcount(self) -> int:
        """The rows the last statement changed (after a pipeline, once it has ended)."""
        return self._cursor.rowcount

    def _params(self, compiled: Prepared, params: dict | None) -> Any:
        if compiled.defaults:
            params = {**compiled.defaults, **(params or {})}
        elif params is None:
            params = {}
        if compiled.positions is None:
            return params
        return compiled.positions(params)

    def execute(self, statement: Any, params: dict | None = None) -> int:
        """Run a statement; return the number of rows it changed."""
        compiled = self._statements.get(statement)
        self._run(compiled.sql, self._params(compiled, params))
        return self._cursor.rowcount

    def execute_many(self, statement: Any, rows: list[dict]) -> None:
        compiled = self._statements.get(statement)
        rows = [self._params(compiled, r) for r in rows]
        if not self._begun and rows:
            self._run(compiled.sql, rows.pop(0))
        self._cursor.executemany(compiled.sql, rows)

    def all(self, statement: Any, params: dict | None = None) -> list:
        compiled = self._statements.get(statement)
        self._run(compiled.sql, self._params(compiled, params))
        make = compiled.row._make
        return [make(r) for r in self._cursor.fetchall()]

    def first(self, statement: Any, params: dict | None = None) -> Any:
        compiled = self._statements.get(statement)
        self._run(compiled.sql, self._params(compiled, params))
        found = self._cursor.fetchone()
        return None if found is None else compiled.row._make(found)

    def value(self, sql: str) -> Any:
        """The first column of the first row of plain SQL that takes no parameters."""
        self._run(sql, ())
        return self._cursor.fetchone()[0]

    def scalar(self, statement: Any, params: dict | None = None) -> Any:
        row = self.first(statement, params)
        return None if row is None else row[0]
