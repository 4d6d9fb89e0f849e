"""The agent's plans recorded off the relay, on a thread of their own, the latest winning, so that
a plan file another process holds locked, or a flood of plan updates, never holds up the relay."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from .plans import StoreThread
from .ports import PlanStore
from .wire import warn

FLUSH_SECONDS = 2.0  # how long the bridge's end waits for the latest plan to be recorded
# Plans waiting to be recorded; past this many, the oldest are left out (the latest wins).
MAX_BACKLOG = 16


class PlanRecorder:
    """The agent's plans as the session's revisions. Each update is mirrored at once, in
    order (its ids depend on the ones before) and recorded in order, waiting for nothing the
    relay does; when the store falls MAX_BACKLOG plans behind (a flood of updates, a plan file
    another process holds locked), the oldest waiting are left out and the latest wins."""

    def __init__(self, adapt: Callable[[list], tuple[list, list]], store: PlanStore) -> None:
        """`adapt(entries)` gives the steps of a plan update and the adaptations made."""
        self.adapt = adapt
        self.store = store
        self.thread = StoreThread()
        self._due: deque[tuple[Any, list, list]] = deque()
        self._task: asyncio.Task | None = None
        self.skipped = 0  # plans left out because newer ones came faster than the store took them

    def record(self, session_id: Any, entries: list) -> None:
        steps, adaptations = self.adapt(entries)
        self._due.append((session_id, steps, adaptations))
        while len(self._due) > MAX_BACKLOG:  # the store is behind: the oldest wait no longer
            self._due.popleft()
            self.skipped += 1
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self._due:
            session_id, steps, adaptations = self._due.popleft()
            try:
                await self.store.record_plan(session_id, steps, adaptations, self.thread)
            except Exception as exc:  # noqa: BLE001 - the client got the plan either way
                warn(f"could not record the agent's plan ({type(exc).__name__}: {exc})")

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until the plans sent so far are recorded (a proposal builds on them)."""
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except TimeoutError:
                warn("the agent's latest plan is not recorded yet (the plan file is busy)")

    async def close(self) -> None:
        await self.flush(FLUSH_SECONDS)
        self.thread.close(wait=False)
