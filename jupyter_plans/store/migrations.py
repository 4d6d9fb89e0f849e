"""Schema versions as an ordered list: MIGRATIONS[n] takes a store from version n to n + 1 with
the DDL written for version n + 1 (the position in the list is the version). A step is never
changed once written: a new version is a new step at the end, and a new store runs every step,
so a store made new and one upgraded from any earlier version hold the same tables. A statement
is the same for both engines, or a {dialect: statement} mapping where they differ.

A plan file whose tables are not those of the version it records is upgraded whole when it is
one of the development builds' files named in VARIANTS, and refused in one line otherwise.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import namedtuple
from collections.abc import Mapping

from ..errors import PlanStoreError
from .shipped import shipped_forms

TYPE_CHECKING = False  # typing is not loaded at run time (the hook reads LATEST)
if TYPE_CHECKING:
    from typing import Any

    from sqlalchemy import Connection

_V1 = (
    "CREATE TABLE plans_schema_version (version INTEGER NOT NULL)",
    'CREATE TABLE plans_settings ("key" VARCHAR(64) NOT NULL, value TEXT NOT NULL, '
    'PRIMARY KEY ("key"))',
    "CREATE TABLE plans_sessions (session_id VARCHAR(200) NOT NULL, cursor INTEGER NOT NULL, "
    "revision INTEGER NOT NULL, mode VARCHAR(16) NOT NULL, "
    "pending_proposal_hash VARCHAR(64), approved_proposal_hash VARCHAR(64), "
    "plan_seq INTEGER, newest_turn_id TEXT, newest_turn_ordinal INTEGER NOT NULL, "
    "newest_turn_cancelled BOOLEAN NOT NULL, created_at VARCHAR(40) NOT NULL, "
    "PRIMARY KEY (session_id))",
    "CREATE TABLE plans_events (session_id VARCHAR(200) NOT NULL, seq INTEGER NOT NULL, "
    "kind VARCHAR(32) NOT NULL, data TEXT NOT NULL, at BIGINT NOT NULL, call_id TEXT, "
    "result TEXT, PRIMARY KEY (session_id, seq))",
    "CREATE UNIQUE INDEX plans_events_call ON plans_events (session_id, call_id)",
    "CREATE TABLE plans_proposals (session_id VARCHAR(200) NOT NULL, seq INTEGER NOT NULL, "
    "hash VARCHAR(64) NOT NULL, revision INTEGER NOT NULL, body TEXT NOT NULL, "
    "PRIMARY KEY (session_id, seq))",
    "CREATE TABLE plans_decisions (session_id VARCHAR(200) NOT NULL, seq INTEGER NOT NULL, "
    "title TEXT NOT NULL, rationale TEXT NOT NULL, sources TEXT NOT NULL, "
    "PRIMARY KEY (session_id, seq))",
    "CREATE TABLE plans_turns (session_id VARCHAR(200) NOT NULL, turn_id TEXT NOT NULL, "
    "ordinal INTEGER NOT NULL, cancelled BOOLEAN NOT NULL, PRIMARY KEY (session_id, turn_id))",
    "CREATE TABLE plans_messages (session_id VARCHAR(200) NOT NULL, "
    "message_id INTEGER NOT NULL, source VARCHAR(16) NOT NULL, text TEXT NOT NULL, "
    "queued_seq INTEGER NOT NULL, delivered_seq INTEGER, "
    "PRIMARY KEY (session_id, message_id))",
)
_GUARD_SEEN = (
    "CREATE TABLE guard_seen (agent VARCHAR(80) NOT NULL, agent_version VARCHAR(40), "
    "point VARCHAR(40) NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (agent))"
)
_COMMENTS = (
    "CREATE TABLE plans_comments (session_id VARCHAR(200) NOT NULL, number INTEGER NOT NULL, "
    'step_id VARCHAR(64), anchor TEXT, text TEXT NOT NULL, "by" TEXT, '
    "status VARCHAR(16) NOT NULL, reply TEXT, status_seq INTEGER NOT NULL, "
    "opened_seq INTEGER NOT NULL, PRIMARY KEY (session_id, number))"
)
_COMMENTS_STATUS = (
    "CREATE INDEX plans_comments_status ON plans_comments (session_id, status, status_seq)"
)
_AGENT_SEQ = "ALTER TABLE plans_sessions ADD COLUMN agent_seq INTEGER"

Statement = str | Mapping[str, str]  # one for every engine, or one per dialect's name

MIGRATIONS: list[tuple[Statement, ...]] = [
    # 1: sessions, their events, proposals, decisions, turns and the agent's queue.
    _V1,
    # 2: the questions the agent asked with ask_user.
    (
        "CREATE TABLE plans_questions (session_id VARCHAR(200) NOT NULL, "
        "asked_seq INTEGER NOT NULL, turn_id TEXT, question TEXT NOT NULL, "
        "closed_seq INTEGER, PRIMARY KEY (session_id, asked_seq))",
    ),
    # 3: the review that finished the plan, and what each notebook's card last showed.
    (
        "ALTER TABLE plans_sessions ADD COLUMN finished_seq INTEGER",
        "CREATE TABLE plans_seen (notebook VARCHAR(500) NOT NULL, "
        "session_id VARCHAR(200) NOT NULL, cursor INTEGER NOT NULL, "
        "PRIMARY KEY (notebook, session_id))",
    ),
    # 4: only calls that came with an id are indexed by it.
    (
        "DROP INDEX IF EXISTS plans_events_call",
        "CREATE UNIQUE INDEX plans_events_call ON plans_events (session_id, call_id) "
        "WHERE call_id IS NOT NULL",
    ),
    # 5: each accepted call's digest, so a reused id with another call is refused.
    ("ALTER TABLE plans_events ADD COLUMN call_digest TEXT",),
    # 6: the cells that did each step.
    (
        "CREATE TABLE plans_cells (session_id VARCHAR(200) NOT NULL, "
        "step_id VARCHAR(64) NOT NULL, cell_id VARCHAR(128) NOT NULL, seq INTEGER NOT NULL, "
        "execution_count INTEGER, ok BOOLEAN NOT NULL, code_sha256 VARCHAR(64) NOT NULL, "
        "baseline_sha256 VARCHAR(64), PRIMARY KEY (session_id, step_id, cell_id))",
    ),
    # 7: the guard's heartbeat.
    (_GUARD_SEEN,),
    # 8: the person's comments on steps.
    (_COMMENTS, _COMMENTS_STATUS),
    # 9: the bridged agent's last status.
    (_AGENT_SEQ,),
    # 10: a session's deleted mark, and the moves of sessions renamed with their notebooks.
    (
        "ALTER TABLE plans_sessions ADD COLUMN deleted_at VARCHAR(40)",
        {
            dialect: f"CREATE TABLE plans_session_moves ( seq {kind} NOT NULL, "
            "old_id VARCHAR(200) NOT NULL, old_born VARCHAR(40), new_id VARCHAR(200) NOT NULL, "
            "notebook TEXT, at BIGINT NOT NULL, PRIMARY KEY (seq) )"
            for dialect, kind in (("sqlite", "INTEGER"), ("postgresql", "SERIAL"))
        },
        "CREATE INDEX plans_session_moves_old ON plans_session_moves (old_id, seq)",
    ),
]
LATEST = len(MIGRATIONS)


# Files of a development build: stamped `recorded`, with the tables `holds` makes after
# version `after`'s; `then` makes them version `reaches`'s.
Variant = namedtuple("Variant", ["recorded", "after", "holds", "then", "reaches"])


VARIANTS = [
    # Version 7 of builds where 7 meant the person's comments (before and after their index),
    # or the bridged agent's status; none has guard_seen.
    Variant(7, 6, (_COMMENTS,), (_GUARD_SEEN, _COMMENTS_STATUS), 8),
    Variant(7, 6, (_COMMENTS, _COMMENTS_STATUS), (_GUARD_SEEN,), 8),
    Variant(7, 6, (_AGENT_SEQ,), (_GUARD_SEEN, _COMMENTS, _COMMENTS_STATUS), 9),
    # Those, stamped 9 by the code of version 9 before its steps were frozen: still no
    # guard_seen, so the hooks' heartbeats failed unseen.
    Variant(9, 6, (_COMMENTS, _AGENT_SEQ), (_GUARD_SEEN, _COMMENTS_STATUS), 9),
    Variant(9, 6, (_COMMENTS, _COMMENTS_STATUS, _AGENT_SEQ), (_GUARD_SEEN,), 9),
]

Tables = frozenset[tuple[str, str, str]]
# A plan file's tables and indexes; SQLite's own objects (autoindexes, statistics) are left out.
OBJECTS = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"


def statements(until: int = LATEST, after: int = 0, dialect: str = "sqlite") -> list[str]:
    """The steps' statements that take a store from version `after` to `until`."""
    return [_in(dialect, statement) for step in MIGRATIONS[after:until] for statement in step]


