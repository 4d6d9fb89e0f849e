"""The session a kernel's notebook is bound to while the extension is loaded: what
`jupyter_plans.current_session()` returns and what a Toolbox made without a session drives.
(The kernel's check runner is bound beside the checks, in `checks.py`.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plan_session import PlanSession

# A callable, not a session: `%plan new` moves the notebook to another session.
_source: Callable[[], PlanSession] | None = None


def bind(source: Callable[[], PlanSession] | None) -> None:
    """Bind the notebook's session (the extension, on load), or unbind it (None, on unload)."""
    global _source
    _source = source


def bound_session() -> PlanSession | None:
    return _source() if _source is not None else None
