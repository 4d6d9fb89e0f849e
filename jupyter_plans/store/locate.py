"""Where a notebook's plan lives: `analysis.ipynb` -> `analysis.plans.sqlite` beside it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import PlanStoreError

SUFFIX = ".plans.sqlite"
DEFAULT_TEMPLATE = "{notebook_dir}/{notebook_stem}" + SUFFIX
UNNAMED_STEM = "default"


def plan_file(notebook: Path) -> Path:
    """The plan file beside a notebook, by the default template."""
    return notebook.with_name(notebook.stem + SUFFIX)


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


def fields(notebook: Path | None, cwd: Path | None = None) -> dict[str, str]:
    """What a template may use: {notebook_dir}, {notebook_stem}, {notebook_name}, {home}."""
    cwd = cwd or Path.cwd()
    if notebook is not None and not notebook.is_absolute():
        notebook = cwd / notebook
    return {
        "notebook_dir": str(notebook.parent if notebook else cwd),
        "notebook_stem": notebook.stem if notebook else UNNAMED_STEM,
        "notebook_name": notebook.name if notebook else "",
        "home": str(Path.home()),
    }


def plan_database(template: str, notebook: Path | None, cwd: Path | None = None) -> str:
    """The store's URL or path: the template filled in from the notebook (or the working folder).

    A template holding "://" is a database URL (PostgreSQL for teams) and may use the same
    fields.
    """
    return _fill("database", template or DEFAULT_TEMPLATE, fields(notebook, cwd))


def session_name(template: str, notebook: Path | None, cwd: Path | None = None) -> str | None:
    """The session to use, filled in from the notebook (one per notebook in a shared
    database: "{notebook_stem}"); None for the store's current session."""
    return _fill("session_id", template, fields(notebook, cwd)) if template else None


def _fill(setting: str, template: str, values: dict[str, str]) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError) as exc:
        known = ", ".join("{" + name + "}" for name in values)
        raise PlanStoreError(
            f"c.PlanMagics.{setting} is {template!r}, which is not a template of {known}: "
            f"{type(exc).__name__}: {exc}"
        ) from None