def _in(dialect: str, statement: Statement) -> str:
    return statement if isinstance(statement, str) else statement[dialect]


def tables_of(rows: Any) -> Tables:
    """The (type, name, DDL) of a plan file's tables and indexes, from sqlite_master's rows
    (OBJECTS), the DDL token for token: SQLite keeps a CREATE statement's text as written
    and writes an added column on the line of the column before it, so whitespace between
    tokens is set aside."""
    return frozenset((kind, name, _tokens(sql)) for kind, name, sql in rows)


@functools.lru_cache(maxsize=256)
def _tokens(sql: str | None) -> str:
    spaced = (sql or "").replace("(", " ( ").replace(")", " ) ").replace(",", " , ")
    return " ".join(spaced.split())


@functools.cache
def _made_by(made: tuple[str, ...]) -> Tables:
    connection = sqlite3.connect(":memory:")
    try:
        for statement in made:
            connection.execute(statement)
        return tables_of(connection.execute(OBJECTS))
    finally:
        connection.close()


def fresh_tables() -> list[list[str]]:
    """The tables of a new plan file, as shipped with the package (compiled.py)."""
    return sorted(list(row) for row in _made_by(tuple(statements())))


def expected(version: int) -> Tables:
    """The tables of a plan file of `version`, as its steps make them."""
    if version == LATEST:
        shipped = shipped_forms().get("__tables__")
        if shipped:  # made once, ahead: opening a current file builds nothing
            return frozenset(tuple(row) for row in shipped)
    return _made_by(tuple(statements(version)))


