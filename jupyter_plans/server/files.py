"""The plan files the server may serve: a notebook's path checked against the server root, and
one open store per plan file."""

from __future__ import annotations

import threading
from pathlib import Path

from tornado import web

from ..plan.validation import quote
from ..session import PlanStore
from ..store import follow
from ..store.locate import plan_file


class Forbidden(web.HTTPError):
    def __init__(self, message: str) -> None:
        super().__init__(403, reason="Forbidden", log_message=message)
        self.message = message


class NotFound(web.HTTPError):
    def __init__(self, message: str) -> None:
        super().__init__(404, reason="Not Found", log_message=message)
        self.message = message


class PlanFiles:
    """Finds a notebook's plan file inside the server root, and keeps one store per file."""

    def __init__(self, root_dir: str) -> None:
        self.root = Path(root_dir).resolve()
        self._stores: dict[Path, PlanStore] = {}
        self._followed: list[PlanStore] = []
        self._lock = threading.Lock()

    def locate(self, notebook: str | None) -> tuple[Path, Path]:
        """(notebook, plan file) for a path relative to the root; refused if it leaves the root,
        and 400 for a path no file system takes (too long, a NUL byte)."""
        if not notebook or not notebook.strip():
            raise web.HTTPError(400, reason="path is required: the notebook's path")
        try:
            return self._locate(notebook)
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise web.HTTPError(
                400, reason=f"path {quote(notebook)} is not a notebook's path here: {reason}"
            ) from None

    def _locate(self, notebook: str) -> tuple[Path, Path]:
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
        if not path.exists() and not plan.exists():
            raise NotFound(f"neither {quote(notebook)} nor its plan file exists")
        return path, plan

    def store(self, notebook: Path, plan: Path, create: bool) -> PlanStore | None:
        """The open store of `notebook`'s plan file; None when it does not exist and may not be
        created. It is opened as a kernel opens it (store/records.py): refused when it is
        another notebook's plan, still there, and recorded as `notebook`'s, whoever made it.

        A store kept open follows the file at its path (deleted, replaced) by itself; it is
        asked to look first so that a file put there which is no plan file is refused as at
        opening (PlanStoreError), not in the middle of an answer.
        """
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

    def close(self) -> None:
        with self._lock:
            stores, self._stores = [*self._stores.values(), *self._followed], {}
        for store in stores:
            store.close()
