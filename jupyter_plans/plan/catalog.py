"""The tool catalog of a plan session: names, argument models, and which mode offers each.

The same catalog is exported in every provider's dialect (`definitions`); an agent's own tools
join it through `agent_tool`, and `Toolbox` runs any provider's tool calls (agents/toolbox.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .comments import check_reply
from .guard import RESERVED_NAMES  # names no integration may rebind
from .one_pass import plain_plan
from .rules import check_plan
from .validation import check_decision, check_object, check_question, check_raw, check_review, parse

if TYPE_CHECKING:
    from pydantic import TypeAdapter

DIALECTS = ("openai_chat", "openai_responses", "anthropic", "mcp")


@cache
def _adapter(model: str) -> TypeAdapter:
    """The pydantic adapter of an argument model of models.py, made on first use (so that
    loading the catalog loads no pydantic)."""
    from pydantic import TypeAdapter

    from . import models

    return TypeAdapter(getattr(models, model))


@dataclass(frozen=True)
class ToolSpec:
    name: str
    model: str  # the name of the argument model in models.py
    modes: tuple[str, ...]
    description: str
    check: Callable[[dict], Any]  # the bounds that need no stored state; returns what is used
    optional: bool = False  # offered only to agents that ask for it (ask_user)
    when_completed: bool = False  # offered only once the plan has steps, all completed
    # One strict pass that returns the checked arguments of plainly valid input, or None to
    # send the input through the model and `check`, which find what is wrong and say so.
    plain: Callable[[dict], Any] | None = None

    def parse(self, raw: Any) -> Any:
        """The checked arguments, or Refused with a one-line reason."""
        raw = check_object(raw)
        if self.plain is not None and (checked := self.plain(raw)) is not None:
            return checked  # it applied check_raw's rules too
        check_raw(raw)
        return self.check(parse(self.args, raw))

    @property
    def args(self) -> TypeAdapter:
        return _adapter(self.model)

    @property
    def parameters(self) -> dict:
        return _schema(self.name)


CATALOG: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "update_plan",
            "UpdatePlanArgs",
            ("default", "plan"),
            "Replace the whole session plan with this one. Send expected_revision (the "
            "revision you last read; 0 for a new session) and exactly one of steps or phases. "
            "Mark a step in_progress when you start it and completed when done; a step with "
            "an acceptance needs evidence to be completed.",
            lambda args: check_plan(args, proposal=False),
            plain=lambda args: plain_plan(args, proposal=False),
        ),
        ToolSpec(
            "plan_submit",
            "PlanSubmitArgs",
            ("plan",),
            "Submit your researched plan as a proposal for the person to approve. All steps "
            "are pending. After submitting, end your turn and wait for the decision.",
            lambda args: check_plan(args, proposal=True),
            plain=lambda args: plain_plan(args, proposal=True),
        ),
        ToolSpec(
            "record_decision",
            "RecordDecisionArgs",
            ("default", "plan"),
            "Record a lasting decision (not progress): a short title, the rationale and "
            "optional sources.",
            check_decision,
        ),
        ToolSpec(
            "comment_reply",
            "CommentReplyArgs",
            ("default", "plan"),
            "Reply to one of the person's comments on the plan (their words, in the context's "
            "comments) once you have addressed it: say in one line what you did. This marks it "
            "addressed; only the person resolves it. Refused for a resolved or unknown comment.",
            check_reply,
        ),
        ToolSpec(
            "finish_plan",
            "FinishPlanArgs",
            ("default", "plan"),
            "Every step is completed: finish the plan with a review of every objective of the "
            "plan (its outcome and the evidence for it). Completing steps does not finish a "
            "plan; this review does, and any later change to the plan reopens it.",
            check_review,
            when_completed=True,
        ),
        ToolSpec(
            "ask_user",
            "AskUserArgs",
            ("plan",),
            "Ask the person one question you cannot answer by research, then end your turn; "
            "the answer arrives as their next message.",
            check_question,
            optional=True,
        ),
    )
}


def offered(mode: str, *, ask_user: bool = False, completed: bool = False) -> list[str]:
    """The plan tools an agent is offered in a mode, in catalog order; `completed` says the
    plan has steps and every one is completed (finish_plan is offered only then)."""
    return [
        name
        for name, spec in CATALOG.items()
        if mode in spec.modes
        and (ask_user or not spec.optional)
        and (completed or not spec.when_completed)
    ]


def every_step_completed(plan: Any) -> bool:
    """Whether a plan (a Plan, its JSON, or None) has steps and all of them are completed."""
    if plan is None:
        return False
    steps = plan["steps"] if isinstance(plan, dict) else plan.steps
    status = (lambda s: s["status"]) if isinstance(plan, dict) else (lambda s: s.status)
    return bool(steps) and all(status(step) == "completed" for step in steps)


def json_schemas() -> dict[str, dict]:
    """The JSON schema of every tool's arguments, generated from the models."""
    return {name: spec.parameters for name, spec in CATALOG.items()}


@cache
def _schema(name: str) -> dict:
    return inline_refs(CATALOG[name].args.json_schema())


def inline_refs(schema: dict) -> dict:
    """The schema with every local `$ref` replaced by its definition: some OpenAI-compatible
    servers do not resolve references. The models are not recursive, so this ends."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(copy.deepcopy(defs[ref.removeprefix("#/$defs/")]))
            return {key: walk(value) for key, value in node.items() if key != "$defs"}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(schema)


def definition(dialect: str, name: str, description: str, parameters: dict) -> dict:
    """One tool in a provider's dialect."""
    if dialect == "openai_chat":
        return {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters},
        }
    if dialect == "openai_responses":
        return {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": False,
        }
    if dialect == "anthropic":
        return {"name": name, "description": description, "input_schema": parameters}
    if dialect == "mcp":
        return {"name": name, "description": description, "inputSchema": parameters}
    raise ValueError(f"dialect is {dialect!r}; it must be one of {', '.join(DIALECTS)}")


def definitions(
    dialect: str,
    mode: str,
    *,
    tools: Iterable[Any] = (),
    planning: bool = True,
    ask_user: bool = False,
    completed: bool = False,
) -> list[dict]:
    """The tools offered in `mode` in a provider's dialect: the plan tools (when planning is
    enabled for the agent), then the agent's own tools. `completed`: see `offered`."""
    names = offered(mode, ask_user=ask_user, completed=completed) if planning else []
    found = [definition(dialect, n, CATALOG[n].description, CATALOG[n].parameters) for n in names]
    found += [definition(dialect, t.name, t.description, t.parameters) for t in tools]
    return found


def definitions_of_every_mode(dialect: str, *, ask_user: bool = False) -> list[dict]:
    """The plan tools of every mode and state, each saying when it is taken, in a provider's
    dialect: for a client that lists its tools once and never again (a call that the mode
    does not take then is refused in one line, as for any client)."""
    found = []
    for name, spec in CATALOG.items():
        if spec.optional and not ask_user:
            continue
        description = spec.description
        if spec.modes == ("plan",):
            description += " Taken only in plan mode, which the person starts; refused before."
        if spec.when_completed:
            description += " Taken only once every step is completed."
        found.append(definition(dialect, name, description, spec.parameters))
    return found


__all__ = [
    "CATALOG",
    "DIALECTS",
    "RESERVED_NAMES",
    "ToolSpec",
    "definition",
    "definitions",
    "definitions_of_every_mode",
    "every_step_completed",
    "json_schemas",
    "offered",
]
