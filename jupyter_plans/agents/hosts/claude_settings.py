"""What Claude Code reads of its hooks, for `hook doctor claude-code`: its settings files in their
order of precedence (managed, the project's local, the project's, the user's) and what turns
hooks off there.

As Claude Code 2.1.83, 2.1.318 and 2.1.332 were seen to do (tests/hooks/test_claude_real.py):
the project's settings are read from the folder it starts in (not a folder above it, Git or
not); hooks of every file run together, but the highest-precedence file that sets
`disableAllHooks` decides whether any runs; managed settings that set it, or
`allowManagedHooksOnly`, turn off every hook that is not theirs.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config_files import ConfigError, read_json


@dataclass(frozen=True)
class Layer:
    """One settings file: what it is, where, and what it holds (None: missing or unreadable)."""

    name: str
    path: Path
    data: dict | None
    error: str | None = None


def managed_file() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if os.name == "nt":
        return Path(r"C:\Program Files\ClaudeCode\managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def user_folder() -> Path:
    """Claude Code's own folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def layers(folder: Path) -> list[Layer]:
    """The settings Claude Code started in `folder` reads, highest precedence first."""
    places = [
        ("managed settings", managed_file()),
        ("local project settings", folder / ".claude" / "settings.local.json"),
        ("project settings", folder / ".claude" / "settings.json"),
        ("user settings", user_folder() / "settings.json"),
    ]
    return [_layer(name, path) for name, path in places]


def _layer(name: str, path: Path) -> Layer:
    try:
        data = read_json(path)  # bounded: a FIFO or /dev/zero at the name is not read
    except ConfigError as exc:
        return Layer(name, path, None, exc.reason)
    if data is None:
        return Layer(name, path, None)
    if not isinstance(data, dict):
        return Layer(name, path, None, "does not hold a settings object")
    return Layer(name, path, data)


def pre_tool_commands(data: dict | None) -> list[str]:
    """The PreToolUse command lines of a settings object."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    found = []
    for group in groups if isinstance(groups, list) else ():
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else ():
            if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                found.append(handler["command"])
    return found


def why_off(stack: list[Layer], ours: Any) -> tuple[Layer, str] | None:
    """Why Claude Code, reading `stack`, runs no hook of ours (`ours(command)` says which):
    the file that decides and what it says; None when nothing turns them off."""
    managed, *others = stack
    policy = managed.data or {}
    if policy.get("disableAllHooks") is True:
        return managed, "sets disableAllHooks, which turns every hook off"
    if policy.get("allowManagedHooksOnly") is True and not any(
        ours(command) for command in pre_tool_commands(policy)
    ):
        return managed, "sets allowManagedHooksOnly, which runs only its own hooks"
    for layer in others:
        if layer.data is not None and "disableAllHooks" in layer.data:
            if layer.data["disableAllHooks"] is True:
                return layer, "sets disableAllHooks to true, which turns every hook off"
            return None  # the highest file that says decides
    return None
