"""A plan session and the store that opens it: its reads, its agent's tools, its person's verbs,
comments and cells, a module each, over one write transaction and the steps they share."""

from ..lazy import lazy_names

# Imported on first use: the coding-agent hook reads a session through reads.py alone, without
# the store that writes (plan_session.py's PlanStore).
_WHERE = {
    "EventData": ".events",
    "PlanSession": ".plan_session",
    "PlanStore": ".plan_session",
    "open_plan": ".plan_session",
}
__all__ = sorted(_WHERE)
__getattr__ = lazy_names(__name__, globals(), _WHERE)
