"""What differs between the ACP agents the bridge stands before, as data: one JSON file per agent
beside this module, chosen at `initialize` from what the agent says it is (its `agentInfo.name`),
else from what it announces (a capability a profile names), else the default profile with the
agent's own name. Adding an agent is adding a file here.

A profile holds the agent's mode ids and what they mean for edits, which modes approve
themselves and which make it ask, its reject options in order of preference and those that end
its turn, the option that approves leaving plan mode, where the plan's text is in its request,
and the settings it takes at session start (with the guard's hook in them).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from ...config_files import ConfigError, read_json
from ..text import clean, cut, is_blank

HERE = Path(__file__).parent
DEFAULT_ID = "default"
MAX_LABEL_BYTES = 80


@dataclass(frozen=True)
class Profile:
    id: str
    label: str | None  # the agent's name for people ("the agent" when None)
    short_label: str | None = None  # in a persona's name ("... with plans")
    names: tuple[str, ...] = ()  # the `agentInfo.name` values it answers to
    commands: tuple[str, ...] = ()  # the command names that run it
    install: str | None = None  # how to install it, for a server that lacks it
    plan_switch: str | None = None  # the config option (or "@mode") that is its plan mode
    approves_itself: tuple[str, ...] = ()  # modes that approve its own edits or commands
    asking_modes: tuple[str, ...] = ()  # modes apart from plan mode that make it ask first
    mode_words: dict[str, str] = field(default_factory=dict)  # mode id -> what edits do there
    rejects: tuple[str, ...] = ()  # reject option ids, the preferred first
    turn_ending: tuple[str, ...] = ()  # option ids whose answer ends its turn
    # A switch of its modes reaches its next turn only: a running turn keeps the one it began in.
    modes_next_turn: bool = False
    approve: tuple[str, ...] = ()  # allow-once option ids that approve leaving plan mode
    plan_text: tuple[str, ...] = ("content", "rawInput.plan")  # where the plan's text is
    capability: str | None = None  # an `agentCapabilities._meta` key that names this kind
    session_settings: dict | None = None  # {"meta": [path], "hook": [args], "matcher": str}
    reject_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    version: str | None = None  # as the agent said at initialize

    @property
    def name(self) -> str:
        return self.label or "the agent"

    def edits(self, mode: str | None, described: str | None = None) -> str | None:
        """What edits do in `mode`, in words ("edits no longer ask"): the profile's words, else
        those of an agent approving itself there, else the agent's own description."""
        if mode is None:
            return None
        if mode in self.mode_words:
            return self.mode_words[mode]
        if mode in self.approves_itself:
            return "edits no longer ask"
        if mode in self.asking_modes:
            return "edits and commands ask"
        return described or None

    def asks(self, mode: str | None) -> bool | None:
        """Whether the agent asks before its edits in `mode` (None when unknown)."""
        if mode is None:
            return None
        return mode not in self.approves_itself


def _load(path: Path) -> Profile:
    """The profile in `path`; ConfigError, naming the file, for one that is not a profile."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise ConfigError(path, f"is not an agent profile: it holds {type(data).__name__}")
    values: dict[str, Any] = {}
    try:
        for key, value in data.items():
            if isinstance(value, list):
                value = tuple(value)
            elif key == "reject_words":
                value = {k: tuple(v) for k, v in value.items()}
            values[key] = value
        return Profile(**values)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ConfigError(path, f"is not an agent profile: {exc}") from None


@cache
def profiles() -> dict[str, Profile]:
    """Every profile shipped, by id; the default one's heuristics filled into each."""
    found = {path.stem: _load(path) for path in sorted(HERE.glob("*.json"))}
    default = found[DEFAULT_ID]
    return {
        key: replace(profile, reject_words=profile.reject_words or default.reject_words)
        for key, profile in found.items()
    }


def default() -> Profile:
    return profiles()[DEFAULT_ID]


def choose(initialized: Any) -> Profile:
    """The profile for an agent, from its `initialize` result (raw JSON)."""
    result = initialized if isinstance(initialized, dict) else {}
    info = result.get("agentInfo") if isinstance(result.get("agentInfo"), dict) else {}
    name, title, version = info.get("name"), info.get("title"), info.get("version")
    version = version if isinstance(version, str) else None
    for profile in profiles().values():
        if isinstance(name, str) and name in profile.names:
            return replace(profile, version=version)
    capabilities = result.get("agentCapabilities")
    meta = capabilities.get("_meta") if isinstance(capabilities, dict) else None
    label = next((t for t in (title, name) if isinstance(t, str) and not is_blank(clean(t))), None)
    label = None if label is None else cut(clean(label), MAX_LABEL_BYTES)
    for profile in profiles().values():
        if profile.capability and isinstance(meta, dict) and profile.capability in meta:
            return replace(profile, names=(), label=label or profile.label, version=version)
    return replace(default(), label=label, version=version)


def by_command(command: str) -> Profile | None:
    """The profile of the agent a command runs (by its file name), if one names it."""
    base = Path(command).name
    return next((p for p in profiles().values() if base in p.commands), None)
