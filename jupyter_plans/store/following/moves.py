"""The move a session object meets when the id it knew is gone (DESIGN section 16): renamed with
its notebook in a shared database (session_moves.py makes the moves).

A rename leaves a row in `plans_session_moves` (old id, the old row's `created_at`, new id). A
session object remembers the `created_at` of the row it knew (its birth) and when it was made;
when it next finds its id missing, or held by a row born at another time, it takes the new id
of the move made of its own row (or, never having seen a row, of a move made since it was made),
so a kernel writing while its notebook is renamed writes on under the new id, and a notebook
made later under the old name starts a plan of its own.

Read on a session's first write: no SQLAlchemy here (the statement is compiled ahead).
"""

from __future__ import annotations

TYPE_CHECKING = False  # nor typing: the hook's guard reads last_move
if TYPE_CHECKING:
    from typing import Any

MAX_HOPS = 20  # moves followed in a row (a -> b -> c ...), at most
MOVES_VERSION = 10  # the schema version that has plans_session_moves
_LAST_MOVE = "SELECT new_id FROM plans_session_moves WHERE old_id = {0} ORDER BY seq DESC LIMIT 1"


def find_move(tx: Any, session_id: str, born: str | None, since_ms: int) -> tuple[str, Any]:
    """(the id `session_id` took, the notebook it went with), or (session_id, None) where it did
    not move: the move of the row born `born`, or with no birth known, the first move since
    `since_ms`; followed through later moves of the same session."""
    sid, notebook, after = session_id, None, 0
    for _hop in range(MAX_HOPS):
        rows = tx.all("FIND_MOVE", {"sid": sid, "after": after, "since": since_ms})
        found = [r for r in rows if born is None or r.old_born == born]
        if not found:
            break
        sid, notebook, after = found[0].new_id, found[0].notebook or notebook, found[0].seq
    return sid, notebook


def last_move(cursor: Any, placeholder: str, session_id: str) -> str | None:
    """The id a session that is not there took last, or None: for the hooks' guard, which
    names a session by its id (an ACP bridge's hook names the id the session had when the
    agent started), so a rename never lifts plan mode."""
    row = cursor.execute(_LAST_MOVE.format(placeholder), (session_id,)).fetchone()
    return None if row is None else row[0]
