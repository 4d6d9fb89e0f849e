"""A session follows its notebook in a shared database (DESIGN section 16): renamed in one
transaction with every row that names it (and a move recorded, which session objects that knew
it follow: moves.py), copied under a copy's id, marked deleted, never dropped.

SQLAlchemy is imported with this module: only for a rename, a copy or a delete.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, insert, null, select, update

from .guards import now_ms
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
from .statements import CURRENT_KEY

if TYPE_CHECKING:
    from .store import Store

# Every table whose rows name a session, the session's own row first.
NAMED = (sessions, events, proposals, decisions, turns, messages, questions, cells, comments, seen)

_OLD, _NEW = bindparam("old"), bindparam("new")
LOCK = (
    select(sessions.c.session_id, sessions.c.created_at, sessions.c.deleted_at)
    .where(sessions.c.session_id == bindparam("sid"))
    .with_for_update()
)
RENAME = {t.name: update(t).where(t.c.session_id == _OLD).values(session_id=_NEW) for t in NAMED}
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
INSERT_MOVE = insert(session_moves).values(
    {name: bindparam(name) for name in ("old_id", "old_born", "new_id", "notebook", "at")}
)
MARK_DELETED = (
    update(sessions)
    .where(sessions.c.session_id == bindparam("sid"), sessions.c.deleted_at.is_(None))
    .values(deleted_at=bindparam("at"))
)
LIST_DELETED = (
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


COPY = {t.name: _copy(t) for t in NAMED if t is not seen}


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def rename(
    store: Store,
    old: str,
    new: str,
    notebook: str | None = None,
    names: tuple[str, str] | None = None,
) -> str:
    """Give session `old` the id `new` with every row that names it, in one transaction: `moved`;
    `missing` (no row: a move is recorded, for a session object that has not written yet);
    `taken` (a session `new` exists: nothing changes). `names` (old, new) are the notebook's
    names in what each notebook has seen of the session; `notebook` is the new notebook's path."""
    with store.write() as tx:  # a notice to the whole store: every listener looks again
        row = tx.first(LOCK, {"sid": old})
        if row is not None and tx.first(LOCK, {"sid": new}) is not None:
            return "taken"
        if row is not None:
            for statement in RENAME.values():
                tx.execute(statement, {"old": old, "new": new})
            if names is not None:
                tx.execute(
                    RENAME_SEEN_NOTEBOOK,
                    {"new": new, "old_notebook": names[0], "new_notebook": names[1]},
                )
        tx.execute(RENAME_CURRENT, {"old": old, "new": new})
        move = {"old_id": old, "new_id": new, "notebook": notebook, "at": now_ms()}
        tx.execute(INSERT_MOVE, move | {"old_born": None if row is None else row.created_at})
    store.forget_written()
    return "moved" if row is not None else "missing"


def copy(store: Store, source: str, target: str) -> str:
    """Copy session `source` under the id `target`, from then on independent: `copied`;
    `missing` (nothing to copy) or `taken` (a session `target` exists), changing nothing."""
    with store.write(target) as tx:
        if tx.first(LOCK, {"sid": source}) is None:
            return "missing"
        if tx.first(LOCK, {"sid": target}) is not None:
            return "taken"
        for statement in COPY.values():
            tx.execute(statement, {"old": source, "new": target, "born": iso(now_ms())})
    return "copied"


def mark_deleted(store: Store, session_id: str) -> bool:
    """Mark the session deleted with its notebook, dropping nothing; False where there is no
    such session (or it was marked already)."""
    with store.write(session_id) as tx:
        return tx.execute(MARK_DELETED, {"sid": session_id, "at": iso(now_ms())}) > 0


def deleted(store: Store) -> list[dict]:
    """The sessions marked deleted, in the order they were."""
    with store.read() as tx:
        return [row._asdict() for row in tx.all(LIST_DELETED)]
