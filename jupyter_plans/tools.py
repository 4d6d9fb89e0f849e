"""The tool catalog of a plan session: names, argument models, and which mode offers each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from .models import PlanSubmitArgs, RecordDecisionArgs, UpdatePlanArgs
from .validation import check_decision, check_plan, check_raw, parse

# Names no integration may rebind, whether or not this version offers them.
RESERVED_NAMES = ("update_plan", "plan_submit", "record_decision", "finish_plan", "ask_user")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: TypeAdapter
    modes: tuple[str, ...]
    description: str
    check: Callable[[dict], Any]  # the bounds that need no stored state; returns what is used

    def parse(self, raw: Any) -> Any:
        """The checked arguments, or Refused with a one-line reason."""
        return self.check(parse(self.args, check_raw(raw)))


CATALOG: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "update_plan",
            TypeAdapter(UpdatePlanArgs),
            ("default", "plan"),
            "Replace the whole session plan with this one. Send expected_revision (the "
            "revision you last read; 0 for a new session) and exactly one of steps or phases. "
            "Mark a step in_progress when you start it and completed when done; a step with "
            "an acceptance needs evidence to be completed.",
            lambda args: check_plan(args, proposal=False),
        ),
        ToolSpec(
            "plan_submit",
            TypeAdapter(PlanSubmitArgs),
            ("plan",),
            "Submit your researched plan as a proposal for the person to approve. All steps "
            "are pending. After submitting, end your turn and wait for the decision.",
            lambda args: check_plan(args, proposal=True),
        ),
        ToolSpec(
            "record_decision",
            TypeAdapter(RecordDecisionArgs),
            ("default", "plan"),
            "Record a lasting decision (not progress): a short title, the rationale and "
            "optional sources.",
            check_decision,
        ),
    )
}


def offered(mode: str) -> list[str]:
    """The tools an agent is offered in a mode, in catalog order."""
    return [name for name, spec in CATALOG.items() if mode in spec.modes]


def json_schemas() -> dict[str, dict]:
    """The JSON schema of every tool's arguments, generated from the models."""
    return {name: spec.args.json_schema() for name, spec in CATALOG.items()}
