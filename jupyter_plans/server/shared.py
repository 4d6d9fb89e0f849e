"""The plan follows its notebook in a database of its own (DESIGN section 16): where a notebook's
session id is made from its name or path ({notebook_path}, {notebook_stem}, {notebook_name}),
a rename or move through Jupyter gives the session the new id in one transaction with every row
that names it, a copy copies it under the copy's id, and a delete marks it deleted, dropping
nothing. Where the new id is taken, both stay as they are and one line is logged."""

from __future__ import annotations

import logging
from pathlib import Path

from ..errors import PlanStoreError
from ..plan.validation import quote
from ..store.locate import Where
from .files import Place, PlanFiles

_log = logging.getLogger("jupyter_plans")


def _store(files: PlanFiles, notebook: Path, where: Where):
    return files.store(Place(notebook, where), create=False)


def renamed(files: PlanFiles, old: Path, new: Path) -> None:
    """`old` (a notebook) is `new` now: its session takes the id `new` is given."""
    before, after = files.resolve(old), files.resolve(new)
    if not before.follows_name or before.session == after.session:
        return
    if not before.beside and before.database != after.database:
        _log.warning(
            "jupyter_plans: the plan session %s of %s stays in %s: the database is made from "
            "the notebook's path, and %s's is %s",
            quote(before.session),
            old.name,
            before.shown(),
            new.name,
            after.shown(),
        )
        return
    store = _store(files, new, after)  # a plan file beside the notebook moved with it first
    if store is None:
        return
    from ..store.following.session_moves import rename

    outcome = rename(store, before.session, after.session, str(new), (old.name, new.name))
    if outcome == "taken":
        _log.warning(
            "jupyter_plans: the plan session %s of %s keeps its id: %s is taken in %s; both "
            "stay as they are",
            quote(before.session),
            new.name,
            quote(after.session),
            after.shown(),
        )
    elif outcome == "moved":
        _log.info(
            "jupyter_plans: the plan session %s is %s now, with its notebook",
            quote(before.session),
            quote(after.session),
        )


def folder_renamed(files: PlanFiles, old: Path, new: Path) -> None:
    """A folder renamed or moved: each notebook in it was renamed."""
    if not files.resolve(new / "x.ipynb").follows_name:
        return
    for notebook in sorted(new.rglob("*.ipynb")):
        if notebook.is_file() and ".ipynb_checkpoints" not in notebook.parts:
            try:
                renamed(files, old / notebook.relative_to(new), notebook)
            except PlanStoreError as exc:
                _log.error("jupyter_plans: %s's plan session did not follow it: %s", notebook, exc)


def copied(files: PlanFiles, source: Path, copy: Path) -> None:
    """`copy` was made of the notebook `source`: it gets a copy of the session."""
    before, after = files.resolve(source), files.resolve(copy)
    if not before.follows_name or before.session == after.session:
        return
    if before.beside:  # the copy's own plan file was made first: its session takes the name
        store = _store(files, copy, after)
        if store is not None:
            from ..store.following.session_moves import rename

            rename(store, before.session, after.session, str(copy), (source.name, copy.name))
        return
    store = _store(files, source, before)
    if store is None or before.database != after.database:
        return
    from ..store.following.session_moves import copy as copy_session

    if copy_session(store, before.session, after.session) == "taken":
        _log.warning(
            "jupyter_plans: %s has no copy of the plan session %s: %s is taken in %s",
            copy.name,
            quote(before.session),
            quote(after.session),
            after.shown(),
        )


def deleted(files: PlanFiles, notebook: Path) -> bool:
    """A notebook deleted: its session, when it is the notebook's own, is marked deleted.
    False where its plan is the file beside it (the caller sends that where the notebook
    went)."""
    where = files.resolve(notebook)
    if where.beside:
        return False
    if where.follows_name and where.session is not None:
        store = _store(files, notebook, where)
        if store is not None:
            from ..store.following.session_moves import mark_deleted

            if mark_deleted(store, where.session):
                _log.info(
                    "jupyter_plans: the plan session %s is marked deleted", quote(where.session)
                )
    return True
