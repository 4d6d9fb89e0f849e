"""Codex CLI's trust in a project's hooks, read as Codex (0.166) decides it, and where the hooks
of a plan are registered for Codex.

Codex runs a hook that is not managed by an administrator only when the user's config.toml
holds `[hooks.state."<hooks file>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."`
equal to the hash of the hook's normalized content, and the same table does not say
`enabled = false`. Its interactive review ("Trust all and continue") writes those entries;
`codex exec` never asks and silently skips an untrusted hook. The card reads this to say when
plan mode is not enforced in Codex; `hook install codex --trust` writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from pathlib import Path
from typing import Any, NamedTuple

from ..config_files import ConfigError, read_json, read_toml
from .commands import command_options, guards_plan

HOOKS_FILE = Path(".codex") / "hooks.json"
DEFAULT_TIMEOUT = 600  # seconds, Codex's default for a handler without one
# The handler fields Codex hashes (with `type`); a handler with others is not one of ours.
_HASHED = {"type", "command", "timeout", "async", "statusMessage"}


class Hook(NamedTuple):
    """One command handler of a hooks file, as Codex keys and hashes it."""

    key: str
    digest: str
    event: str
    command: str


def codex_home() -> Path:
    """Where Codex keeps its config.toml: $CODEX_HOME, else ~/.codex."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def event_label(event: str) -> str:
    """Codex's key label of an event: PreToolUse -> pre_tool_use."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hooks_of(hooks_file: Path, data: Any) -> list[Hook]:
    """The command handlers of a parsed hooks file that can be hashed as Codex hashes them."""
    events = data.get("hooks") if isinstance(data, dict) else None
    found = []
    for event, groups in (events or {}).items() if isinstance(events, dict) else ():
        for group_index, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                digest = _digest(event, group, handler)
                if digest is not None:
                    key = f"{hooks_file}:{event_label(event)}:{group_index}:{handler_index}"
                    found.append(Hook(key, digest, event, handler["command"]))
    return found


def _digest(event: str, group: dict, handler: Any) -> str | None:
    """Codex's hash of a command handler: the event's label, the group's matcher and the one
    normalized handler, as JSON with sorted keys and no spaces, in SHA-256."""
    if not isinstance(handler, dict) or handler.get("type") != "command" or set(handler) - _HASHED:
        return None
    command, timeout = handler.get("command"), handler.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(command, str) or not command.strip() or type(timeout) is not int:
        return None
    normalized = {
        "type": "command",
        "command": command,
        "timeout": max(timeout, 1),
        "async": handler.get("async", False) is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [normalized]}
    if isinstance(group.get("matcher"), str):
        identity["matcher"] = group["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hook_states(config: Any) -> dict[str, dict]:
    """`hooks.state` of a parsed config.toml: what the user said of each hook, by key."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return {}
    return {key.strip(): value for key, value in state.items() if isinstance(value, dict)}


def why_not_run(hook: Hook, states: dict[str, dict]) -> str | None:
    """Why Codex does not run the hook ("not trusted", "changed since it was trusted",
    "turned off"), or None when it does."""
    state = states.get(hook.key, {})
    if state.get("enabled") is False:
        return "turned off"
    trusted = state.get("trusted_hash")
    if trusted == hook.digest:
        return None
    return "changed since it was trusted" if isinstance(trusted, str) else "not trusted"


def read_config(path: Path) -> dict:
    """A config.toml as Codex would read it (an editor's byte order mark is fine); {} when
    there is none; ConfigError (one line naming it) when it cannot be read."""
    return read_toml(path) or {}


# What plan mode needs from Codex, for a card: the PreToolUse hook of this plan.


def guard_warning(
    notebook: Path | None, plan_file: Path | None, session_id: str, home: Path | None = None
) -> str | None:
    """One line for the card when this plan's PreToolUse hook is registered for Codex (in a
    `.codex/hooks.json` of the notebook's folder or a folder above it) and Codex would not run
    it; None when none is registered or Codex runs one. Cached on the files' stamps."""
    start = notebook or plan_file
    if start is None:
        return None
    home = home or codex_home()
    files = [folder / HOOKS_FILE for folder in Path(os.path.abspath(start)).parents]
    stamps = tuple(_stamp(path) for path in [*files, home / "config.toml"])
    key = (notebook, plan_file, session_id, home)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == stamps:
        return cached[1]
    warning = _guard_warning(files, stamps, notebook, plan_file, session_id, home)
    _CACHE[key] = (stamps, warning)
    return warning


