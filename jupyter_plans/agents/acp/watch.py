"""The person's decisions, from any surface, as the bridge follows them: the session's new events
are read when it may have changed (at once when the file system, PostgreSQL or this process's
store tells of a commit, else every NOTIFIED_POLL_SECONDS, every POLL_SECONDS where nothing
tells: a network file system), and handed to the proposals and the modes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ...store.wake import Wake
from .ports import Commits, ModeDecisions, ProposalDecisions, SessionEvents
from .wire import warn

POLL_SECONDS = 0.05  # how often the session is read for the person's decisions, untold
NOTIFIED_POLL_SECONDS = 1.0  # and where the file system tells of changes


class DecisionWatch:
    def __init__(
        self,
        store: Commits,
        session: SessionEvents,
        proposals: ProposalDecisions,
        modes: ModeDecisions,
        cancelled: Callable[[], None],
    ) -> None:
        """`store` tells of commits; `session` is read for its events; `cancelled()`: the
        person's `off` cancels the running turns."""
        self.store = store
        self.session = session
        self.proposals = proposals
        self.modes = modes
        self.cancelled = cancelled
        self.seen = 0  # the session's events read so far

    async def run(self, after: int) -> None:
        """Follow the session's events after the cursor `after` (where the bridge started)."""
        self.seen = after
        wake = Wake(self.store, untold=POLL_SECONDS, told=NOTIFIED_POLL_SECONDS, own=True)
        try:
            await self._follow(wake)
        finally:
            wake.close()

    async def _follow(self, wake: Wake) -> None:
        while True:
            await wake.wait()
            try:
                if await self.session.cursor() <= self.seen:
                    continue
                events = await self.session.events(self.seen)
            except Exception as exc:  # noqa: BLE001 - a busy or moved file is read again next time
                warn(f"could not read the session ({type(exc).__name__}: {exc})")
                await asyncio.sleep(1)
                continue
            if events:
                self.seen = events[-1].seq
                await self.on_events(events)

    async def on_events(self, events: list) -> None:
        self.proposals.take_notices(events)  # before any answer lets the agent go on
        last_mode, approved, before = None, False, None
        for event in events:
            if event.kind == "decision":
                data = event.data
                await self.proposals.person_decided(event.seq, data.get("action"), data.get("hash"))
            elif event.kind == "proposal_submitted":
                edited = (
                    before is not None
                    and before.kind == "plan_updated"
                    and before.data.get("author") == "user"
                )
                await self.proposals.proposal_submitted(event.data.get("hash"), event.seq, edited)
            elif event.kind == "mode_changed":
                last_mode = event.data.get("mode")
                approved = _is_approval(before)
            before = event
        if last_mode is not None:
            if last_mode != "plan" and not approved:  # the person's off cancels the turn
                self.cancelled()
            await self.modes.session_mode_changed(last_mode, approved)


def _is_approval(event: Any) -> bool:
    return event is not None and event.kind == "decision" and event.data.get("action") == "approved"
