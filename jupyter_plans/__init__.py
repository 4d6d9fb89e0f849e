"""jupyter-plans: a durable, reviewable plan for agents working in Jupyter notebooks.

The names below are imported on first use: a command that needs only part of the package
(the coding-agent hook answers before every tool call) does not pay for the rest.
"""

from __future__ import annotations

from .errors import DecisionRefused, PlanStoreError
from .lazy import lazy_names

TYPE_CHECKING = False  # typing is not loaded either: see hooks/tool_use.py
if TYPE_CHECKING:
    from .session import PlanSession

__version__ = "0.1.0"

_LAZY = {
    "Decision": ".plan.models",
    "Event": ".plan.models",
    "Message": ".plan.models",
    "Phase": ".plan.models",
    "Plan": ".plan.models",
    "Proposal": ".plan.models",
    "Snapshot": ".plan.models",
    "Step": ".plan.models",
    "ToolResult": ".plan.models",
    "PlanSession": ".session",
    "PlanStore": ".session",
}
__getattr__ = lazy_names(__name__, globals(), _LAZY)


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
    "current_session",
    "load_ipython_extension",
    "unload_ipython_extension",
]

_magics = None  # the loaded extension's PlanMagics, if any
_agent_magics = None  # and its AgentMagics


def load_ipython_extension(ipython) -> None:
    """%load_ext jupyter_plans: open this notebook's plan store, register %plan and %%agent,
    show the card."""
    global _magics, _agent_magics
    from .notebook import say
    from .notebook.magics import PlanMagics
    from .session.bound import bind
    from .session.checks import bind_runner

    try:
        magics = PlanMagics(shell=ipython, config=ipython.config)
    except PlanStoreError as exc:
        say(f"jupyter_plans: {exc}", err=True)
        return
    ipython.register_magics(magics)
    _magics = magics
    bind(lambda: magics.session)
    bind_runner(magics.checks)
    magics.start()
    from .notebook.agent import AgentMagics  # openai itself is imported by the first %%agent

    _agent_magics = AgentMagics(ipython, magics, config=ipython.config)
    ipython.register_magics(_agent_magics)
    _agent_magics.start()


def unload_ipython_extension(ipython) -> None:
    """%unload_ext jupyter_plans: remove %plan, %%agent and every hook, stop every watcher."""
    global _magics, _agent_magics
    if _magics is None:
        return
    from .session.bound import bind
    from .session.checks import bind_runner

    _agent_magics.stop()
    _magics.stop()
    bind(None)
    bind_runner(None)
    for table in ipython.magics_manager.magics.values():
        table.pop("plan", None)
        table.pop("agent", None)
    for registered in (_magics, _agent_magics):
        ipython.magics_manager.registry.pop(type(registered).__name__, None)
    _magics = _agent_magics = None


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-plans"}]


def _jupyter_server_extension_points() -> list[dict]:
    from .server import _jupyter_server_extension_points as points

    return points()


def current_session() -> PlanSession:
    """The plan session bound to this notebook by %load_ext jupyter_plans."""
    from .session.bound import bound_session

    session = bound_session()
    if session is None:
        raise PlanStoreError("load the extension first: %load_ext jupyter_plans")
    return session
