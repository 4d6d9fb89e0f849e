"""Agents that drive a plan session: the built-in agent on any OpenAI-compatible endpoint, and
the scripted agent, for teaching and tests."""

from ._script import Script, ScriptError, load_script, shipped_scripts
from .openai_compat import AgentError, OpenAIAgent
from .scripted import Entry, ScriptedAgent, Transcript

__all__ = [
    "AgentError",
    "Entry",
    "OpenAIAgent",
    "Script",
    "ScriptError",
    "ScriptedAgent",
    "Transcript",
    "load_script",
    "shipped_scripts",
]
