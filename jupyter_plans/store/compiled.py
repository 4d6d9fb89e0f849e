"""Statements compiled once per dialect, and for SQLite compiled ahead: the forms ship with the
package in `sqlite_statements.json`, so opening a plan file and working in it imports no
SQLAlchemy (`run_sqlite` runs one on a plain sqlite3 connection). `python -m
jupyter_plans.store.compiled` writes the file after a change to statements.py or schema.py;
the tests check it against SQLAlchemy.

Imported by the coding-agent hook, which starts with the standard library's sqlite3 alone:
neither json, pathlib nor typing is loaded here.
"""

from __future__ import annotations

from keyword import iskeyword
from operator import itemgetter

from .shipped import SHIPPED_PATH, shipped_forms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def __getattr__(name: str) -> Path:
    if name == "SHIPPED":  # the compiled forms of statements.py for SQLite; see there
        from . import shipped

        return shipped.SHIPPED
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compile_statement(statement: Any, dialect: Any) -> dict:
    """A SQLAlchemy Core statement compiled for `dialect`, in a form that can be stored as
    JSON: its `sql`; its `names`, a positional driver's parameters in order (None if named); its
    `defaults`, values the statement itself gives, such as .values(mode="plan"); its `columns`,
    the names of a result row's columns (or None)."""
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
    return {"sql": str(compiled), "names": names, "defaults": defaults, "columns": columns}


class Prepared:
    """A compiled statement ready to run: its `sql`; `positions`, which takes a positional
    driver's parameters, in order, from a dict (None for a driver that takes them by name); its
    `defaults`; and `row`, the type of a result row (None for a statement that returns none),
    made the first time a row is read."""

    __slots__ = ("sql", "positions", "defaults", "_columns", "_row")

    def __init__(self, sql: str, names: Any, defaults: dict, columns: Any) -> None:
        self.sql, self.defaults, self._columns, self._row = sql, defaults, columns, None
        self.positions = None
        if names is not None:
            names = tuple(names)
            positions = (lambda params: ()) if not names else itemgetter(*names)
            if len(names) == 1:
                positions = (lambda get: lambda params: (get(params),))(positions)
            self.positions = positions

    @property
    def row(self) -> Any:
        if self._row is None and self._columns is not None:
            self._row = row_type(self._columns)
        return self._row


def row_type(columns: Any) -> type:
    """A result row: a tuple whose columns are also attributes, as namedtuple(..., rename=True)
    makes it (a name that cannot be one is _N), with `_make`, `_fields` and `_asdict`; made
    without the source code namedtuple compiles for each type, which took a kernel a sixth of
    a millisecond a statement."""
    fields: list[str] = []
    for index, name in enumerate(map(str, columns)):
        valid = name.isidentifier() and not iskeyword(name) and not name.startswith("_")
        fields.append(name if valid and name not in fields else f"_{index}")

    def _asdict(row: tuple) -> dict:
        return dict(zip(fields, row, strict=True))

    def __repr__(row: tuple) -> str:
        return f"Row({', '.join(f'{k}={v!r}' for k, v in _asdict(row).items())})"

    namespace: dict[str, Any] = {
        "__slots__": (),
        "_fields": tuple(fields),
        "_make": classmethod(tuple.__new__),
        "_asdict": _asdict,
        "__repr__": __repr__,
    }
    namespace.update((name, property(itemgetter(i))) for i, name in enumerate(fields))
    return type("Row", (tuple,), namespace)


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
                found = self._by_name[statement] = Prepared(**self._compiled(statement))
            return found
        found = self._by_object.get(id(statement))
        if found is not None and found[0] is statement:
            return found[1]
        entry = Prepared(**compile_statement(statement, self.dialect))
        self._by_object[id(statement)] = (statement, entry)
        return entry

    def _compiled(self, name: str) -> dict:
        if self.name == "sqlite":
            form = shipped_forms().get(name)
            if form is not None:
                return form
        from . import statements

        return compile_statement(statements.build(name, self.name), self.dialect)


_SQLITE = StatementCache("sqlite")


def run_sqlite(connection: Any, name: str, params: dict | None = None) -> Any:
    """Run the statement `name` on a plain sqlite3 connection (in its shipped form, so no
    SQLAlchemy is imported): for the modules that work on a plan file outside a store."""
    prepared = _SQLITE.get(name)
    params = {**prepared.defaults, **(params or {})}
    positions = prepared.positions
    return connection.execute(prepared.sql, params if positions is None else positions(params))


def setting(connection: Any, key: str) -> Any:
    """The value a plain sqlite3 connection's plan file keeps under `key` (keys.py), or None."""
    row = run_sqlite(connection, "SELECT_SETTING", {"key": key}).fetchone()
    return None if row is None else row[0]


def set_setting(connection: Any, key: str, value: Any) -> None:
    """Keep `value` under `key` in the plan file, in the caller's transaction."""
    run_sqlite(connection, "UPSERT_SETTING", {"key": key, "value": value})


def compiled_forms(dialect) -> dict[str, dict]:
    """Every statement compiled for `dialect`, in the form the store keeps."""
    from .statements import build, names

    return {name: compile_statement(build(name, dialect.name), dialect) for name in names()}


def shipped() -> dict:
    """What sqlite_statements.json holds: every statement, and the tables of a new file (which
    opening a current plan file compares with its own; see migrations.py)."""
    from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

    from .migrations import fresh_tables

    return {**compiled_forms(SQLiteDialect_pysqlite()), "__tables__": fresh_tables()}


def write_shipped() -> None:
    import json

    text = json.dumps(shipped(), indent=1, sort_keys=True) + "\n"
    with open(SHIPPED_PATH, "w", encoding="utf-8") as file:
        file.write(text)


if __name__ == "__main__":
    write_shipped()
    print(f"wrote {SHIPPED_PATH}")
