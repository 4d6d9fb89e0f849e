"""What wakes a coroutine that follows a store: another process's commit, told by the file
system (a plan file) or by PostgreSQL's notices, and, where asked, this process's own writes;
a slower poll covers where nothing tells (a network file system)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import Store


class Wake:
    """`await wake.wait()` returns once the store may have changed, or after the poll's
    interval: `told` seconds where notices come, `untold` where none do. `close()` stops it."""

    def __init__(self, store: Store, *, untold: float, told: float, own: bool = False) -> None:
        loop, self._event = asyncio.get_running_loop(), asyncio.Event()

        def tell(*_: Any) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._event.set)

        self._stops = [stop for stop in (store.on_change(tell),) if stop is not None]
        self.interval = told if self._stops else untold
        if own:
            self._stops.append(store.subscribe(tell))

    async def wait(self) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._event.wait(), self.interval)
        self._event.clear()

    def close(self) -> None:
        stops, self._stops = self._stops, []
        for stop in stops:
            stop()
