"""Where a notebook's plan lives (DESIGN section 16): the database and the session, filled in
from the `database` and `session_id` templates, taken from the surface's own setting, else the
environment, else the defaults (`analysis.ipynb` -> `analysis.plans.sqlite` beside it, and the
file's current session). The kernel, the server extension, the command line and the hooks all
ask `resolve`.

Imported by the coding-agent hook, which starts with the standard library's sqlite3 alone:
a path as `hook install` writes it (absolute, as pathlib writes it) is worked with as
text, as pathlib would; pathlib loads for any other (see preflight.py's plain_path).
"""

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
            from pathlib import Path

            return Path(candidate).expanduser()
    return None


class Where:
    """A notebook's plan: the store (a path or URL) and the session (None: the store's
    current one), each with the template it was filled from and where that came from
    (`setting`, `environment` or `default`)."""

    __slots__ = (
        "database",
        "session",
        "database_from",
        "session_from",
        "database_template",
        "session_template",
        "_notebook",
    )
    _FIELDS = __slots__[:-1]

    def __init__(
        self,
        database: str,
        session: str | None,
        database_from: str,
        session_from: str,
        database_template: str,
        session_template: str,
        notebook: str | os.PathLike | None,
    ) -> None:
        self.database, self.session = database, session
        self.database_from, self.session_from = database_from, session_from
        self.database_template, self.session_template = database_template, session_template
        self._notebook = None if notebook is None else os.fspath(notebook)

    @property
    def notebook(self) -> Path | None:
        """The notebook, absolute; None for a plan named by --db alone."""
        if self._notebook is None:
            return None
        from pathlib import Path

        return Path(self._notebook)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Where):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in self.__slots__))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"Where({shown}, notebook={self.notebook!r})"

    @property
    def beside(self) -> bool:
        """Whether the store is the plan file beside the notebook (the default's place)."""
        if self._notebook is None or "://" in self.database:
            return False
        from pathlib import Path

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
    path = None if notebook is None else os.fspath(notebook)
    if path is not None and not plain_path(path):
        from pathlib import Path

        absolute = Path(path).expanduser()
        path = str(absolute if absolute.is_absolute() else (cwd or Path.cwd()) / absolute)
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
    notebook: str | os.PathLike | None,
    cwd: str | os.PathLike | None = None,
    root: str | os.PathLike | None = None,
    environ: Any = None,
) -> dict[str, str]:
    """What a template may use: {notebook_dir}, {notebook_stem}, {notebook_name}, {home},
    {notebook_path} and {user}. Paths are as pathlib writes them."""
    environ = os.environ if environ is None else environ
    text = None if notebook is None else os.fspath(notebook)
    folder = os.fspath(cwd) if cwd is not None else os.getcwd()
    if text is not None and not os.path.isabs(text):
        text = os.path.join(folder, text)
    home = os.path.expanduser("~")
    if not all(plain_path(t) for t in (folder, home, text or folder)):
        from pathlib import Path

        folder, home = str(Path(folder)), str(Path(home))
        text = None if text is None else str(Path(text))
    name = os.path.basename(text) if text else ""
    return {
        "notebook_dir": os.path.dirname(text) if text else folder,
        "notebook_stem": _stem(name) if text else UNNAMED_STEM,
        "notebook_name": name,
        "home": home,
        "notebook_path": _relative(text, root) if text else "",
        "user": environ.get("JUPYTERHUB_USER") or _os_user(),
    }


def _stem(name: str) -> str:
    """pathlib's stem: a name without its last suffix (".ipynb" and "a." have none)."""
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def _relative(notebook: str, root: str | os.PathLike | None) -> str:
    """The notebook's path from the server's root, with / between names; absolute where no
    root is known or the notebook is outside it."""
    absolute = os.path.normpath(notebook)
    if root is None:
        return absolute
    base = os.path.normpath(os.path.join(os.getcwd(), os.fspath(root)))
    if absolute.startswith("//") or base.startswith("//"):  # pathlib's root of two slashes
        from pathlib import Path

        try:
            return Path(absolute).relative_to(Path(base)).as_posix()
        except ValueError:
            return Path(absolute).as_posix()
    if absolute == base:
        return "."
    prefix = base.rstrip("/") + "/"
    return absolute[len(prefix) :] if absolute.startswith(prefix) else absolute


def _os_user() -> str:
    """getpass.getuser(), without the module (it loads contextlib and termios for a password
    prompt): the environment's LOGNAME, USER, LNAME or USERNAME, else the uid's name; "" for
    a uid with no name."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        if os.environ.get(name):
            return os.environ[name]
    try:
        import pwd

        return pwd.getpwuid(os.getuid())[0]
    except Exception:  # noqa: BLE001 - no user entry for this uid, or no pwd module
        return ""


def plan_database(
    template: str, notebook: str | os.PathLike | None, cwd: str | os.PathLike | None = None
) -> str:
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
