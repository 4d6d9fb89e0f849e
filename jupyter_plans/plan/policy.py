"""What the session lets through: which tools a mode offers, and which queued messages go now."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .catalog import CATALOG, offered

# The guard needs no models: it lives apart, so the coding-agent hook can load it alone.
from .guard import AGENT_TOOL_RISKS, guard_refusal

if TYPE_CHECKING:
    from .models import Message

__all__ = ["AGENT_TOOL_RISKS", "deliverable", "guard_refusal", "refusal_for_tool"]


def deliverable(waiting: Iterable[Message], proposal_waiting: bool) -> list[Message]:
    """The queued messages to hand to the agent now, oldest first.

    While a proposal waits for the person, only what a person wrote goes through; automatic
    work and notices keep their place in the queue until the person has answered.
    """
    if not proposal_waiting:
        return list(waiting)
    return [m for m in waiting if m.source == "person"]


def refusal_for_tool(name: str, mode: str) -> str | None:
    """Why `name` cannot be called in `mode`, or None when it is offered."""
    spec = CATALOG.get(name)
    if spec is not None and mode in spec.modes:
        return None
    names = ", ".join(offered(mode))
    if spec is None:
        return f"unknown tool {name!r}; the tools offered in {mode} mode are {names}"
    if spec.modes == ("plan",):
        return (
            f"{name} is offered only in plan mode and the session is in {mode} mode; "
            "use update_plan, or ask the person to start plan mode"
        )
    return f"{name} is not offered in {mode} mode; the tools offered are {names}"
