"""The `jupyter-plans` command line, run as a subprocess as a person runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def run(*args):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120, env=env)


def on(db, *args, session="s"):
    """Run a sub-command that takes --db and --session."""
    command, *rest = args
    return run(command, "--db", db, "--session", session, *rest)
