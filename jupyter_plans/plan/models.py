"""The plan's data shapes (pydantic v2): what is stored, what tools take, and what they return."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict

Status = Literal["pending", "in_progress", "completed"]
Mode = Literal["default", "plan"]
MessageSource = Literal["person", "automatic", "notice"]


CHECK_DESCRIPTION = (
    "Optional: one Python expression over the notebook's variables that is true once the step "
    "is done, such as df['price'].notna().all(); at most 240 bytes on one line. The person "
    "approves it with the plan, and the notebook runs it when the step is completed: a step "
    "whose check failed is not done, and the plan cannot be finished until it passes."
)


class _Model(BaseModel):
    # Strict: a model that sends "3" for a revision or "Done" for a status is told so,
    # rather than having it silently coerced.
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


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
    check: str | None = Field(None, description=CHECK_DESCRIPTION)


class Phase(_Model):
    title: str | None = Field(None, description="The phase's title; null for an untitled phase.")
    steps: list[Step] = Field(default_factory=list)


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
    # Who recorded it, as a person's act carries it (DESIGN section 12); an agent's is null.
    by: dict | None = None


class CellRun(_Model):
    """The latest run of a notebook cell that did a step."""

    cell_id: str
    execution_count: int | None
    ok: bool
    changed: bool  # ran again with other code after its step was completed


CheckStatus = Literal["passed", "failed", "not_run", "unapproved"]


class CheckState(_Model):
    """A step's check (DESIGN section 17): its status, and its latest run since the step was
    last completed (all null until it runs)."""

    status: CheckStatus  # unapproved: not in the plan the person approved; never run by itself
    value: str | None  # the value's repr, cut to 200 characters
    error: str | None  # the exception's type and first line, cut to 200 characters
    execution_count: int | None  # of the cell it ran in
    seq: int | None  # its step_checked event


CommentStatus = Literal["open", "addressed", "resolved"]


class Comment(_Model):
    """A person's comment on a step of the plan, or on the plan as a whole (DESIGN section 14)."""

    id: str  # c1, c2, ... per session
    step_id: str | None  # None: the plan as a whole
    anchor: str | None  # the step's description when the comment was made
    text: str  # the person's words
    by: dict | None  # who, and where (DESIGN section 12)
    status: CommentStatus
    reply: str | None  # the agent's note once addressed: model-authored


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
    # The cells that did each step (DESIGN section 13): per step, the latest run of each cell.
    cells: dict[str, list[CellRun]] = Field(default_factory=dict)
    # The person's comments (DESIGN section 14): every one not resolved, and the 16 most
    # recently resolved, in the order they were made.
    comments: list[Comment] = Field(default_factory=list)
    # Each step's check and how its latest run since the step was completed went (DESIGN
    # section 17), in the plan's order.
    checks: dict[str, CheckState] = Field(default_factory=dict)
    # The mode id the bridged ACP agent last announced (DESIGN section 10); None with no bridge.
    agent_mode: str | None = None

    @classmethod
    def empty(cls, session_id: str) -> Snapshot:
        """The snapshot of a session nothing has happened in yet."""
        return cls(
            session_id=session_id,
            cursor=0,
            mode="default",
            pending_proposal_hash=None,
            approved_proposal_hash=None,
            plan=None,
            decisions=[],
            cells={},
            comments=[],
            checks={},
            agent_mode=None,
        )


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


# Tool inputs: TypedDicts that pydantic validates strictly. A plan arrives on every update, and
# validating into dicts rather than model instances took a third off the cost of an update.

_INPUT = ConfigDict(extra="forbid", strict=True, defer_build=True)


