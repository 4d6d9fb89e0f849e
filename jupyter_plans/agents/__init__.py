"""Agents that drive a plan session: the built-in agent on any OpenAI-compatible endpoint, and
the scripted agent, for teaching and tests.

The names below are imported on first use, so that `%load_ext jupyter_plans` (which registers
%%agent) does not pay for the scripted agent's models.
"""

from importlib import import_module
from typing import Any

_WHERE = {
    "AgentError": ".openai_compat",
    "OpenAIAgent": ".openai_compat",
    "Entry": ".scripted",
    "ScriptedAgent": ".scripted",
    "Transcript": ".scripted",
    "Script": "._script",
    "ScriptError": "._script",
    "load_script": "._script",
    "shipped_scripts": "._script",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
