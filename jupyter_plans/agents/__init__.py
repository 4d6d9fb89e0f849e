"""Agents that drive a plan session: for now the scripted agent, for teaching and tests."""

from ._script import Script, ScriptError, load_script, shipped_scripts
from .scripted import Entry, ScriptedAgent, Transcript

__all__ = [
    "Entry",
    "Script",
    "ScriptError",
    "ScriptedAgent",
    "Transcript",
    "load_script",
    "shipped_scripts",
]
