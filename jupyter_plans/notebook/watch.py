"""Keeps every card current: commits in this process at once, other processes' as the file
system (store/changes.py) or PostgreSQL's notices (store/pg_notices.py) tell of them, and
within a poll where nothing does (a network file system).

Looking costs one `PRAGMA data_version` (or the backend's equivalent) on the kernel's event
loop; a card reads the store only when its session's cursor moved. On PostgreSQL a session is
not even read when no notice named it: another notebook's commits cost this kernel nothing.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from typing import TYPE_CHECKING

from ..errors import PlanStoreError

if TYPE_CHECKING:
    from ..store import Store as PlanStore
    from .widget import PlanCard

_log = logging.getLogger("jupyter_plans")

# How often a card looks for itself when the file system tells of changes (store/changes.py):
# measured, a poll every 0.2 s cost an idle kernel 0.2% of a core.
NOTIFIED_POLL_SECONDS = 1.0


class CardWatcher:
    def __init__(self, store: PlanStore, interval: float) -> None:
        self.store = store
        self.interval = interval
        self._cards: weakref.WeakSet[PlanCard] = weakref.WeakSet()
        self._token: int | None = None
        self._told: dict[str, object] = {}  # each session's token when its cursor was read
        self._generation = store.generation
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.get_ident()
        self._unsubscribe = store.subscribe(self._on_commit)
        self._unwatch = None
        self._watched = None  # the plan file's path that the file system tells of

    def add(self, card: PlanCard) -> None:
        self._cards.add(card)
        card.on_shown.append(self._shown)
        self._start()

    def _shown(self, newest: PlanCard) -> None:
        """One live card per session: the one shown last. The earlier ones keep what they
        showed, so the notebook reads as the story of the plan. A superseded card shown again
        is the live one again."""
        if newest.superseded_by is not None:
            newest.superseded_by = None
            newest.refresh()
        for card in list(self._cards):
            if (
                card is not newest
                and card.superseded_by is None
                and card.session.session_id == newest.session.session_id
            ):
                card.supersede(newest.model_id)

    def cell_ended(self) -> None:
        """The cell ended: each card it displayed keeps what it shows now, for when a newer
        card takes over from it."""
        for card in list(self._cards):
            card.cell_ended()

    def _start(self) -> None:
        if self._task is not None:
            return
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # a terminal IPython: no event loop, and no widget to keep current
        self._token = self.store.change_token()
        self._task = self._loop.create_task(self._poll())
        self._watch()

    def _watch(self) -> None:
        """Be told of changes to the plan file where it is now (it moves with its notebook)."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        self._watched = self.store.path
        loop = self._loop
        self._unwatch = self.store.on_change(
            lambda: loop.is_closed() or loop.call_soon_threadsafe(self._look)
        )

    async def _poll(self) -> None:
        while True:
            # Where the file system tells of changes, the poll only backs it up.
            told = self._unwatch is not None
            interval = max(self.interval, NOTIFIED_POLL_SECONDS) if told else self.interval
            await asyncio.sleep(interval)
            self._look()

    def _look(self) -> None:
        try:
            self.check()
        except PlanStoreError as exc:
            # The plan file was replaced by one that is refused: the cards keep what they
            # show, and the watching goes on (the next change at the path is looked at).
            _log.warning("%s", exc)

    def check(self) -> None:
        """Refresh the cards if any process committed since the last check."""
        token = self.store.change_token()
        if token != self._token:
            self._token = token
            self.refresh(told=True)
        if self.store.path != self._watched and self._task is not None:
            self._watch()

    def refresh(self, session_id: str | None = None, told: bool = False) -> None:
        """Refresh the cards of `session_id` (None: all) whose session moved; `told`: after a
        change the store was told of, which may say which sessions it concerns."""
        if self.store.generation != self._generation:
            session_id = None  # another plan file is at the path: every card, below
        cursors: dict[str, int] = {}  # one read per session, however many cards show it
        unchanged: set[str] = set()
        shown = []
        for card in list(self._cards):
            if card.comm is None:  # closed
                self._cards.discard(card)
                continue
            if card.superseded_by is not None:  # it keeps what it showed
                continue
            sid = card.session.session_id
            if (session_id is not None and sid != session_id) or sid in unchanged:
                continue
            if sid not in cursors:
                if told and self._unchanged(sid):
                    unchanged.add(sid)
                    continue
                cursors[sid] = card.session.cursor()
            shown.append(card)
        if self.store.generation != self._generation:
            # The plan file was deleted or replaced: the history at the path is another one,
            # so a cursor equal to a card's does not mean the same plan.
            self._generation = self.store.generation
            shown = [c for c in list(self._cards) if c.comm is not None and c.superseded_by is None]
            cursors.clear()  # so that every card below is refreshed
        for card in shown:
            if cursors.get(card.session.session_id) != card.snapshot.get("cursor"):
                card.refresh()
            elif card.guards is not None or card.snapshot.get("mode") == "plan":
                card.refresh_guards()  # a guard's heartbeat moves no cursor

    def _unchanged(self, session_id: str) -> bool:
        """Whether the store was told of no change to `session_id` since its cursor was last
        read. The token is read before the cursor is: a commit in between is read next time."""
        token = self.store.session_token(session_id)
        seen, self._told[session_id] = self._told.get(session_id), token
        return token is not None and token == seen

    def newest_cursor(self, session_id: str) -> int | None:
        """The newest cursor a live card of `session_id` shows; None when none is live."""
        cursors = [
            card.snapshot.get("cursor", 0)
            for card in list(self._cards)
            if card.comm is not None
            and card.superseded_by is None
            and card.session.session_id == session_id
        ]
        return max(cursors, default=None)

    def _on_commit(self, session_id: str, _cursor: int) -> None:
        # A commit made by this kernel (an agent in a cell, a button) shows at once; one from
        # another thread is handed to the event loop, which owns the widgets' messages.
        if threading.get_ident() == self._thread:
            self.refresh(session_id)
        elif self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.refresh, session_id)

    def stop(self, why: str | None = None) -> None:
        """Stop keeping the cards current; with `why`, each card says it and acts no more."""
        if why is not None:
            for card in list(self._cards):
                if card.comm is not None:
                    card.end(why)
        self._unsubscribe()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._cards.clear()
