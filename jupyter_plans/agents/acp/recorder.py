"""Store work off the bridge's event loop: one thread for the session's reads and decisions, in
order, and the agent's plans recorded on a thread of their own, the latest winning, so that a
plan file another process holds locked, or a flood of plan updates, never holds up the relay."""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from .record import MIRROR_NAME
from .wire import warn

if TYPE_CHECKING:
    from .bridge import Bridge

FLUSH_SECONDS = 2.0
# Plans waiting to be recorded; past this many, the oldest are left out (the latest wins).
MAX_BACKLOG = 16  # how long the bridge's end waits for the latest plan to be recorded


class StoreThread:
    """Runs the session's calls, one at a time and in order, off the event loop."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jupyter-plans-acp")

    async def __call__(self, function, *args):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(function, *args))

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)


class PlanRecorder:
    """The agent's plans as the session's revisions. Each update is mirrored at once, in
    order (its ids depend on the ones before) and recorded in order, waiting for nothing the
    relay does; when the store falls MAX_BACKLOG plans behind (a flood of updates, a plan file
    another process holds locked), the oldest waiting are left out and the latest wins."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.thread = StoreThread()
        self._due: deque[tuple[Any, list, list]] = deque()
        self._task: asyncio.Task | None = None
        self.skipped = 0  # plans left out because newer ones came faster than the store took them

    def record(self, session_id: Any, entries: list) -> None:
        steps, adaptations = self.bridge.mirror.adapt(entries)
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
                record = self.bridge.session.record_agent_plan
                await self.bridge.write(
                    session_id, record, MIRROR_NAME, steps, adaptations, thread=self.thread
                )
            except Exception as exc:  # noqa: BLE001 - the client got the plan either way
                warn(f"could not record the agent's plan ({type(exc).__name__}: {exc})")

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until the plans sent so far are recorded (a proposal builds on them)."""
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except asyncio.TimeoutError:
                warn("the agent's latest plan is not recorded yet (the plan file is busy)")

    async def close(self) -> None:
        await self.flush(FLUSH_SECONDS)
        self.thread.close(wait=False)
