"""Transactions on a held driver connection, running Core statements compiled once per store.

SQLAlchemy builds and compiles every statement (for whichever dialect the store uses); the
statements then run straight on the driver. Measured on a 12-step plan, SQLAlchemy's execution
layer (pool checkout, events, result objects) cost more than the commit's fsync; this keeps the
SQL in Core and the time in the database.
"""

from __future__ import annotations

import functools
import json
import time
from collections import namedtuple
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import ConnectionLost, PlanStoreError

# The compiled forms of statements.py for SQLite; see there.
SHIPPED = Path(__file__).with_name("sqlite_statements.json")

# The execution option that marks a SQLAlchemy connection (migrations) as a writer.
WRITE_OPTION = "plans_write"


ATTEMPTS = 5
FOLLOWS = 3  # how many times one transaction opens a replaced plan file before giving up


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


class Compiled(NamedTuple):
    """A statement compiled for one dialect, in a form that can be stored as JSON."""

    sql: str
    names: tuple[str, ...] | None  # a positional driver's parameters, in order; None if named
    defaults: dict[str, Any]  # values the statement itself gives, such as .values(mode="plan")
    columns: tuple[str, ...] | None  # the names of a result row's columns, or None


class _Prepared(NamedTuple):
    sql: str
    positions: Any  # takes a positional driver's parameters, in order, from a dict
    defaults: dict[str, Any]
    row: Any  # the namedtuple type of a result row, or None


def compile_statement(statement: Any, dialect: Any) -> Compiled:
    """Compile a SQLAlchemy Core statement for `dialect`."""
    compiled = statement.compile(dialect=dialect)
    names = tuple(compiled.positiontup) if compiled.positional else None
    columns = None
    if getattr(statement, "is_select", False) or getattr(statement, "_returning", ()):
        columns = tuple(c.key for c in statement.selected_columns)
    # Only the parameters the SQL names: anonymous binds carry object ids in their keys.
    used = set(names) if names is not None else set(compiled.bind_names.values())
    defaults = {
        name: b.value for name, b in compiled.binds.items() if not b.required and name in used
    }
    return Compiled(str(compiled), names, defaults, columns)


