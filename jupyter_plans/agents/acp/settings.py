"""The guard in the settings an agent takes at session start: where its profile says so (a path in
`_meta` of session/new, load, resume and fork that holds its settings, and the hooks' matcher),
the bridge adds `jupyter-plans hook ...` as a command hook to those settings, beside the
client's own. While the plan session is in plan mode or a proposal waits, that hook answers
"ask" for every tool that changes the world, whatever the agent's own approvals (auto modes,
classifiers, allow rules) would say: the request then comes to the bridge as a permission
request, which the guard answers with its reject option."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..config_files import ConfigError, read_json
from .launch import bridge_executable
from .wire import warn

HOOK_TIMEOUT_SECONDS = 30


def hook_command(hook: list[str], db: str, session_id: str) -> str:
    """`jupyter-plans hook POINT --db DB --session SID [more]` for HOOK = [POINT, *more]."""
    point, *more = hook
    return shlex.join(
        [*bridge_executable(), "hook", point, "--db", db, "--session", session_id, *more]
    )


def with_guard(params: dict, settings_at: dict, command: str) -> dict | None:
    """`params` of a session request with the hook added to the agent's settings (at
    `settings_at["meta"]` in `_meta`, for `settings_at["hook"][0]` with its `matcher`), the
    client's own settings kept; None when they cannot be read (the request goes as it was)."""
    *path, key = settings_at["meta"]
    meta = params.get("_meta")
    layers = [meta if isinstance(meta, dict) else {}]
    for name in path:
        inner = layers[-1].get(name)
        layers.append(inner if isinstance(inner, dict) else {})
    settings = layers[-1].get(key)
    if isinstance(settings, str):  # a path, relative to the session's folder
        try:
            folder = Path(str(params.get("cwd") or "."))
            settings = read_json(folder / settings)  # bounded: no FIFO, no device
        except ConfigError as exc:
            warn(f"could not read the agent's settings to add the guard: {exc}")
            return None
    if settings is None:
        settings = {}
    point = settings_at["hook"][0]
    hooks = settings.get("hooks", {}) if isinstance(settings, dict) else None
    before = hooks.get(point, []) if isinstance(hooks, dict) else None
    if not isinstance(before, list):
        warn(
            "the agent's settings from the client are not an object of hooks; the guard's "
            "hook was not added"
        )
        return None
    ours = {
        "matcher": settings_at["matcher"],
        "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}],
    }
    value: Any = {**settings, "hooks": {**hooks, point: [*before, ours]}}
    for layer, name in zip(reversed(layers), reversed([*path, key]), strict=True):
        value = {**layer, name: value}
    return {**params, "_meta": value}
