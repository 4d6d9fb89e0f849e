"""What the session lets through: which tools a mode offers, and which queued messages go now."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Message
from .tools import CATALOG, RESERVED_NAMES, offered


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


AGENT_TOOL_RISKS = ("read", "write", "execute")


def guard_refusal(tool: str, risk: str, mode: str, proposal_waiting: bool) -> str | None:
    """Why an agent may not run its own tool `tool` of `risk` now, or None when it may.

    Read tools always run: researching is what plan mode is for. Tools that write or execute
    wait for an approved plan, and the reason says what the model should do instead.
    """

    if not isinstance(tool, str) or not tool.strip():
        return f"an agent's tool needs a name; found {tool!r}"
    if not tool.isprintable():  # the reason stays one line whatever a model sends
        tool = repr(tool)
    if tool in RESERVED_NAMES:
        return (
            f"{tool} is a reserved plan tool name ({', '.join(RESERVED_NAMES)}); "
            "an agent's own tool must use another name"
        )
    if risk not in AGENT_TOOL_RISKS:
        return f"{tool} declares risk {risk!r}; an agent's tool declares read, write or execute"
    if risk == "read":
        return None
    kind = f"an {risk}" if risk == "execute" else f"a {risk}"
    if proposal_waiting:
        return (
            f"{tool} is {kind} tool and your proposal waits for the person's decision; "
            "nothing that changes the world runs before they approve it: end your turn and "
            "wait, or research with read tools and call plan_submit again if the proposal "
            "should change"
        )
    if mode == "plan":
        return (
            f"{tool} is {kind} tool and the session is in plan mode, where nothing that "
            "changes the world runs before the person approves a plan; research with read "
            "tools, then submit a proposal with plan_submit and wait for the decision"
        )
    return None
