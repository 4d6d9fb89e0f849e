"""Schema versions as frozen steps (store/migrations.py): a list whose position is the
version, the same tables SQLAlchemy knows, and on both engines a store of every earlier version,
with its rows, upgraded to the tables a new store has. Files the earlier code itself wrote:
test_old_files.py."""

import sqlite3

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store import migrations
from tests.engines import database
from tests.helpers.older import as_version


def test_the_steps_are_a_list_whose_position_is_the_version():
    assert migrations.LATEST == len(migrations.MIGRATIONS)
    for step in migrations.MIGRATIONS:
        assert isinstance(step, tuple) and step
        for statement in step:  # one for both engines, or one for each
            assert isinstance(statement, str) or set(statement) == {"sqlite", "postgresql"}
    everything = [s for step in migrations.MIGRATIONS for s in step]
    assert len(migrations.statements()) == len(everything)
    two_and_three = [*migrations.MIGRATIONS[1], *migrations.MIGRATIONS[2]]
    assert migrations.statements(3, after=1) == two_and_three


def test_the_sqlalchemy_tables_are_the_ones_the_steps_make():
    """The statements are built from schema.py's tables: they must be today's, column for
    column and in the same order."""
    from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
    from sqlalchemy.schema import CreateIndex, CreateTable

    from jupyter_plans.store.schema import metadata

    dialect = SQLiteDialect_pysqlite()
    connection = sqlite3.connect(":memory:")
    for table in metadata.sorted_tables:
        connection.execute(str(CreateTable(table).compile(dialect=dialect)))
        for index in table.indexes:
            connection.execute(str(CreateIndex(index).compile(dialect=dialect)))
    assert migrations.tables_of(connection.execute(migrations.OBJECTS)) == migrations.expected(
        migrations.LATEST
    )
    connection.close()


def structure(db) -> dict:
    """Every table's columns and every index, as the engine reports them."""
    from sqlalchemy import inspect

    with PlanStore(db) as store, store.engine.connect() as conn:
        found = inspect(conn)
        tables = {}
        for name in sorted(found.get_table_names()):
            columns = [(c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(name)]
            indexes = sorted(
                (i["name"], tuple(i["column_names"]), i["unique"], where(i))
                for i in found.get_indexes(name)
            )
            key = tuple(found.get_pk_constraint(name)["constrained_columns"])
            tables[name] = (columns, indexes, key)
        return tables


def where(index: dict) -> str:
    """A partial index's condition, as text."""
    options = index.get("dialect_options", {})
    return " ".join(str(v) for k, v in sorted(options.items()) if k.endswith("_where"))


@pytest.mark.parametrize("version", range(1, migrations.LATEST))
def test_a_store_of_each_earlier_version_reaches_a_new_stores_tables(engine, db, tmp_path, version):
    with PlanStore(db) as store:
        session = store.session("s")
        session.on()
        steps = [{"id": "load", "description": "Load sales.csv"}]
        submit = {"explanation": "Load first.", "findings": [], "objectives": [], "steps": steps}
        assert not session.call_tool("plan_submit", submit, call_id="c1").is_error
        before = session.events()
    as_version(db, version)
    with PlanStore(db) as store:
        assert store.session("s").events() == before
    (tmp_path / "new").mkdir()
    with database(engine, tmp_path / "new") as new:
        PlanStore(new).close()
        assert structure(db) == structure(new)
