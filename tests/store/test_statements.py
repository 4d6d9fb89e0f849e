"""The compiled SQL that ships with the package is what SQLAlchemy makes of the statements now,
and a new plan file has the tables the migrations make, as shipped."""

import json
import sqlite3

from jupyter_plans.store import compiled, migrations
from jupyter_plans.store.compiled import SHIPPED, shipped_forms


def test_the_shipped_sqlite_forms_are_current():
    """After a change to a statement or a table: python -m jupyter_plans.store.compiled"""
    assert json.loads(SHIPPED.read_text(encoding="utf-8")) == json.loads(
        json.dumps(compiled.shipped())
    )


def _schema(path):
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    version = conn.execute("SELECT version FROM plans_schema_version").fetchall()
    conn.close()
    return {(kind, name, " ".join((sql or "").split())) for kind, name, sql in rows}, version


def test_a_new_file_has_the_tables_the_migrations_make_and_ship(tmp_path):
    from sqlalchemy import create_engine

    from jupyter_plans import PlanStore

    PlanStore(tmp_path / "shipped.plans.sqlite").close()
    engine = create_engine(f"sqlite:///{tmp_path / 'migrated.plans.sqlite'}")
    with engine.begin() as conn:
        migrations.upgrade(conn, 0)
    engine.dispose()
    shipped, migrated = (
        _schema(tmp_path / "shipped.plans.sqlite"),
        _schema(tmp_path / "migrated.plans.sqlite"),
    )
    assert shipped == migrated
    assert shipped[1] == [(migrations.LATEST,)]
    tables = {(kind, name, sql) for kind, name, sql in shipped_forms()["__tables__"]}
    assert (
        tables
        == migrations.expected(migrations.LATEST)
        == migrations.tables_of((kind, name, sql) for kind, name, sql in shipped[0])
    )


def test_opening_a_current_plan_file_does_not_import_sqlalchemy(tmp_path):
    import subprocess
    import sys

    from jupyter_plans import PlanStore

    PlanStore(tmp_path / "a.plans.sqlite").close()
    code = (
        "import sys\n"
        "from jupyter_plans import PlanStore\n"
        "with PlanStore(sys.argv[1]) as store:\n"
        "    session = store.session('s')\n"
        "    session.on()\n"
        "    session.call_tool('update_plan', {'expected_revision': 0, 'steps': []})\n"
        "    print(session.snapshot().cursor)\n"
        "print('sqlalchemy' in sys.modules)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "a.plans.sqlite")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.split() == ["2", "False"]
