"""The Jupyter Server extension, `JupyterPlansApp`: its settings (where the plans are, DESIGN
section 16), the routes of DESIGN section 6.6 on their handlers, the contents manager taking
plans along, and the kernels and terminals it starts told the same settings."""

from __future__ import annotations

import os

from jupyter_server.extension.application import ExtensionApp
from traitlets import Unicode

from ..store.locate import DATABASE_ENV, ROOT_ENV, SESSION_ENV
from .comment_route import CommentHandler
from .contents import follow_contents
from .files import PlanFiles
from .handlers import CardHandler, DecisionHandler, EventsHandler, SessionsHandler, SnapshotHandler

# The routes, under the server's base URL.
HANDLERS = [
    ("api/plans/sessions", SessionsHandler),
    ("api/plans/snapshot", SnapshotHandler),
    ("api/plans/card", CardHandler),
    ("api/plans/events", EventsHandler),
    ("api/plans/decision", DecisionHandler),
    ("api/plans/comment", CommentHandler),
]


class JupyterPlansApp(ExtensionApp):
    """The plan routes and the Plan panel's server side; c.JupyterPlansApp.* in
    jupyter_server_config.py, or --JupyterPlansApp.database=... on the command line."""

    name = "jupyter_plans"
    load_other_extensions = True

    database = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Where the notebooks' plans are kept: a path or a SQLAlchemy URL (PostgreSQL for a "
        "team), a template of {notebook_dir}, {notebook_stem}, {notebook_name}, {notebook_path} "
        "(from the server's root), {home} and {user}. Unset: $JUPYTER_PLANS_DATABASE, else a "
        "plan file beside each notebook ({notebook_dir}/{notebook_stem}.plans.sqlite). Kernels "
        "started by this server are given it as $JUPYTER_PLANS_DATABASE.",
    )
    session_id = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The plan session of a notebook, a template of the same fields: {notebook_path} "
        "gives each notebook its own session in a shared database. Unset: "
        "$JUPYTER_PLANS_SESSION_ID, else the database's current session. Kernels started by "
        "this server are given it as $JUPYTER_PLANS_SESSION_ID.",
    )

    def initialize_settings(self) -> None:
        root = os.fspath(self.serverapp.root_dir)
        files = PlanFiles(root, self.database, self.session_id)
        self.settings["jupyter_plans_files"] = files
        self._exported = self._export(root)
        follow_contents(self.serverapp, files)
        where = files.resolve(files.root / "NOTEBOOK.ipynb")
        self.log.info(
            "jupyter_plans: plans in %s (from the %s), session %s (from the %s)",
            where.database_template if where.beside else where.shown(),
            where.database_from,
            where.session_template or "current",
            where.session_from,
        )

    def initialize_handlers(self) -> None:
        self.handlers.extend(HANDLERS)

    def _export(self, root: str) -> dict[str, str | None]:
        """Give the kernels and terminals this server starts (they inherit its environment)
        the same templates and root, so that every surface finds the same plan; a kernel
        spec's own environment still wins. Returns what was there before, for stop_extension."""
        given = {DATABASE_ENV: self.database, SESSION_ENV: self.session_id, ROOT_ENV: root}
        before = {}
        for variable, value in given.items():
            if value is None:
                continue
            before[variable] = os.environ.get(variable)
            os.environ[variable] = value
        return before

    async def stop_extension(self) -> None:
        files = self.settings.get("jupyter_plans_files")
        if files is not None:
            files.close()
        for variable, value in getattr(self, "_exported", {}).items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value
