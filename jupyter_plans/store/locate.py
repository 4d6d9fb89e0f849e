"""Where a notebook's plan lives: `analysis.ipynb` -> `analysis.plans.sqlite` beside it.

Imported by the coding-agent hook, which starts with the standard library's json and sqlite3
alone: a notebook's path is worked with as text, as pathlib would (pathlib loads for a path
that is not plain, see preflight.py)."""

from __future__ import annotations

import os

from ..errors import PlanStoreError
from .preflight import plain_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

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
            from pathlib import Path

            return Path(candidate).expanduser()
    return None


def fields(notebook: str | os.PathLike | None, cwd: Path | None = None) -> dict[str, str]:
    """What a template may use: {notebook_dir}, {notebook_stem}, {notebook_name}, {home}."""
    cwd_text, home = os.fspath(cwd or os.getcwd()), os.path.expanduser("~")
    text = None if notebook is None else os.fspath(notebook)
    if text is not None and not os.path.isabs(text):
        text = os.path.join(cwd_text, text)
    if not all(plain_path(t) for t in (cwd_text, home, text or cwd_text)):
        from pathlib import Path

        cwd_text, home = str(Path(cwd_text)), str(Path(home))
        text = None if text is None else str(Path(text))
    name = os.path.basename(text) if text else ""
    dot = name.rfind(".")
    return {
        "notebook_dir": os.path.dirname(text) if text else cwd_text,
        # pathlib's stem: a name without its last suffix (".ipynb" and "a." have none)
        "notebook_stem": (name[:dot] if 0 < dot < len(name) - 1 else name)
        if text
        else UNNAMED_STEM,
        "notebook_name": name,
        "home": home,
    }


def plan_database(
    template: str, notebook: str | os.PathLike | None, cwd: Path | None = None
) -> str:
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
