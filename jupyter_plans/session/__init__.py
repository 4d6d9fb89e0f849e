"""A plan session and the store that opens it: the session's reads, its agent's tools, its
person's decisions and its write transaction, a module each."""

from .plan_session import PlanSession, PlanStore
from .transaction import EventData

__all__ = ["EventData", "PlanSession", "PlanStore"]
