"""Statements compiled once per dialect, and for SQLite compiled ahead: the forms ship with the
package in `sqlite_statements.json`, so opening a plan file and working in it imports no
SQLAlchemy. `python -m jupyter_plans.store.compiled` writes the file after a change to
statements.py or schema.py; the tests check it against SQLAlchemy.
"""

from __future__ import annotations

import json
from collections import namedtuple
from operator import itemgetter
from typing import Any, NamedTuple

from .shipped import SHIPPED, shipped_forms


class Compiled(NamedTuple):
    """A statement compiled for one dialect, in a form that can be stored as JSON."""

    sql: str
    names: tuple[str, ...] | None  # a positional driver's parameters, in order; None if named
    defaults: dict[str, Any]  # values the statement itself gives, such as .values(mode="plan")
    columns: tuple[str, ...] | None  # the names of a result row's columns, or None


class Prepared(NamedTuple):
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


def _prepare(compiled: Compiled) -> Prepared:
    positions = None
    if compiled.names is not None:
        names = tuple(compiled.names)
        positions = (lambda params: ()) if not names else itemgetter(*names)
        if len(names) == 1:
            positions = (lambda get: lambda params: (get(params),))(positions)
    row = None
    if compiled.columns is not None:
        row = namedtuple("Row", list(compiled.columns), rename=True)
    return Prepared(compiled.sql, positions, compiled.defaults, row)


class StatementCache:
    """Compiled statements of one dialect: named statements of `statements.py` (for SQLite,
    from the compiled forms shipped with the package), or statement objects themselves.

    `dialect` is a SQLAlchemy dialect, or a dialect's name when none is at hand (then
    SQLAlchemy is imported only for a statement that has no shipped form).
    """

    def __init__(self, dialect: Any) -> None:
        self.name = dialect if isinstance(dialect, str) else dialect.name
        self._dialect = None if isinstance(dialect, str) else dialect
        self._by_name: dict[str, Prepared] = {}
        self._by_object: dict[int, tuple[Any, Prepared]] = {}

    @property
    def dialect(self) -> Any:
        if self._dialect is None:
            from sqlalchemy.dialects import registry

            self._dialect = registry.load(self.name)()
        return self._dialect

    def get(self, statement: Any) -> Prepared:
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


def compiled_forms(dialect) -> dict[str, dict]:
    """Every statement compiled for `dialect`, in the form the store keeps."""
    from .statements import build, names

    return {
        name: compile_statement(build(name, dialect.name), dialect)._asdict() for name in names()
    }


def shipped() -> dict:
    """What sqlite_statements.json holds: every statement, and the tables of a new file (which
    opening a current plan file compares with its own; see migrations.py)."""
    from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

    from .migrations import fresh_tables

    return {**compiled_forms(SQLiteDialect_pysqlite()), "__tables__": fresh_tables()}


def write_shipped() -> None:
    text = json.dumps(shipped(), indent=1, sort_keys=True) + "\n"
    SHIPPED.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_shipped()
    print(f"wrote {SHIPPED}")
