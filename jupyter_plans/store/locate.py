"""Where a notebook's plan lives (DESIGN section 16): the database and the session, filled in
from the `database` and `session_id` templates, taken from the surface's own setting, else the
environment, else the defaults (`analysis.ipynb` -> `analysis.plans.sqlite` beside it, and the
file's current session). The kernel, the server extension, the command line and the hooks all
ask `resolve`.

Imported by the coding-agent hook: the standard library only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanStoreError

SUFFIX = ".plans.sqlite"
DEFAULT_TEMPLATE = "{notebook_dir}/{notebook_stem}" + SUFFIX
UNNAMED_STEM = "default"
DATABASE_ENV = "JUPYTER_PLANS_DATABASE"
SESSION_ENV = "JUPYTER_PLANS_SESSION_ID"
# The Jupyter server's root, which the server extension gives the kernels and terminals it
# starts, so that {notebook_path} is the same path there as in the server's routes.
ROOT_ENV = "JUPYTER_PLANS_SERVER_ROOT"
FIELDS = ("notebook_dir", "notebook_stem", "notebook_name", "home", "notebook_path", "user")
# The fields that change when a notebook is renamed or moved: a session id made from one of
# them takes the new name with its notebook.
NAME_FIELDS = ("notebook_path", "notebook_stem", "notebook_name")


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


@dataclass(frozen=True)
class Where:
    """A notebook's plan: the store (a path or URL) and the session (None: the store's
    current one), each with the template it was filled from and where that came from
    (`setting`, `environment` or `default`)."""

    database: str
    session: str | None
    database_from: str
    session_from: str
    database_template: str
    session_template: str
    notebook: Path | None

    @property
    def beside(self) -> bool:
        """Whether the store is the plan file beside the notebook (the default's place)."""
        if self.notebook is None or "://" in self.database:
            return False
        return Path(self.database).expanduser().absolute() == plan_file(self.notebook)

    @property
    def follows_name(self) -> bool:
        """Whether the session id is made from the notebook's name or path."""
        return any("{" + name in self.session_template for name in NAME_FIELDS)

    def shown(self) -> str:
        """The database as a person may see it: a URL's password hidden."""
        return hide_password(self.database)


def resolve(
    notebook: str | os.PathLike | None,
    database: str | None = None,
    session_id: str | None = None,
    *,
    names: tuple[str, str] = ("database", "session_id"),
    root: str | os.PathLike | None = None,
    environ: Any = None,
    cwd: Path | None = None,
) -> Where:
    """The plan of `notebook`: `database` and `session_id` are the surface's own templates
    (None where it sets none, `names` naming them in a refusal), then the environment's, then
    the defaults. `root` is the Jupyter server's root ({notebook_path} is relative to it);
    without one, the environment's; without that, {notebook_path} is absolute."""
    environ = os.environ if environ is None else environ
    cwd = cwd or Path.cwd()
    path = None if notebook is None else Path(notebook).expanduser()
    if path is not None and not path.is_absolute():
        path = cwd / path
    if root is None:
        root = environ.get(ROOT_ENV) or None
    values = fields(path, cwd, root, environ)
    db_template, db_from, db_name = _chosen(
        database, names[0], environ, DATABASE_ENV, DEFAULT_TEMPLATE
    )
    sid_template, sid_from, sid_name = _chosen(session_id, names[1], environ, SESSION_ENV, "")
    filled_db = _fill(db_name, db_template, values)
    filled_sid = _fill(sid_name, sid_template, values) if sid_template else None
    return Where(filled_db, filled_sid, db_from, sid_from, db_template, sid_template, path)


def for_command(notebook: str | None, db: str | None, session: str | None) -> Where:
    """The plan a command line names: `--notebook NB` resolved as every surface resolves it,
    `--db` and `--session` winning where given (filled in from NB); `--db` alone, as it is."""
    if notebook is not None:
        return resolve(notebook, db, session, names=("--db", "--session"))
    if db is None:
        raise PlanStoreError("give --notebook NB or --db DB: which plan to use")
    from_ = "setting" if session is not None else "default"
    return Where(db, session, "setting", from_, db, session or "", None)


def add_where_options(parser: Any, help_notebook: str = "the notebook whose plan to use") -> None:
    """--notebook, --db and --session: which plan a command uses, on an argparse parser."""
    parser.add_argument(
        "--notebook", metavar="NB", help=f"{help_notebook}, found as Jupyter finds it"
    )
    parser.add_argument("--db", help="a SQLAlchemy URL or the path of a plan file")
    parser.add_argument(
        "--session",
        metavar="SID",
        help="the session id (default: the notebook's, else the file's current one)",
    )


def _chosen(
    given: str | None, name: str, environ: Any, variable: str, default: str
) -> tuple[str, str, str]:
    """(template, where it came from, how a refusal names it)."""
    if given is not None:
        return given, "setting", name
    found = environ.get(variable)
    if found:
        return found, "environment", f"${variable}"
    return default, "default", name


def fields(
    notebook: Path | None,
    cwd: Path | None = None,
    root: str | os.PathLike | None = None,
    environ: Any = None,
) -> dict[str, str]:
    """What a template may use: {notebook_dir}, {notebook_stem}, {notebook_name}, {home},
    {notebook_path} and {user}."""
    environ = os.environ if environ is None else environ
    cwd = cwd or Path.cwd()
    if notebook is not None and not notebook.is_absolute():
        notebook = cwd / notebook
    return {
        "notebook_dir": str(notebook.parent if notebook else cwd),
        "notebook_stem": notebook.stem if notebook else UNNAMED_STEM,
        "notebook_name": notebook.name if notebook else "",
        "home": str(Path.home()),
        "notebook_path": _relative(notebook, root) if notebook else "",
        "user": environ.get("JUPYTERHUB_USER") or _os_user(),
    }


def _relative(notebook: Path, root: str | os.PathLike | None) -> str:
    """The notebook's path from the server's root, with / between names; absolute where no
    root is known or the notebook is outside it."""
    absolute = Path(os.path.normpath(notebook))
    if root is not None:
        try:
            return absolute.relative_to(Path(os.path.normpath(Path(root).absolute()))).as_posix()
        except ValueError:
            pass
    return absolute.as_posix()


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user entry for this uid
        return ""


def plan_database(template: str, notebook: Path | None, cwd: Path | None = None) -> str:
    """The store's URL or path: the template filled in from the notebook (or the working
    folder). A template holding "://" is a database URL (PostgreSQL for teams)."""
    return _fill("database", template or DEFAULT_TEMPLATE, fields(notebook, cwd))


def _fill(setting: str, template: str, values: dict[str, str]) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        known = ", ".join("{" + name + "}" for name in values)
        raise PlanStoreError(
            f"{setting} is {hide_password(template)!r}, which is not a template of {known}: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def hide_password(text: str) -> str:
    """A database URL shown with its password (if any) as ***; a path as it is."""
    head, at, tail = text.rpartition("@")
    if not at or "://" not in head:
        return text
    scheme, _, credentials = head.partition("://")
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{tail}" if ":" in credentials else text
