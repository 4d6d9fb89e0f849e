"""The registry of the coding-agent hosts, which everything outside hosts/ asks, by a host's id
or of every host; a new host is a module beside this one and one line in HOSTS.

Imported by the hook's PreToolUse: the host modules load the standard library alone.
"""

from __future__ import annotations

import os

from . import claude_code, codex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOSTS = {host.ID: host for host in (claude_code, codex)}


def host_of(payload: dict | None, environ: Any = None) -> str | None:
    """The id of the host that ran this hook, from the signs it gives (SIGNS, in rank order
    across hosts); None when it cannot tell."""
    environ = os.environ if environ is None else environ
    payload = payload or {}
    for _, kind, key, host in _signs():
        if environ.get(key) if kind == "env" else key in payload:
            return host
    return None


def _signs() -> list[tuple[int, str, str, str]]:
    return sorted(
        ((rank, kind, key, host.ID) for host in HOSTS.values() for rank, kind, key in host.SIGNS),
        key=lambda sign: sign[0],
    )


def agent_of(payload: dict | None, environ: Any = None) -> tuple[str, str | None]:
    """The agent's name as the card says it, and its version where the agent says it."""
    environ = os.environ if environ is None else environ
    host = HOSTS.get(host_of(payload, environ))
    if host is None:
        return "an agent's hook", None
    return host.NAME, host.version(environ)


def install_flag(host_id: str | None) -> str:
    """What `hook install` needs for the hooks of that host to run."""
    host = HOSTS.get(host_id)
    return host.INSTALL_FLAG if host is not None else "--write"


def own_plan_write(tool: str, payload: dict | None) -> bool:
    """Whether the tool call is a host's own plan mode writing its plan (which it allows)."""
    return any(host.own_plan_write(tool, payload or {}) for host in HOSTS.values())


def context_limit() -> int:
    """The most characters of hook output every host injects into context whole."""
    return min(host.CONTEXT_LIMIT for host in HOSTS.values() if host.CONTEXT_LIMIT is not None)


def lists_tools_once() -> dict[str, str]:
    """MCP client name -> the host whose client never lists the tools again (which releases)."""
    return dict(host.MCP_CLIENT for host in HOSTS.values() if host.MCP_CLIENT is not None)


def guard_warning(notebook: Any, plan_file: Any, session_id: str) -> str | None:
    """The card's one warning that a host would not run this plan's guard hook, if any."""
    for host in HOSTS.values():
        warning = host.guard_warning(notebook, plan_file, session_id)
        if warning is not None:
            return warning
    return None
