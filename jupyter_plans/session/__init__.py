"""A plan session: its reading, its agent's tools, its person's verbs and its write transaction."""

from .plan_session import PlanSession
from .transaction import EventData

__all__ = ["EventData", "PlanSession"]
