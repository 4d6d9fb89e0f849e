"""A plan session and the store that opens it: its reads, its agent's tools, its person's verbs,
comments and cells, a module each, over one write transaction and the steps they share."""

from .events import EventData
from .plan_session import PlanSession, PlanStore, open_plan

__all__ = ["EventData", "PlanSession", "PlanStore", "open_plan"]
