"""Schema versions as an ordered list: MIGRATIONS[n] takes a store from version n to n + 1."""

from collections.abc import Callable

from sqlalchemy import Column, Connection, Integer, insert, inspect, select, update

from .schema import TABLES_V1, questions, schema_version, seen, sessions


def _create_v1(conn: Connection) -> None:
    for table in TABLES_V1:
        table.create(conn, checkfirst=True)


def _add_questions(conn: Connection) -> None:
    questions.create(conn, checkfirst=True)


def _add_finished_and_seen(conn: Connection) -> None:
    # A store created at this version already has the column (TABLES_V1 holds today's tables).
    if "finished_seq" not in {c["name"] for c in inspect(conn).get_columns(sessions.name)}:
        column = Column("finished_seq", Integer)
        kind = column.type.compile(dialect=conn.dialect)
        conn.exec_driver_sql(f"ALTER TABLE {sessions.name} ADD COLUMN {column.name} {kind}")
    seen.create(conn, checkfirst=True)


MIGRATIONS: list[Callable[[Connection], None]] = [
    _create_v1,
    _add_questions,
    _add_finished_and_seen,
]
LATEST = len(MIGRATIONS)


def read_version(conn: Connection) -> int:
    if not conn.dialect.has_table(conn, schema_version.name):
        return 0
    return conn.execute(select(schema_version.c.version)).scalar() or 0


def upgrade(conn: Connection, current: int) -> None:
    """Apply the migrations after `current`, inside the caller's transaction."""
    for migration in MIGRATIONS[current:]:
        migration(conn)
    if current == 0:
        conn.execute(insert(schema_version).values(version=LATEST))
    else:
        conn.execute(update(schema_version).values(version=LATEST))
