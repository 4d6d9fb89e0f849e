"""The journal: Markdown views of a session for people (checkpoint, plan, decisions, progress),
generated from its events and never read back."""

from .views import export

__all__ = ["export"]
