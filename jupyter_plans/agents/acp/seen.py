"""The bridge's guard leaves its heartbeat in the plan it guards (DESIGN section 15): each time
it runs, at most once in 10 s, written on the bridge's store thread and not waited for, so a
refusal never waits on it. The agent is named as its initialize result names it."""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any

from ...store.guards import HEARTBEAT_MS, record_seen
from .wire import warn

if TYPE_CHECKING:
    from .bridge import Bridge

POINT = "acp-bridge"
_LAST: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def guard_ran(bridge: Bridge) -> None:
    """The bridge's guard ran: its heartbeat, unless it left one less than 10 s ago."""
    now = time.monotonic()
    if now - _LAST.get(bridge, -HEARTBEAT_MS) < HEARTBEAT_MS / 1000:
        return
    _LAST[bridge] = now
    agent = bridge.agent_name or "an ACP agent"
    version = getattr(bridge, "agent_version", None)
    store = bridge.session.store

    def write() -> None:
        with store.write() as tx:
            record_seen(tx, agent, version if isinstance(version, str) else None, POINT)

    async def beat() -> None:
        try:
            await bridge.db(write)
        except Exception as exc:  # noqa: BLE001 - the guard holds without its heartbeat
            warn(f"could not record the guard's heartbeat ({type(exc).__name__}: {exc})")

    bridge.spawn(beat())
