"""The steps' checks as a snapshot reads them (DESIGN section 17): folded from the session's
events on from where this process last folded them (the store's check_cache), so a read folds
only what came since."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plan.checks import CheckFold, has_checks
from ..plan.stored import USER_EDIT
from .events import loads

if TYPE_CHECKING:
    from ..store.transaction import Tx


def checks_fold(
    tx: Tx,
    cache: dict | None,
    session_id: str,
    cursor: int,
    plan: Any,
    born: str | None = None,
) -> CheckFold | None:
    """The session's checks at `cursor` (a CheckFold), or None when the plan has no check. The
    events are folded on from the fold `cache` (the store's check_cache) holds for the session
    born at `born` (its row's created_at: a session made later under a renamed one's id is
    another), when it is not past `cursor`, and the newer fold is kept there."""
    if not has_checks(plan):
        return None
    if cache is None or born is None:
        cache, known = None, None
    else:
        kept = cache.get(session_id)
        known = kept[1] if kept is not None and kept[0] == born else None
    fold = known.copy() if known is not None and known.cursor <= cursor else CheckFold()
    if fold.cursor < cursor:
        key = {"sid": session_id, "after": fold.cursor, "upto": cursor}
        for row in tx.all("SELECT_CHECK_EVENTS", key):
            if row.kind == "plan_updated":
                fold.plan(row.seq, *_what_checks_read(row.data))
            else:
                fold.apply(row.seq, row.kind, loads(row.data))
        fold.cursor = cursor
        if cache is not None and (known is None or known.cursor < cursor):
            cache[session_id] = (born, fold)
    return fold


def checks_view(tx: Tx, store: Any, row: Any, plan: Any) -> dict:
    """The snapshot's `checks`, given the session's row."""
    fold = checks_fold(tx, store.check_cache, row.session_id, row.cursor, plan, born=row.created_at)
    return {} if fold is None else fold.view()


def _what_checks_read(text: str) -> tuple[list[tuple[str, bool, str | None]], bool]:
    """Of a plan_updated event's stored text, what the checks read: (step id, completed, check)
    of each step (the stored form leaves a pending status and a null check out), and whether
    the person made it. A first read folds every plan of a long history: reading only these is
    several times faster than reading each plan whole."""
    data = loads(text)
    read = [
        (step["id"], step.get("status") == "completed", step.get("check"))
        for phase in data["plan"]["phases"]
        for step in phase["steps"]
    ]
    return read, data["name"] == USER_EDIT