_CACHE: dict[tuple, tuple[tuple, str | None]] = {}


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _guard_warning(files, stamps, notebook, plan_file, session_id, home) -> str | None:
    present = [path for path, stamp in zip(files, stamps, strict=False) if stamp is not None]
    unreadable: list[ConfigError] = []
    registered = registered_guards(present, notebook, plan_file, session_id, unreadable)
    try:
        checked = check(registered, home)
    except ConfigError as exc:  # Codex's config.toml
        return f"Plan mode may not be enforced in Codex: {exc}, and Codex cannot read it either."
    if checked is None and unreadable:
        return (
            f"Plan mode may not be enforced in Codex: {unreadable[0]}, and Codex cannot read "
            "it either; this plan's guard hook may be registered there."
        )
    if checked is None or checked.runs:
        return None
    # Paths as the person finds them from the notebook's folder; the command as run where it
    # says, so it holds when copied.
    here = Path(os.path.abspath(notebook or plan_file)).parent
    path, project = checked.hooks_file, checked.hooks_file.parent.parent
    hooks, there = _from(here, path), _folder_words(here, project)
    target = _target_words(checked.hook.command, project)
    run = f"`jupyter-plans hook install codex {target} --trust`"
    if checked.hook_reason is not None:
        return (
            "Plan mode is not enforced in Codex\n"
            f"Its guard hook is {checked.hook_reason}: Codex runs the hooks registered in "
            f"`{hooks}` only once you trust them. To trust them, run {run} in {there}, or start "
            '`codex` there and choose "Trust all and continue".'
        )
    return (
        "Plan mode is not enforced in Codex 0.167 and later\n"
        f"This project is {checked.project_reason}: Codex loads the hooks registered in "
        f"`{hooks}` only in a project you trust, and {there} is {checked.project_reason} in "
        f"`{_home_words(home / 'config.toml')}`. To trust it, run {run} in {there}."
    )


def _from(folder: Path, path: Path) -> str:
    """`path` relative to `folder` (`../.codex/hooks.json`)."""
    return os.path.relpath(path, folder)


def _folder_words(here: Path, folder: Path) -> str:
    """Where to run a command, said from the notebook's folder."""
    if os.path.realpath(folder) == os.path.realpath(here):
        return "this notebook's folder"
    return f"the folder `{_from(here, folder)}`"


def _home_words(path: Path) -> str:
    """A path in the person's home as `~/...`, where it is one."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


class Checked(NamedTuple):
    """What Codex does with the best-placed guard hook of a plan: why it would not run it
    (its own trust, then the trust of its project), None for each that holds."""

    hooks_file: Path
    hook: Hook
    hook_reason: str | None
    project_reason: str | None

    @property
    def runs(self) -> bool:
        return self.hook_reason is None and self.project_reason is None


def registered_guards(
    files, notebook, plan_file, session_id, unreadable: list[ConfigError] | None = None
) -> list[tuple[Path, Hook]]:
    """This plan's PreToolUse hooks in the given hooks files (`session_id` None: any); why a
    file could not be read goes in `unreadable`, when given."""
    found = []
    for path in files:
        try:
            data = read_json(Path(path))
        except ConfigError as exc:
            if unreadable is not None:
                unreadable.append(exc)
            continue
        for hook in hooks_of(Path(path), data):
            if hook.event == "PreToolUse" and guards_plan(
                hook.command, notebook, plan_file, session_id
            ):
                found.append((Path(path), hook))
    return found


def check(registered: list[tuple[Path, Hook]], home: Path) -> Checked | None:
    """Whether Codex runs one of `registered`, read from its config.toml; None when none is."""
    if not registered:
        return None
    config = read_config(home / "config.toml")
    states = hook_states(config)
    checked = [
        Checked(path, hook, why_not_run(hook, states), project_trust(config, path.parent.parent))
        for path, hook in registered
    ]
    return min(checked, key=lambda c: (c.hook_reason is not None, c.project_reason is not None))


def project_folders(folder: Path) -> list[Path]:
    """The folders whose trust lets Codex 0.167 and later load `folder`/.codex/ when it starts
    there: the folder itself and, in a Git repository, the repository's root (as Codex 0.171
    was seen to do; outside Git a folder above does not count)."""
    folder = Path(os.path.realpath(folder))
    for parent in (folder, *folder.parents):
        if (parent / ".git").exists():
            return [folder] if parent == folder else [folder, parent]
    return [folder]


def project_trust(config: Any, folder: Path) -> str | None:
    """Why Codex 0.167 and later do not load `folder`/.codex/ ("not trusted", "marked
    untrusted"): `[projects."<folder>"] trust_level = "trusted"` in config.toml; None when so."""
    projects = config.get("projects") if isinstance(config, dict) else None
    levels = {
        os.path.realpath(key): value.get("trust_level")
        for key, value in (projects.items() if isinstance(projects, dict) else ())
        if isinstance(value, dict)
    }
    found = [levels.get(str(f)) for f in project_folders(folder)]
    if "trusted" in found:
        return None
    return "marked untrusted" if "untrusted" in found else "not trusted"


def _target_words(command: str, folder: Path) -> str:
    """The hook's target options, with its paths as seen from `folder` (where it is run)."""
    options = command_options(command) or {}
    words = []
    for option in ("--notebook", "--db", "--session", "--guard"):
        if option in options:
            value = os.path.expanduser(options[option])
            if option in ("--notebook", "--db") and os.path.isabs(value):
                value = _from(folder, Path(value))
            words += [option, value]
    return shlex.join(words)
