"""Which agent ran the hook, and the heartbeat it leaves in the plan (DESIGN section 15).

The agent is told by what the host itself gives its hooks (agents/hosts/: each host's SIGNS).
"""

from __future__ import annotations

from ..agents.hosts.registry import agent_of

TYPE_CHECKING = False  # typing is not loaded at run time: see tool_use.py
if TYPE_CHECKING:
    from typing import Any


def beat(store: Any, event: str, payload: dict | None) -> None:
    """Leave the heartbeat in the plan the hook read; whatever goes wrong is not the host's
    business (the card then says the guard was not heard from)."""
    agent, version = agent_of(payload)
    try:
        store.record_seen(agent, version, event)
    except Exception:  # noqa: BLE001, S110 - the answer stands without its heartbeat
        pass
