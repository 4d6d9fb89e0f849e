"""Where a notebook's plan lives: `analysis.ipynb` -> `analysis.plans.sqlite` beside it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

DEFAULT_TEMPLATE = "{notebook_dir}/{notebook_stem}.plans.sqlite"
UNNAMED_STEM = "default"


def notebook_path(user_ns: dict[str, Any], environ: dict[str, str] | None = None) -> Path | None:
    """The notebook this kernel runs for, as Jupyter, VS Code or the environment tell it."""
    environ = os.environ if environ is None else environ
    for candidate in (
        user_ns.get("__session__"),
        environ.get("JPY_SESSION_NAME"),
        user_ns.get("__vsc_ipynb_file__"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return Path(candidate).expanduser()
    return None


def plan_database(template: str, notebook: Path | None, cwd: Path | None = None) -> str:
    """The store's URL or path: the template filled in from the notebook (or the working folder).

    A template holding "://" is a database URL (PostgreSQL for teams) and may use the same
    fields, for example to pick a session per notebook.
    """
    cwd = cwd or Path.cwd()
    if notebook is not None and not notebook.is_absolute():
        notebook = cwd / notebook
    fields = {
        "notebook_dir": str(notebook.parent if notebook else cwd),
        "notebook_stem": notebook.stem if notebook else UNNAMED_STEM,
        "notebook_name": notebook.name if notebook else "",
        "home": str(Path.home()),
    }
    return (template or DEFAULT_TEMPLATE).format(**fields)
