"""A session follows its notebook in a shared database (DESIGN section 16): renamed in one
transaction with every row that names it (and a move recorded, which session objects that knew
it follow: moves.py), copied under a copy's id, marked deleted, never dropped.

Its SQL is in move_statements.py; SQLAlchemy is imported with this module (a rename's and a
copy's statements, one a table): only for a rename, a copy or a delete.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..guards import now_ms
from ..move_statements import COPIES, RENAMES

if TYPE_CHECKING:
    from ..store import Store


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
        row = tx.first("LOCK_SESSION", {"sid": old})
        if row is not None and tx.first("LOCK_SESSION", {"sid": new}) is not None:
            return "taken"
        if row is not None:
            for statement in RENAMES:
                tx.execute(statement, {"old": old, "new": new})
            if names is not None:
                tx.execute(
                    "RENAME_SEEN_NOTEBOOK",
                    {"new": new, "old_notebook": names[0], "new_notebook": names[1]},
                )
        tx.execute("RENAME_CURRENT", {"old": old, "new": new})
        move = {"old_id": old, "new_id": new, "notebook": notebook, "at": now_ms()}
        tx.execute(
            "INSERT_SESSION_MOVE", move | {"old_born": None if row is None else row.created_at}
        )
    store.connections.forget_written()
    return "moved" if row is not None else "missing"


def copy(store: Store, source: str, target: str) -> str:
    """Copy session `source` under the id `target`, from then on independent: `copied`;
    `missing` (nothing to copy) or `taken` (a session `target` exists), changing nothing."""
    with store.write(target) as tx:
        if tx.first("LOCK_SESSION", {"sid": source}) is None:
            return "missing"
        if tx.first("LOCK_SESSION", {"sid": target}) is not None:
            return "taken"
        for statement in COPIES:
            tx.execute(statement, {"old": source, "new": target, "born": iso(now_ms())})
    return "copied"


def mark_deleted(store: Store, session_id: str) -> bool:
    """Mark the session deleted with its notebook, dropping nothing; False where there is no
    such session (or it was marked already)."""
    with store.write(session_id) as tx:
        return tx.execute("MARK_SESSION_DELETED", {"sid": session_id, "at": iso(now_ms())}) > 0


def deleted(store: Store) -> list[dict]:
    """The sessions marked deleted, in the order they were."""
    with store.read() as tx:
        return [row._asdict() for row in tx.all("LIST_DELETED_SESSIONS")]
