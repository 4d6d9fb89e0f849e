"""What a notebook's person has seen of a session, so a restarted kernel can say what happened
since: the cursor of the newest card the notebook showed, kept per notebook and session.

It is written when a card is shown and at the end of a cell whose live card moved, never by a
tool call; it only grows.
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import PlanStoreError
from ..plan.text import counted, describe_event

_log = logging.getLogger("jupyter_plans")

SHOWN_EVENTS = 10  # the most events told on load; %plan history N tells more


def last_seen(session: Any, notebook: str) -> int | None:
    """The cursor of the newest card `notebook` showed of `session`; None if it showed none."""
    with session.store.read() as tx:
        return tx.scalar("SEEN_SELECT", {"notebook": notebook, "sid": session.session_id})


def remember_seen(session: Any, notebook: str, cursor: int) -> None:
    """Record that `notebook` showed `session` at `cursor` (a lower cursor changes nothing)."""
    params = {"notebook": notebook, "sid": session.session_id, "b_cursor": cursor}
    try:
        with session.store.write(session.session_id) as tx:
            if tx.execute("SEEN_RAISE", params) == 0 and tx.scalar("SEEN_SELECT", params) is None:
                tx.execute("SEEN_INSERT", params)
    except PlanStoreError:
        # Another kernel of the same notebook recorded it first; it is only a reminder.
        _log.debug("could not record the cursor the notebook showed", exc_info=True)


def since_last_seen(session: Any, notebook: str) -> str | None:
    """What happened in `session` since `notebook` last showed it, in words; None when the
    notebook never showed it or nothing happened since."""
    seen = last_seen(session, notebook)
    if seen is None:
        return None
    cursor = session.cursor()
    if cursor <= seen:
        return None
    count = cursor - seen
    events = session.event_data(after=max(seen, cursor - SHOWN_EVENTS))
    head = f"Since you last looked (event {seen}): {counted(count, 'event')}"
    if count > len(events):
        head += f", the last {len(events)} below; %plan history {count} lists them all"
    return "\n".join([head + ".", *(describe_event(event) for event in events)])
