"""The guard on an agent's own tools, and the names no integration may rebind.

Nothing here needs pydantic or the store: the coding-agent hook answers from it before every
tool call, in a process that starts for that one answer.
"""

from __future__ import annotations

# Names no integration may rebind, whether or not this version offers them.
RESERVED_NAMES = (
    "update_plan",
    "plan_submit",
    "record_decision",
    "finish_plan",
    "ask_user",
    "comment_reply",
)

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