def steps_for(tables: Tables, version: int, where: object) -> list[str]:
    """What takes a plan file of `version` with these tables to LATEST; raise PlanStoreError,
    in one line, when its tables are neither its version's nor a known variant's."""
    if tables == expected(version):
        return statements(after=version)
    for variant in VARIANTS:
        held = (*statements(variant.after), *variant.holds)
        if variant.recorded == version and tables == _made_by(held):
            return [*variant.then, *statements(after=variant.reaches)]
    raise PlanStoreError(
        f"{where} is not a readable plan file: it records plan schema version {version}, but "
        f"its tables are not version {version}'s ({_difference(tables, expected(version))}); "
        "it was written by a development build of jupyter-plans"
    )


def _difference(found: Tables, wanted: Tables) -> str:
    have = {name: sql for _kind, name, sql in found}
    want = {name: sql for _kind, name, sql in wanted}
    words = [f"{name} is missing" for name in sorted(want.keys() - have.keys())]
    both = sorted(want.keys() & have.keys())
    words += [f"{name} differs" for name in both if have[name] != want[name]]
    words += [f"{name} is not a plan table" for name in sorted(have.keys() - want.keys())]
    return ", ".join(words[:3]) + (f" and {len(words) - 3} more" if len(words) > 3 else "")


def check_file(connection: sqlite3.Connection, where: object) -> bool:
    """A look at a plan file (version 1 to LATEST) before it is opened: True when its tables
    are its version's, False when it is a variant to upgrade whole; raises otherwise."""
    (version,) = connection.execute("SELECT version FROM plans_schema_version").fetchone()
    tables = tables_of(connection.execute(OBJECTS))
    steps_for(tables, version, where)
    return tables == expected(version)


def read_version(conn: Connection) -> int:
    from sqlalchemy import select

    from .schema import schema_version

    if not conn.dialect.has_table(conn, schema_version.name):
        return 0
    return conn.execute(select(schema_version.c.version)).scalar() or 0


def _steps(conn: Connection, current: int) -> list[str]:
    if conn.dialect.name != "sqlite" or current == 0:
        return statements(after=current, dialect=conn.dialect.name)
    tables = tables_of(conn.exec_driver_sql(OBJECTS).fetchall())
    return steps_for(tables, current, conn.engine.url.database)


def behind(conn: Connection, current: int) -> bool:
    """Whether the store at version `current` has steps to take (on SQLite, also a file of the
    latest version whose tables are a variant's)."""
    return bool(_steps(conn, current))


def upgrade(conn: Connection, current: int) -> None:
    """Take the store from version `current` to LATEST, inside the caller's transaction."""
    from sqlalchemy import insert, update

    from .schema import schema_version

    for statement in _steps(conn, current):
        conn.exec_driver_sql(statement)
    if current == 0:
        conn.execute(insert(schema_version).values(version=LATEST))
    else:
        conn.execute(update(schema_version).values(version=LATEST))
