"""Which agent ran the hook, and the heartbeat it leaves in the plan (DESIGN section 15).

The agent is told by what the host itself gives its hooks: Claude Code sets
`CLAUDE_PROJECT_DIR` for every hook (and 2.1.3xx `AI_AGENT=claude-code_2-1-332_...`, its
version); Codex sends `turn_id` with a turn's events and `model` at session start, and its npm
launcher sets `CODEX_MANAGED_PACKAGE_ROOT`, whose package.json has its version.
"""

from __future__ import annotations

import json
import os

from ..lazy import LazyPattern

TYPE_CHECKING = False  # typing is not loaded at run time: see tool_use.py
if TYPE_CHECKING:
    from typing import Any

_AI_AGENT = LazyPattern(r"claude-code_(\d+(?:-\d+){1,3})(?:_|$)")


def host_of(payload: dict | None, environ: Any = None) -> str | None:
    """ "claude-code" or "codex" for the host that ran this hook; None when it cannot tell."""
    environ = os.environ if environ is None else environ
    payload = payload or {}
    if "turn_id" in payload:
        return "codex"
    if environ.get("CLAUDE_PROJECT_DIR") or environ.get("CLAUDECODE"):
        return "claude-code"
    if environ.get("CODEX_MANAGED_PACKAGE_ROOT") or "model" in payload:
        return "codex"
    return None


def agent_of(payload: dict | None, environ: Any = None) -> tuple[str, str | None]:
    """The agent's name as the card says it, and its version where the agent says it."""
    environ = os.environ if environ is None else environ
    host = host_of(payload, environ)
    if host == "claude-code":
        found = _AI_AGENT.match(environ.get("AI_AGENT", ""))
        return "Claude Code", found.group(1).replace("-", ".") if found else None
    if host == "codex":
        return "Codex", _package_version(environ.get("CODEX_MANAGED_PACKAGE_ROOT"))
    return "an agent's hook", None


def _package_version(root: str | None) -> str | None:
    if not root:
        return None
    try:
        with open(os.path.join(root, "package.json"), encoding="utf-8") as file:
            version = json.load(file)["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, str) else None


def beat(store: Any, event: str, payload: dict | None) -> None:
    """Leave the heartbeat in the plan the hook read; whatever goes wrong is not the host's
    business (the card then says the guard was not heard from)."""
    agent, version = agent_of(payload)
    try:
        store.record_seen(agent, version, event)
    except Exception:  # noqa: BLE001, S110 - the answer stands without its heartbeat
        pass