@functools.cache
def shipped_forms() -> dict[str, Any]:
    """The compiled forms for SQLite that ship with the package (statements.py)."""
    try:
        return json.loads(SHIPPED.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _prepare(compiled: Compiled) -> _Prepared:
    positions = None
    if compiled.names is not None:
        names = tuple(compiled.names)
        positions = (lambda params: ()) if not names else itemgetter(*names)
        if len(names) == 1:
            positions = (lambda get: lambda params: (get(params),))(positions)
    row = None
    if compiled.columns is not None:
        row = namedtuple("Row", list(compiled.columns), rename=True)
    return _Prepared(compiled.sql, positions, compiled.defaults, row)


class StatementCache:
    """Compiled statements of one dialect: named statements of `statements.py` (for SQLite,
    from the compiled forms shipped with the package), or statement objects themselves.

    `dialect` is a SQLAlchemy dialect, or a dialect's name when none is at hand (then
    SQLAlchemy is imported only for a statement that has no shipped form).
    """

    def __init__(self, dialect: Any) -> None:
        self.name = dialect if isinstance(dialect, str) else dialect.name
        self._dialect = None if isinstance(dialect, str) else dialect
        self._by_name: dict[str, _Prepared] = {}
        self._by_object: dict[int, tuple[Any, _Prepared]] = {}

    @property
    def dialect(self) -> Any:
        if self._dialect is None:
            from sqlalchemy.dialects import registry

            self._dialect = registry.load(self.name)()
        return self._dialect

    def get(self, statement: Any) -> _Prepared:
        if isinstance(statement, str):
            found = self._by_name.get(statement)
            if found is None:
                found = self._by_name[statement] = _prepare(self._compiled(statement))
            return found
        found = self._by_object.get(id(statement))
        if found is not None and found[0] is statement:
            return found[1]
        entry = _prepare(compile_statement(statement, self.dialect))
        self._by_object[id(statement)] = (statement, entry)
        return entry

    def _compiled(self, name: str) -> Compiled:
        if self.name == "sqlite":
            form = shipped_forms().get(name)
            if form is not None:
                return Compiled(**form)
        from . import statements

        return compile_statement(statements.build(name, self.name), self.dialect)


class Tx:
    """One transaction, as a context manager: it commits when the block ends and rolls back if
    the block raises (nothing is committed in a finally). Rows come with attribute access.

    A connection found dead at BEGIN is replaced at once (nothing was done on it yet). One
    lost later raises ConnectionLost, and the store opens a new one for the next transaction.

    On a plan file, once BEGIN has run (a writer then holds the lock), the store looks that
    the file at its path is still the one the connection has open; if it was deleted or
    replaced, the transaction begins again on what is there now (see PlanStore._follow).
    """

    __slots__ = ("_cursor", "_statements", "_begin", "_store", "_write")

    def __init__(
        self, statements: StatementCache, begin: str, store: Any, write: bool | None = None
    ) -> None:
        self._cursor = None
        self._statements = statements
        self._begin = begin
        self._store = store
        self._write = write  # None: no file to look at (PostgreSQL, a read-only store)

    def __enter__(self) -> Tx:
        store, write = self._store, self._write
        for attempt in range(FOLLOWS + 1):
            self._cursor = store._cursor()
            try:
                self._cursor.execute(self._begin)
            except store.driver_error as exc:
                if write is not None and not store._on_file(write):
                    store._follow(write)  # the old file's connection may fail to begin
                    continue
                if store._lost(self._cursor):
                    if attempt == 0:
                        continue  # a connection found dead before any work: replace it at once
                    # Again: the operation is run again after a pause, as one lost later is.
                    raise ConnectionLost(f"{store}: the connection was lost: {_line(exc)}") from exc
                raise PlanStoreError(f"cannot use {store}: {_line(exc)}") from exc
            if write is None or store._on_file(write):
                return self
            try:
                self._cursor.execute("ROLLBACK")
            except store.driver_error:
                pass  # the connection is let go of next, whatever state it is in
            store._follow(write)
        raise PlanStoreError(f"cannot use {store}: the file at its path keeps being replaced")

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        store = self._store
        if kind is None:
            try:
                self._cursor.execute("COMMIT")
                return
            except store.driver_error as exc:
                if store._lost(self._cursor):
                    raise ConnectionLost(
                        f"{store}: the connection was lost while committing: {_line(exc)}",
                        committing=True,
                    ) from exc
                error = exc
        if isinstance(error, store.driver_error) and store._lost(self._cursor):
            raise ConnectionLost(f"{store}: the connection was lost: {_line(error)}") from error
        try:
            self._cursor.execute("ROLLBACK")
        except store.driver_error:
            pass  # the database already ended the transaction (SQLite does on some errors)
        if isinstance(error, store.driver_error):
            raise PlanStoreError(f"{store}: the change was not saved: {_line(error)}") from error

    def _params(self, compiled: _Prepared, params: dict | None) -> Any:
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
        self._cursor.execute(compiled.sql, self._params(compiled, params))
        return self._cursor.rowcount

    def execute_many(self, statement: Any, rows: list[dict]) -> None:
        compiled = self._statements.get(statement)
        self._cursor.executemany(compiled.sql, [self._params(compiled, r) for r in rows])

    def all(self, statement: Any, params: dict | None = None) -> list:
        compiled = self._statements.get(statement)
        self._cursor.execute(compiled.sql, self._params(compiled, params))
        return [compiled.row._make(r) for r in self._cursor.fetchall()]

    def first(self, statement: Any, params: dict | None = None) -> Any:
        compiled = self._statements.get(statement)
        self._cursor.execute(compiled.sql, self._params(compiled, params))
        found = self._cursor.fetchone()
        return None if found is None else compiled.row._make(found)

    def value(self, sql: str) -> Any:
        """The first column of the first row of plain SQL that takes no parameters."""
        return self._cursor.execute(sql).fetchone()[0]

    def scalar(self, statement: Any, params: dict | None = None) -> Any:
        row = self.first(statement, params)
        return None if row is None else row[0]


def _line(error: BaseException) -> str:
    """A driver's message, first line only: PostgreSQL adds CONTEXT and HINT lines."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
