"""The plan's data shapes (pydantic v2): what is stored, what tools take, and what they return."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["pending", "in_progress", "completed"]
Mode = Literal["default", "plan"]
MessageSource = Literal["person", "automatic", "notice"]

STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed")


class _Model(BaseModel):
    # Strict: a model that sends "3" for a revision or "Done" for a status is told so,
    # rather than having it silently coerced.
    model_config = ConfigDict(extra="forbid", strict=True)


class Step(_Model):
    id: str = Field(description="Unique id, 1 to 64 bytes of printable ASCII.")
    description: str = Field(description="What the step does, at most 240 bytes.")
    status: Status = Field("pending", description="pending, in_progress or completed.")
    acceptance: str | None = Field(
        None, description="An observable condition that shows the step is done."
    )
    depends_on: list[str] = Field(
        default_factory=list, description="Ids of earlier steps this one needs."
    )
    evidence: str | None = Field(
        None,
        description="What showed the acceptance met; required to complete a step "
        "that has an acceptance.",
    )


class StepInput(Step):
    """A step as a tool takes it: depends_on may also be null (no dependencies)."""

    # Optional values are plain unions rather than before-validators: a Python validator per
    # step doubled the cost of validating a plan.
    depends_on: list[str] | None = Field(None, description="Ids of earlier steps this one needs.")


class Phase(_Model):
    title: str | None = Field(None, description="The phase's title; null for an untitled phase.")
    steps: list[Step] = Field(default_factory=list)


class PhaseInput(_Model):
    title: str | None = Field(None, description="The phase's title; null for an untitled phase.")
    steps: list[StepInput] = Field(default_factory=list)


class PlanBody(_Model):
    """The text a proposal hash binds: no statuses, no evidence."""

    explanation: str | None = None
    findings: list[str] = Field(default_factory=list)
    objectives: list[str] = Field(default_factory=list)
    phases: list[Phase] = Field(default_factory=list)


class Plan(_Model):
    revision: int
    turn_id: str | None = None
    call_id: str | None = None
    explanation: str | None = None
    findings: list[str] = Field(default_factory=list)
    objectives: list[str] = Field(default_factory=list)
    phases: list[Phase] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)


class Decision(_Model):
    """A lasting decision recorded with record_decision."""

    title: str
    rationale: str
    sources: list[str] = Field(default_factory=list)


class Proposal(_Model):
    hash: str
    revision: int
    body: PlanBody


class Snapshot(_Model):
    session_id: str
    cursor: int
    mode: Mode
    pending_proposal_hash: str | None
    approved_proposal_hash: str | None
    plan: Plan | None
    decisions: list[Decision]


class Event(_Model):
    seq: int
    kind: str
    data: dict[str, Any]
    at: str


class ToolResult(_Model):
    is_error: bool
    content: str


class Message(_Model):
    """An entry of the session's queue: a person's words, automatic work, or a notice."""

    message_id: int
    source: MessageSource
    text: str


# Tool inputs. Field descriptions become the tool schemas a model reads.


class _PlanInput(_Model):
    explanation: str | None = Field(None, description="Why the plan is shaped this way.")
    findings: list[str] | None = Field(
        None,
        description="What is actually there, what surprised you, what the plan works around.",
    )
    objectives: list[str] | None = Field(None, description="What the plan must achieve.")
    phases: list[PhaseInput] | None = Field(None, description="Titled groups of steps.")
    steps: list[StepInput] | None = Field(
        None, description="A flat list of steps (one untitled phase)."
    )


class UpdatePlanArgs(_PlanInput):
    expected_revision: int | None = Field(
        None, description="The session's current revision (0 for a new session)."
    )


class PlanSubmitArgs(_PlanInput):
    # A proposal says why, what was found and what it is for: these are required here.
    explanation: str = Field(description="Why the plan is shaped this way.")
    findings: list[str] = Field(
        description="What is actually there, what surprised you, what the plan works around."
    )
    objectives: list[str] = Field(description="What the plan must achieve.")
    expected_revision: int | None = Field(
        None, description="Optional: the session's current revision."
    )


class RecordDecisionArgs(_Model):
    title: str = Field(description="The decision in a few words, at most 120 bytes.")
    rationale: str = Field(description="Why, at most 500 bytes.")
    sources: list[str] | None = Field(None, description="Where the facts came from.")
