"""The command line that puts an ACP agent behind the bridge, bound to a notebook's plan: the one
Jupyter AI's persona runs, the one notebook 05's client runs, and the one an editor's settings
hold (`jupyter-plans acp --notebook NB -- AGENT [ARGS...]`)."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_AGENT = ("claude-agent-acp",)


def bridge_executable() -> list[str]:
    """How to run `jupyter-plans` of this Python's environment: its script when installed
    beside this Python (the command an editor's settings name), else this Python running the
    command line's module."""
    folder = Path(sys.executable).parent
    for name in ("jupyter-plans", "jupyter-plans.exe"):
        script = folder / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "jupyter_plans.cli"]


def bridge_command(
    agent: Sequence[str],
    *,
    notebook: str | os.PathLike | None = None,
    db: str | None = None,
    session: str | None = None,
    bridge: Sequence[str] | None = None,
) -> list[str]:
    """`jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...]`, with
    `bridge` (default: `bridge_executable()`) as the way to run `jupyter-plans`."""
    if (notebook is None) == (db is None):
        raise ValueError("give exactly one of notebook and db")
    agent = [str(part) for part in agent]
    if not agent or not agent[0]:
        raise ValueError("give the agent's command, e.g. ['claude-agent-acp']")
    where = ["--notebook", os.fspath(notebook)] if notebook is not None else ["--db", str(db)]
    if session is not None:
        where += ["--session", session]
    return [*(bridge or bridge_executable()), "acp", *where, "--", *agent]


def shown(command: Sequence[str]) -> str:
    """The command as a person would type it: this Python as `python`, the bridge's script or
    module as `jupyter-plans` (the same on every machine, for a notebook's outputs)."""
    words = list(command)
    bridge = bridge_executable()
    if words[: len(bridge)] == bridge:
        words = ["jupyter-plans", *words[len(bridge) :]]
    return shlex.join("python" if word == sys.executable else word for word in words)
