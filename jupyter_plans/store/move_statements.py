"""The SQL of a plan following its notebook, as named statements (read through statements.py):
a plan file's own records of its moves, and a session renamed, copied or marked deleted with
its notebook in a shared database (session_moves.py).

A session's rename and copy touch every table whose rows name it: one statement per table
(`RENAMES`, `COPIES`, by table), passed as statements, not names. They run where SQLAlchemy is
loaded already (a rename, a copy), so they are compiled as they are first used, and not
shipped ahead for the coding-agent hook to read.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, insert, null, or_, select, update

from .keys import CURRENT_KEY, HOPS_KEY, LEFT_KEY, MOVE_KEYS, NOT_COPIED_KEYS, TAKEN_KEY
from .schema import (
    cells,
    comments,
    decisions,
    events,
    messages,
    proposals,
    questions,
    seen,
    session_moves,
    sessions,
    settings,
    turns,
)


def _keys(keys: tuple[str, ...]) -> Any:
    # key = ? OR key = ? ...: an IN list SQLAlchemy would expand only as it runs.
    return or_(*(settings.c.key == key for key in keys))


# A plan file's records of where it went and where it came from (marker.py, follow.py).
SELECT_MOVE_SETTINGS = select(settings.c.key, settings.c.value).where(_keys((*MOVE_KEYS, HOPS_KEY)))
DELETE_LEFT_BEHIND = delete(settings).where(_keys((LEFT_KEY, TAKEN_KEY)))
DELETE_NOT_COPIED = delete(settings).where(_keys(NOT_COPIED_KEYS))
RENAME_SEEN_NOTEBOOK_ALL = (
    update(seen)
    .where(seen.c.notebook == bindparam("old_notebook"))
    .values(notebook=bindparam("new_notebook"))
)

# A session moved with its notebook in a shared database (session_moves.py).
# Every table whose rows name a session, the session's own row first.
NAMED = (sessions, events, proposals, decisions, turns, messages, questions, cells, comments, seen)
_OLD, _NEW = bindparam("old"), bindparam("new")
LOCK_SESSION = (
    select(sessions.c.session_id, sessions.c.created_at, sessions.c.deleted_at)
    .where(sessions.c.session_id == bindparam("sid"))
    .with_for_update()
)
RENAMES = [update(t).where(t.c.session_id == _OLD).values(session_id=_NEW) for t in NAMED]
RENAME_SEEN_NOTEBOOK = (
    update(seen)
    .where(seen.c.session_id == _NEW, seen.c.notebook == bindparam("old_notebook"))
    .values(notebook=bindparam("new_notebook"))
)
RENAME_CURRENT = (
    update(settings)
    .where(settings.c.key == CURRENT_KEY, settings.c.value == _OLD)
    .values(value=_NEW)
)
INSERT_SESSION_MOVE = insert(session_moves).values(
    {name: bindparam(name) for name in ("old_id", "old_born", "new_id", "notebook", "at")}
)
MARK_SESSION_DELETED = (
    update(sessions)
    .where(sessions.c.session_id == bindparam("sid"), sessions.c.deleted_at.is_(None))
    .values(deleted_at=bindparam("at"))
)
LIST_DELETED_SESSIONS = (
    select(
        sessions.c.session_id,
        sessions.c.cursor,
        sessions.c.mode,
        sessions.c.revision,
        sessions.c.created_at,
        sessions.c.deleted_at,
    )
    .where(sessions.c.deleted_at.is_not(None))
    .order_by(sessions.c.deleted_at, sessions.c.session_id)
)


def _copy(table: Any) -> Any:
    """INSERT INTO table SELECT ... FROM table: the session's rows under the copy's id (its row
    born now, and not deleted)."""
    given = {"session_id": _NEW}
    if table is sessions:
        given |= {"created_at": bindparam("born"), "deleted_at": null()}
    columns = list(table.c)
    source = select(*(given.get(c.name, c) for c in columns)).where(table.c.session_id == _OLD)
    return insert(table).from_select([c.name for c in columns], source)


COPIES = [_copy(t) for t in NAMED if t is not seen]
