"""Where the server finds a notebook's plan (DESIGN sections 6.6 and 16): a notebook's path
checked against the server root, its (database, session) from the server's templates, and one
open store per plan file or database. A plan file beside its notebook is made on a first
decision, as by a kernel; a database configured elsewhere is never made, nor a session in it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from tornado import web

from ..plan.validation import quote
from ..session import PlanSession, PlanStore
from ..store.following import follow
from ..store.locate import Where, plan_file, resolve


class Forbidden(web.HTTPError):
    def __init__(self, message: str) -> None:
        super().__init__(403, reason="Forbidden", log_message=message)
        self.message = message


class NotFound(web.HTTPError):
    def __init__(self, message: str) -> None:
        super().__init__(404, reason="Not Found", log_message=message)
        self.message = message


@dataclass(frozen=True)
class Place:
    """A notebook of the server root and where its plan is."""

    notebook: Path
    where: Where

    @property
    def plan(self) -> Path | None:
        """The plan file beside the notebook, where the plan is kept there."""
        return plan_file(self.notebook) if self.where.beside else None


class PlanFiles:
    """Finds a notebook's plan, and keeps one store per plan file or database."""

    def __init__(
        self, root_dir: str, database: str | None = None, session_id: str | None = None
    ) -> None:
        self.root = Path(root_dir).resolve()
        self.templates = (database, session_id)  # the server's own settings, None where unset
        self._stores: dict[Path | str, PlanStore] = {}
        self._followed: list[PlanStore] = []
        self._lock = threading.Lock()

    def resolve(self, notebook: Path) -> Where:
        """The plan of a notebook of this server (an absolute path), as every surface finds it."""
        database, session_id = self.templates
        names = ("c.JupyterPlansApp.database", "c.JupyterPlansApp.session_id")
        return resolve(notebook, database, session_id, names=names, root=self.root)

    def locate(self, notebook: str | None) -> Place:
        """The place of a path relative to the root; refused if it leaves the root, and 400 for
        a path no file system takes (too long, a NUL byte)."""
        if not notebook or not notebook.strip():
            raise web.HTTPError(400, reason="path is required: the notebook's path")
        try:
            return self._locate(notebook)
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise web.HTTPError(
                400, reason=f"path {quote(notebook)} is not a notebook's path here: {reason}"
            ) from None

    def _locate(self, notebook: str) -> Place:
        relative = Path(notebook.lstrip("/"))
        if relative.is_absolute() or ".." in relative.parts:
            raise Forbidden(f"path {quote(notebook)} leaves the server root")
        path = self.root / relative
        plan = plan_file(path)
        for candidate in (path, plan):
            if candidate.is_symlink():
                raise Forbidden(f"{candidate.name} is a symbolic link; plan files must be regular")
        if path.parent.exists() and not path.parent.resolve().is_relative_to(self.root):
            raise Forbidden(f"path {quote(notebook)} leaves the server root")
        place = Place(path, self.resolve(path))
        if place.where.beside and not path.exists() and not plan.exists():
            raise NotFound(f"neither {quote(notebook)} nor its plan file exists")
        return place

    def store(self, place: Place, create: bool) -> PlanStore | None:
        """The open store of `place`'s plan; None when it does not exist and may not be made.
        A plan file beside the notebook is opened as a kernel opens it (store/records.py):
        refused when it is another notebook's plan, still there, and recorded as the notebook's.

        A store kept open follows the file at its path (deleted, replaced) by itself; it is
        asked to look first so that a file put there which is no plan file is refused as at
        opening (PlanStoreError), not in the middle of an answer.
        """
        if not place.where.beside:
            return self._shared(place.where.database)
        notebook, plan = place.notebook, place.plan
        with self._lock:
            store = self._stores.get(plan)
            if store is not None and store.path != plan:
                # It followed its notebook elsewhere (a rename); streams that have it go on,
                # and it is closed with the others.
                self._followed.append(self._stores.pop(plan))
                store = None
            if store is None:
                if not plan.exists() and not create:
                    return None
                follow.before_open(notebook, str(plan))
                store = self._stores[plan] = PlanStore(plan)
                if notebook.is_file():
                    follow.claim(store, notebook)
                return store
        store.check_file()
        return store

    def _shared(self, database: str) -> PlanStore | None:
        """The store of a database configured elsewhere than beside the notebook (a team's
        PostgreSQL, a file of its own); None for a plan file that does not exist yet."""
        with self._lock:
            store = self._stores.get(database)
            if store is None:
                if "://" not in database and not Path(database).expanduser().exists():
                    return None
                store = self._stores[database] = PlanStore(database)
        store.check_file()
        return store

    def session(
        self, place: Place, requested: str | None, create: bool = False, must_exist: bool = True
    ) -> PlanSession | None:
        """The session asked for (else the notebook's, else the store's current one); None
        where there is no plan file beside the notebook yet (`create` makes it). In a database
        configured elsewhere nothing is made: a session that is not there is NotFound, naming
        it and the database (its password hidden), unless not `must_exist` (then None where
        the database is not there either)."""
        store = self.store(place, create)
        sid = requested or place.where.session
        if store is None:
            if place.where.beside or not must_exist:
                return None
            raise NotFound(_missing(sid, place.where))
        session = store.session(sid)
        if must_exist and not place.where.beside and not session.exists():
            raise NotFound(_missing(session.session_id, place.where))
        return session

    def close(self) -> None:
        with self._lock:
            stores, self._stores = [*self._stores.values(), *self._followed], {}
            self._followed = []
        for store in stores:
            store.close()


def _missing(session_id: str | None, where: Where) -> str:
    if session_id is None:
        return f"there is no plan in {where.shown()}"
    return f"there is no plan session {quote(session_id)} in {where.shown()}"