@with_config(_INPUT)
class StepInput(TypedDict):
    id: Annotated[str, Field(description="Unique id, 1 to 64 bytes of printable ASCII.")]
    description: Annotated[str, Field(description="What the step does, at most 240 bytes.")]
    status: NotRequired[
        Annotated[Status, Field(description="pending (the default), in_progress or completed.")]
    ]
    acceptance: NotRequired[
        Annotated[
            str | None, Field(description="An observable condition that shows the step is done.")
        ]
    ]
    depends_on: NotRequired[
        Annotated[list[str] | None, Field(description="Ids of earlier steps this one needs.")]
    ]
    evidence: NotRequired[
        Annotated[
            str | None,
            Field(
                description="What showed the acceptance met; required to complete a step "
                "that has an acceptance."
            ),
        ]
    ]
    check: NotRequired[Annotated[str | None, Field(description=CHECK_DESCRIPTION)]]


@with_config(_INPUT)
class PhaseInput(TypedDict):
    title: NotRequired[
        Annotated[str | None, Field(description="The phase's title; null for an untitled phase.")]
    ]
    steps: list[StepInput]


_Explanation = Annotated[str | None, Field(description="Why the plan is shaped this way.")]
_Findings = Annotated[
    list[str] | None,
    Field(description="What is actually there, what surprised you, what the plan works around."),
]
_Objectives = Annotated[list[str] | None, Field(description="What the plan must achieve.")]
_Phases = Annotated[list[PhaseInput] | None, Field(description="Titled groups of steps.")]
_Steps = Annotated[
    list[StepInput] | None, Field(description="A flat list of steps (one untitled phase).")
]


@with_config(_INPUT)
class UpdatePlanArgs(TypedDict):
    expected_revision: Annotated[
        int | None, Field(description="The session's current revision (0 for a new session).")
    ]
    explanation: NotRequired[_Explanation]
    findings: NotRequired[_Findings]
    objectives: NotRequired[_Objectives]
    phases: NotRequired[_Phases]
    steps: NotRequired[_Steps]


@with_config(_INPUT)
class PlanSubmitArgs(TypedDict):
    # A proposal says why, what was found and what it is for: these are required here.
    explanation: _Explanation
    findings: _Findings
    objectives: _Objectives
    phases: NotRequired[_Phases]
    steps: NotRequired[_Steps]
    expected_revision: NotRequired[
        Annotated[int | None, Field(description="Optional: the session's current revision.")]
    ]


@with_config(_INPUT)
class RecordDecisionArgs(TypedDict):
    title: Annotated[str, Field(description="The decision in a few words, at most 120 bytes.")]
    rationale: Annotated[str, Field(description="Why, at most 500 bytes.")]
    sources: NotRequired[
        Annotated[list[str] | None, Field(description="Where the facts came from.")]
    ]


@with_config(_INPUT)
class AskUserArgs(TypedDict):
    question: Annotated[
        str,
        Field(description="One question for the person, at most 500 bytes, on one line."),
    ]


@with_config(_INPUT)
class CommentReplyArgs(TypedDict):
    comment_id: Annotated[
        str, Field(description="The id of the person's comment you addressed: c1, c2, ...")
    ]
    reply: Annotated[
        str,
        Field(
            description="What you did about it, in at most 500 characters on one line; the "
            "person reads it beside their comment."
        ),
    ]


@with_config(_INPUT)
class ReviewItemInput(TypedDict):
    objective: Annotated[
        str, Field(description="One of the plan's objectives, as the plan states it.")
    ]
    outcome: Annotated[str, Field(description="What came of it, at most 500 bytes.")]
    evidence: Annotated[
        str,
        Field(description="What shows the outcome: a figure, a file, a check; at most 500 bytes."),
    ]


@with_config(_INPUT)
class FinishPlanArgs(TypedDict):
    review: Annotated[
        list[ReviewItemInput],
        Field(description="One item for every objective of the plan: its outcome and evidence."),
    ]


class ReviewItem(_Model):
    objective: str
    outcome: str
    evidence: str


class FinalReview(_Model):
    """The accepted finish_plan review of the current plan; while it stands the plan is finished."""

    revision: int
    review: list[ReviewItem]


class Question(_Model):
    """A question the agent asked the person with ask_user, waiting for the answer."""

    question: str
    turn_id: str | None
    asked_seq: int
