"""jupyter-plans: a durable, reviewable plan for agents working in Jupyter notebooks."""

from .errors import DecisionRefused, PlanStoreError
from .models import Decision, Event, Message, Phase, Plan, Proposal, Snapshot, Step, ToolResult
from .session import PlanSession
from .store import PlanStore

__version__ = "0.1.0"

__all__ = [
    "DecisionRefused",
    "Decision",
    "Event",
    "Message",
    "Phase",
    "Plan",
    "PlanSession",
    "PlanStore",
    "PlanStoreError",
    "Proposal",
    "Snapshot",
    "Step",
    "ToolResult",
    "__version__",
]
