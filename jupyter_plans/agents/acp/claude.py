"""Claude Code's guard at session start: its ACP agent takes Claude Code's settings per session
(`_meta.claudeCode.options.settings` of session/new, load, resume and fork), so the bridge adds
`jupyter-plans hook PreToolUse --ask` to them. While the plan session is in plan mode or a
proposal waits, that hook answers "ask" for every tool that changes the world, whatever Claude
Code's own approvals (auto mode, its classifier, allow rules) would say: the request then comes
to the bridge as a permission request, which the guard answers with its reject option."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from .launch import bridge_executable
from .wire import warn

# Claude Code's tools that change the world, which the hook's guard holds by default (a
# matcher is a regular expression).
MATCHER = "Write|Edit|MultiEdit|NotebookEdit|Bash"
HOOK_TIMEOUT_SECONDS = 30


def hook_command(db: str, session_id: str) -> str:
    return shlex.join(
        [*bridge_executable(), "hook", "PreToolUse", "--db", db, "--session", session_id, "--ask"]
    )


def with_guard(params: dict, command: str) -> dict | None:
    """`params` of a session request with the hook added to Claude Code's settings, the
    client's own settings kept; None when they cannot be read (the request goes as it was)."""
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    claude = meta.get("claudeCode")
    claude = claude if isinstance(claude, dict) else {}
    options = claude.get("options")
    options = options if isinstance(options, dict) else {}
    settings = options.get("settings")
    if isinstance(settings, str):  # a path, relative to the session's folder
        try:
            folder = Path(str(params.get("cwd") or "."))
            settings = json.loads((folder / settings).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            warn(f"could not read Claude Code's settings {settings!r} to add the guard ({exc})")
            return None
    if settings is None:
        settings = {}
    hooks = settings.get("hooks", {}) if isinstance(settings, dict) else None
    before = hooks.get("PreToolUse", []) if isinstance(hooks, dict) else None
    if not isinstance(before, list):
        warn(
            "Claude Code's settings from the client are not an object of hooks; the guard's "
            "hook was not added"
        )
        return None
    ours = {
        "matcher": MATCHER,
        "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}],
    }
    settings = {**settings, "hooks": {**hooks, "PreToolUse": [*before, ours]}}
    options = {**options, "settings": settings}
    return {**params, "_meta": {**meta, "claudeCode": {**claude, "options": options}}}


def offers_settings(result: Any) -> bool:
    """True when an initialize result says the agent is Claude Code's (it takes settings)."""
    capabilities = result.get("agentCapabilities") if isinstance(result, dict) else None
    meta = capabilities.get("_meta") if isinstance(capabilities, dict) else None
    return isinstance(meta, dict) and isinstance(meta.get("claudeCode"), dict)
