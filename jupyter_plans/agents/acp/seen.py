"""The bridge's guard leaves its heartbeat in the plan it guards (DESIGN section 15): each time
it runs, at most once in 10 s, written on the store thread and not waited for, so a refusal
never waits on it. The agent is named as its initialize result names it (`agentInfo`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ...store.guards import HEARTBEAT_MS
from .ports import GuardStore
from .text import clean, cut, is_blank, well_formed
from .wire import warn

POINT = "acp-bridge"


class Heartbeat:
    def __init__(self, store: GuardStore) -> None:
        self.store = store
        self.agent: str | None = None  # agentInfo.name, once the agent said it
        self.version: str | None = None
        self._last = -HEARTBEAT_MS / 1000
        self._tasks: set[asyncio.Task] = set()

    def introduced(self, result: Any) -> None:
        """The agent's initialize result: who it says it is."""
        info = result.get("agentInfo") if isinstance(result, dict) else None
        info = info if isinstance(info, dict) else {}
        name, version = info.get("name"), info.get("version")
        self.agent = _said(name, 80)
        self.version = _said(version, 40)

    def beat(self) -> None:
        """The guard ran: its heartbeat, unless it left one less than 10 s ago."""
        now = time.monotonic()
        if now - self._last < HEARTBEAT_MS / 1000:
            return
        self._last = now
        task = asyncio.ensure_future(self._write(self.agent or "an ACP agent", self.version))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self, agent: str, version: str | None) -> None:
        try:
            await self.store.record_guard_seen(agent, version, POINT)
        except Exception as exc:  # noqa: BLE001 - the guard holds without its heartbeat
            warn(f"could not record the guard's heartbeat ({type(exc).__name__}: {exc})")


def _said(value: Any, limit: int) -> str | None:
    if not isinstance(value, str) or is_blank(clean(well_formed(value))):
        return None
    return cut(clean(well_formed(value)), limit)
