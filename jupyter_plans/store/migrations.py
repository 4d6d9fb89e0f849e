"""Schema versions as an ordered list: MIGRATIONS[n] takes a store from version n to n + 1.

SQLAlchemy is imported when a migration runs, not with this module: opening a current plan
file needs only LATEST.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not loaded at run time (the hook reads LATEST)
if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Connection


def _create_v1(conn: Connection) -> None:
    from .schema import TABLES_V1

    for table in TABLES_V1:
        table.create(conn, checkfirst=True)


def _add_questions(conn: Connection) -> None:
    from .schema import questions

    questions.create(conn, checkfirst=True)


def _add_finished_and_seen(conn: Connection) -> None:
    from sqlalchemy import Column, Integer, inspect

    from .schema import seen, sessions

    # A store created at this version already has the column (TABLES_V1 holds today's tables).
    if "finished_seq" not in {c["name"] for c in inspect(conn).get_columns(sessions.name)}:
        column = Column("finished_seq", Integer)
        kind = column.type.compile(dialect=conn.dialect)
        conn.exec_driver_sql(f"ALTER TABLE {sessions.name} ADD COLUMN {column.name} {kind}")
    seen.create(conn, checkfirst=True)


def _index_only_given_call_ids(conn: Connection) -> None:
    from .schema import events

    # The unique index on call ids becomes partial: a call without an id adds no entry.
    (index,) = (index for index in events.indexes if index.name == "plans_events_call")
    conn.exec_driver_sql(f"DROP INDEX IF EXISTS {index.name}")
    index.create(conn)


def _add_call_digest(conn: Connection) -> None:
    from sqlalchemy import inspect

    from .schema import events

    # A store created at this version already has the column (TABLES_V1 holds today's tables).
    if "call_digest" not in {c["name"] for c in inspect(conn).get_columns(events.name)}:
        conn.exec_driver_sql(f"ALTER TABLE {events.name} ADD COLUMN call_digest TEXT")


def _add_cells(conn: Connection) -> None:
    from .schema import cells

    cells.create(conn, checkfirst=True)


def _add_guard_seen(conn: Connection) -> None:
    from .schema import guard_seen

    guard_seen.create(conn, checkfirst=True)


def _add_comments(conn: Connection) -> None:
    from .schema import comments

    comments.create(conn, checkfirst=True)


def _add_agent_seq(conn: Connection) -> None:
    from sqlalchemy import inspect

    from .schema import sessions

    # A store created at this version already has the column (TABLES_V1 holds today's tables).
    if "agent_seq" not in {c["name"] for c in inspect(conn).get_columns(sessions.name)}:
        conn.exec_driver_sql(f"ALTER TABLE {sessions.name} ADD COLUMN agent_seq INTEGER")


MIGRATIONS: list[Callable[[Connection], None]] = [
    _create_v1,
    _add_questions,
    _add_finished_and_seen,
    _index_only_given_call_ids,
    _add_call_digest,
    _add_cells,
    _add_guard_seen,
    _add_comments,
    _add_agent_seq,
]
LATEST = len(MIGRATIONS)


def read_version(conn: Connection) -> int:
    from sqlalchemy import select

    from .schema import schema_version

    if not conn.dialect.has_table(conn, schema_version.name):
        return 0
    return conn.execute(select(schema_version.c.version)).scalar() or 0


def upgrade(conn: Connection, current: int) -> None:
    """Apply the migrations after `current`, inside the caller's transaction."""
    from sqlalchemy import insert, update

    from .schema import schema_version

    for migration in MIGRATIONS[current:]:
        migration(conn)
    if current == 0:
        conn.execute(insert(schema_version).values(version=LATEST))
    else:
        conn.execute(update(schema_version).values(version=LATEST))
