"""An agent's own tools, guarded by the session's mode, and the dispatcher of tool calls.

`agent_tool(risk)` turns a plain function into a tool with a JSON schema made from its
signature; `Toolbox` offers the plan tools and the agent's tools in any provider's dialect
and runs that provider's tool calls, returning its tool-result message.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ConfigDict, ValidationError, create_model

from ..errors import GuardRefused
from ..plan import policy
from ..plan.catalog import (
    CATALOG,
    DIALECTS,
    RESERVED_NAMES,
    definitions,
    definitions_of_every_mode,
    every_step_completed,
    inline_refs,
    offered,
)
from ..plan.intake import check_ids, tool_name_refusal
from ..plan.models import ToolResult
from ..plan.validation import MAX_QUOTED_CHARS, Refused, check_object, quote
from ..session.bound import bound_session

Confirm = Callable[["AgentTool", dict], bool]


class AgentTool:
    """A function an agent may call, with the risk it declares: read, write or execute.

    Called directly, it runs the guard against its session (the one given to `agent_tool`,
    else the notebook's session once `%load_ext jupyter_plans` ran) and raises GuardRefused
    instead of running when plan mode forbids it.
    """

    def __init__(self, func: Callable, risk: str, name: str | None, description: str | None):
        name = name or func.__name__
        if name in RESERVED_NAMES:
            raise ValueError(
                f"tool name {name!r} is reserved for the plan tools "
                f"({', '.join(RESERVED_NAMES)}); choose another name"
            )
        if risk not in policy.AGENT_TOOL_RISKS:
            raise ValueError(f"risk is {risk!r}; it must be read, write or execute")
        self.func, self.risk, self.name = func, risk, name
        self.description = description or _summary(func) or f"{name} ({risk})"
        self.args_model = _arguments_model(func, name)
        self.parameters = inline_refs(self.args_model.model_json_schema())
        self.session: Any = None
        functools.update_wrapper(self, func)

    def __repr__(self) -> str:
        return f"<AgentTool {self.name} risk={self.risk}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = self.session or bound_session()
        if session is not None:
            reason = self.refusal(session)
            if reason:
                raise GuardRefused(reason)
        return self.func(*args, **kwargs)

    def refusal(self, session: Any) -> str | None:
        """Why the guard refuses this tool in the session's state now, or None."""
        snapshot = session.snapshot()
        waiting = snapshot.pending_proposal_hash is not None
        return policy.guard_refusal(self.name, self.risk, snapshot.mode, waiting)

    def run(self, checked: Any) -> str:
        """Run the function on validated arguments; its result as text for the model."""
        value = self.func(
            **{field: getattr(checked, field) for field in type(checked).model_fields}
        )
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False, default=repr)


def agent_tool(
    risk: str, *, name: str | None = None, description: str | None = None, session: Any = None
) -> Callable[[Callable], AgentTool]:
    """Make a plain function an agent's tool that declares `risk` (read, write or execute).

    @agent_tool("write")
    def save_table(path: str) -> str:
        "Write the cleaned table to PATH as CSV."
    """

    def wrap(func: Callable) -> AgentTool:
        tool = AgentTool(func, risk, name, description)
        tool.session = session
        return tool

    return wrap


