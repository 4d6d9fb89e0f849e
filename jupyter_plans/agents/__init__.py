"""Agents that drive a plan session: the built-in agent on any OpenAI-compatible endpoint, and
the scripted agent, for teaching and tests.

The names below are imported on first use, so that `%load_ext jupyter_plans` (which registers
%%agent) does not pay for the scripted agent's models.
"""

from ..lazy import lazy_names

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
__getattr__ = lazy_names(__name__, globals(), _WHERE)


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
