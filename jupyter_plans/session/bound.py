"""The session a kernel's notebook is bound to while the extension is loaded: what
`jupyter_plans.current_session()` returns, what a Toolbox made without a session drives, and
what runs its steps' checks (only there: DESIGN section 17)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .plan_session import PlanSession

# A callable, not a session: `%plan new` moves the notebook to another session.
_source: Callable[[], PlanSession] | None = None
# What evaluates a check in the kernel's namespace (notebook/checks.py's CheckRunner).
_runner: Any = None


def bind(source: Callable[[], PlanSession] | None, runner: Any = None) -> None:
    """Bind the notebook's session and the kernel's check runner (the extension, on load), or
    unbind them (None, on unload)."""
    global _source, _runner
    _source, _runner = source, runner if source is not None else None


def bound_session() -> PlanSession | None:
    return _source() if _source is not None else None


def bound_runner(store: Any, session_id: str) -> Any:
    """The kernel's check runner, when this process is a kernel that has the session
    `session_id` of the plan store `store` (the same database) loaded; else None."""
    loaded = bound_session()
    if _runner is None or loaded is None or loaded.session_id != session_id:
        return None
    return _runner if repr(loaded.store) == repr(store) else None