class Toolbox:
    """The tools an agent is offered in a session, and the dispatcher of its tool calls.

    `planning=False` offers no plan tools (and refuses them); `ask_user=True` offers ask_user
    in plan mode. `confirm(tool, args)` is asked before each write or execute tool in default
    mode; without it those tools run once the guard lets them (the caller has the consent).
    """

    def __init__(
        self,
        session: Any,
        tools: Iterable[AgentTool] = (),
        *,
        planning: bool = True,
        ask_user: bool = False,
        confirm: Confirm | None = None,
    ) -> None:
        self.session, self.planning, self.ask_user, self.confirm = (
            session,
            planning,
            ask_user,
            confirm,
        )
        self.tools: dict[str, AgentTool] = {}
        for tool in tools:
            if not isinstance(tool, AgentTool):
                raise TypeError(f"{tool!r} is not an agent tool; decorate it with @agent_tool")
            if tool.name in self.tools:
                raise ValueError(f"two agent tools are named {tool.name!r}")
            self.tools[tool.name] = tool

    def definitions(
        self, dialect: str, mode: str | None = None, *, completed: bool | None = None
    ) -> list[dict]:
        """The tools offered now: in the session's mode and state, unless `mode` and
        `completed` (the plan has steps, all completed: finish_plan is offered) are given."""
        if mode is None or completed is None:
            snapshot = self.session.snapshot()
            mode = mode or snapshot.mode
            completed = every_step_completed(snapshot.plan) if completed is None else completed
        return definitions(
            dialect,
            mode,
            tools=self.tools.values(),
            planning=self.planning,
            ask_user=self.ask_user,
            completed=completed,
        )

    def every_definition(self, dialect: str) -> list[dict]:
        """The tools of every mode (see `definitions_of_every_mode`), then the agent's own."""
        found = definitions_of_every_mode(dialect, ask_user=self.ask_user) if self.planning else []
        return found + definitions(dialect, "default", tools=self.tools.values(), planning=False)

    def call(
        self,
        name: str,
        arguments: Any,
        *,
        call_id: str | None = None,
        turn_id: str | None = None,
    ) -> ToolResult:
        """Run one tool call; bad input of any kind is an is_error result, never an exception."""
        if isinstance(name, str) and name in CATALOG:
            refusal = self._plan_tool_refusal(name)
            if refusal:
                return _error(refusal)
            try:
                check_ids(turn_id, call_id)  # the session raises for these: they are not input
            except (TypeError, ValueError) as refusal:
                return _error(str(refusal))
            # The session parses JSON text itself, and records a refusal as a tool_finished.
            return self.session.call_tool(name, arguments, turn_id=turn_id, call_id=call_id)
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:  # recorded in the history, as any refused call is
            refusal = tool_name_refusal(name) or f"unknown tool {_name(name)}"
            return self.session.record_refusal(
                name, f"{refusal}; the tools offered are {self._names()}", call_id=call_id
            )
        if isinstance(arguments, str | bytes) and not arguments.strip():
            arguments = {}  # a tool without parameters may come with no arguments at all
        try:
            arguments = check_object(arguments)
        except Refused as refusal:
            return _error(f"{tool.name}: {refusal}")
        return self._run(tool, arguments)

    def dispatch(
        self,
        dialect: str,
        tool_call: Any,
        *,
        turn_id: str | None = None,
        call_id: str | None = None,
    ) -> dict:
        """Run a provider's tool call and return that provider's tool-result message."""
        name, arguments, provider_id = _unpack(dialect, tool_call)
        # JSON-RPC ids may be numbers; the plan records an id as text.
        recorded = str(provider_id) if type(provider_id) is int else provider_id
        result = self.call(name, arguments, call_id=call_id or recorded, turn_id=turn_id)
        return result_message(dialect, provider_id, result)

    def _plan_tool_refusal(self, name: str) -> str | None:
        if not self.planning:
            return (
                f"{name} is a plan tool and planning is not enabled for this agent; "
                f"the tools offered are {self._names()}"
            )
        if CATALOG[name].optional and not self.ask_user:
            return f"{name} is not offered to this agent; the tools offered are {self._names()}"
        return None

    def _run(self, tool: AgentTool, arguments: Any) -> ToolResult:
        if not isinstance(arguments, dict):
            return _error(
                f"the arguments of {tool.name} must be a JSON object; found {arguments!r}"
            )
        reason = tool.refusal(self.session)
        if reason:
            return _error(reason)
        try:
            checked = tool.args_model.model_validate(arguments)
        except ValidationError as exc:
            return _error(f"{tool.name}: {_first_error(exc)}")
        if tool.risk != "read" and self.confirm is not None:
            if not self.confirm(tool, checked.model_dump()):
                return _error(
                    f"the person declined to run {tool.name}; do not retry it unchanged: "
                    "say what you wanted to do and ask how they want to go on"
                )
        try:
            return ToolResult(is_error=False, content=tool.run(checked))
        except Exception as exc:  # the model hears of its tool's failure, in one line
            message = " ".join(str(exc).split()) or "no message"
            return _error(f"{tool.name} failed: {type(exc).__name__}: {message}")

    def _names(self) -> str:
        snapshot = self.session.snapshot()
        completed = every_step_completed(snapshot.plan)
        names = offered(snapshot.mode, ask_user=self.ask_user, completed=completed)
        names = names if self.planning else []
        return ", ".join([*names, *self.tools]) or "none"


def result_message(dialect: str, call_id: str | None, result: ToolResult) -> dict:
    """A tool result in a provider's dialect."""
    if dialect == "openai_chat":
        return {"role": "tool", "tool_call_id": call_id, "content": result.model_dump_json()}
    if dialect == "openai_responses":
        return {
            "type": "function_call_output",
            "call_id": call_id,
            "output": result.model_dump_json(),
        }
    if dialect == "anthropic":
        return {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": result.content,
            "is_error": result.is_error,
        }
    if dialect == "mcp":
        return {"content": [{"type": "text", "text": result.content}], "isError": result.is_error}
    raise ValueError(f"dialect is {dialect!r}; it must be one of {', '.join(DIALECTS)}")


def _unpack(dialect: str, call: Any) -> tuple[Any, Any, str | None]:
    """(name, arguments, the provider's call id) of a provider's tool call."""
    if hasattr(call, "model_dump"):  # an SDK object
        call = call.model_dump()
    if not isinstance(call, dict):
        raise TypeError(f"a tool call is a mapping; found {type(call).__name__}")
    if dialect == "openai_chat":
        function = call.get("function") or {}
        return function.get("name"), function.get("arguments"), call.get("id")
    if dialect == "openai_responses":
        return call.get("name"), call.get("arguments"), call.get("call_id")
    if dialect == "anthropic":
        return call.get("name"), call.get("input"), call.get("id")
    if dialect == "mcp":
        return call.get("name"), call.get("arguments"), call.get("id")
    raise ValueError(f"dialect is {dialect!r}; it must be one of {', '.join(DIALECTS)}")


def _arguments_model(func: Callable, name: str):
    fields: dict[str, Any] = {}
    # eval_str: a module with `from __future__ import annotations` gives its hints as text.
    for param in inspect.signature(func, eval_str=True).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{name}: an agent tool takes named parameters, not *args/**kwargs")
        annotation = Any if param.annotation is param.empty else param.annotation
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    return create_model(f"{name}_arguments", __config__=config, **fields)


def _summary(func: Callable) -> str:
    doc = inspect.getdoc(func) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    found = repr(error.get("input"))
    if len(found) > 80:
        found = found[:77] + "..."
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {error['msg']}; found {found}{more}"


def _name(name: Any) -> str:
    if isinstance(name, str) and name.isprintable() and len(name) <= MAX_QUOTED_CHARS:
        return name
    return quote(name)


def _error(content: str) -> ToolResult:
    return ToolResult(is_error=True, content=content)
