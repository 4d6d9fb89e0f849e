"""A store made again as an earlier schema version left it, on either engine: its tables as that
version's steps made them (migrations.py), holding the rows it has, without the columns later
versions added. Files the earlier code itself wrote are in tests/store/old_files."""

from __future__ import annotations

from typing import Any

from jupyter_plans import PlanStore
from jupyter_plans.store import migrations


def as_version(db: Any, version: int) -> None:
    """Make the store at `db` (a path or URL) a store of schema `version`, keeping its rows."""
    from sqlalchemy import inspect, text

    with PlanStore(db) as store, store.engine.begin() as conn:
        names = inspect(conn).get_table_names()
        kept = {
            name: [dict(row._mapping) for row in conn.execute(text(f'SELECT * FROM "{name}"'))]
            for name in names
            if name != "plans_schema_version"
        }
        for name in names:
            conn.exec_driver_sql(f'DROP TABLE "{name}"')
        for statement in migrations.statements(version, dialect=conn.dialect.name):
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql(f"INSERT INTO plans_schema_version (version) VALUES ({version})")
        found = inspect(conn)
        for name in found.get_table_names():
            columns = [column["name"] for column in found.get_columns(name)]
            rows = [{c: row[c] for c in columns} for row in kept.get(name, [])]
            if rows:
                names_sql = ", ".join(f'"{c}"' for c in columns)
                values = ", ".join(f":{c}" for c in columns)
                conn.execute(text(f'INSERT INTO "{name}" ({names_sql}) VALUES ({values})'), rows)
