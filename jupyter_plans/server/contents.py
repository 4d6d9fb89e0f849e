"""The plan follows its notebook through Jupyter's contents service (DESIGN section 11): a rename
or move takes the plan file along, a copy (Duplicate, copy and paste, Save As) gets its own copy,
and a delete sends the plan file where the notebook went.

Jupyter Server tells of these in events, but an event's listeners run after the request has
been answered; so the contents manager's own rename, copy and delete are wrapped, and the plan
file has followed before the person (or a script) hears that the notebook did.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import PlanStoreError
from ..store.following import follow
from ..store.locate import SUFFIX, plan_file
from . import shared
from .files import PlanFiles

_log = logging.getLogger("jupyter_plans")

# A plan file's companions while it is open: SQLite's, not the person's.
NOTEBOOK = ".ipynb"  # the files plans belong to; a script of the same stem has none
HIDDEN = ("*" + SUFFIX + "-wal", "*" + SUFFIX + "-shm")


def follow_contents(serverapp: Any, files: PlanFiles) -> None:
    """Make the server's contents manager take plans along: plan files beside notebooks, and
    sessions named after notebooks in a database of their own (shared.py); nothing where its
    files are not a folder on this machine (a manager of another kind has no plans there)."""
    manager = serverapp.contents_manager
    root = getattr(manager, "root_dir", None)
    if not root or not hasattr(manager, "_get_os_path"):
        serverapp.log.info("jupyter_plans: plan files do not follow notebooks in %r", manager)
        return
    manager.hide_globs = [*manager.hide_globs, *(g for g in HIDDEN if g not in manager.hide_globs)]
    where = functools.partial(_os_path, Path(root))
    wrap = functools.partial(_wrap, manager, _OneAtATime())
    wrap("rename", lambda _made, old, new, *_a, **_k: _renamed(files, where(old), where(new)))
    wrap("copy", lambda made, source, *_a, **_k: _copied(files, where(source), made, where))
    wrap("delete", lambda _made, path, *_a, **_k: _deleted(files, where(path), manager))
    sessions = getattr(serverapp, "session_manager", None)
    if sessions is not None and inspect.iscoroutinefunction(sessions.update_session):
        _follow_save_as(sessions, where, files)
        if inspect.iscoroutinefunction(manager.rename):
            _move_sessions(manager, sessions)


def _os_path(root: Path, path: str) -> Path:
    return root / path.strip("/")


class _OneAtATime:
    """The asynchronous manager's renames, copies and deletes, each with its plan file's part,
    one at a time: a rename back sent as soon as the first rename's notebook is in place
    (a -> b -> a) would otherwise move the notebook back before the plan file went to b, and
    the plan would then follow the notebook to b, where no notebook is."""

    def __init__(self) -> None:
        self._lock: asyncio.Lock | None = None

    @property
    def lock(self) -> asyncio.Lock:
        if self._lock is None:  # made in the server's event loop, on first use
            self._lock = asyncio.Lock()
        return self._lock


def _wrap(manager: Any, one_at_a_time: _OneAtATime, name: str, after) -> None:
    """Run `after` (blocking, on a thread where the manager is asynchronous) once the
    manager's `name` has succeeded; what it cannot do is logged, and the notebook's own
    operation stands. An asynchronous manager's operation and its `after` run under
    `one_at_a_time`'s lock (a synchronous manager's run one at a time by themselves)."""
    original = getattr(manager, name)

    def run_after(args, kwargs, result) -> None:
        try:
            after(result, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the notebook's operation stands, whatever this was
            _log.error(
                "jupyter_plans: the plan did not follow the notebook's %s: %s",
                name,
                _one_line(exc),
            )

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def wrapped(*args, **kwargs):
            async with one_at_a_time.lock:
                result = await original(*args, **kwargs)
                await asyncio.to_thread(run_after, args, kwargs, result)
            return result

    else:

        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            result = original(*args, **kwargs)
            run_after(args, kwargs, result)
            return result

    setattr(manager, name, wrapped)


def _renamed(files: PlanFiles, old: Path, new: Path) -> None:
    """A notebook's plan follows it when it is renamed to a notebook's name; to any other name
    (a script, a text file of the same stem) it stays as it is."""
    if new.is_dir():
        follow.mark_moved_folder(new)  # its plan files went with it; open stores learn where
        shared.folder_renamed(files, old, new)
        return
    if old.suffix != NOTEBOOK or new.suffix != NOTEBOOK:
        return
    if files.resolve(new).beside:
        _file_renamed(old, new)
    shared.renamed(files, old, new)


def _file_renamed(old: Path, new: Path) -> None:
    """The plan file beside the notebook goes with it. Where the new plan name is taken,
    nothing there is touched: the plan stays, recording that it is the renamed notebook's."""
    if plan_file(old) == plan_file(new):
        return
    try:
        if follow.home(old, new) is not None:
            _log.info("jupyter_plans: %s is the plan of %s again", plan_file(new).name, new.name)
            return
        moved = follow.move(old, new)
    except (PlanStoreError, OSError, UnicodeError) as exc:
        stayed = follow.stay(old, new)
        if stayed is None:
            raise
        _log.warning(
            "jupyter_plans: %s stays where it is (%s); once that is solved, take it along "
            "with: jupyter-plans move %s %s",
            stayed,
            _one_line(exc),
            _quoted(old),
            _quoted(new),
        )
        return
    if moved is not None:
        _log.info("jupyter_plans: %s followed its notebook to %s", plan_file(old), moved)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.encode("utf-8", "backslashreplace").decode()


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path).encode("utf-8", "backslashreplace").decode())


def _copied(files: PlanFiles, source: Path, made: Any, where) -> None:
    if isinstance(made, dict) and made.get("type") == "notebook" and made.get("path"):
        _copy(files, source, where(made["path"]))


def _copy(files: PlanFiles, source: Path, copy: Path) -> None:
    if files.resolve(copy).beside:
        follow.copy(source, copy)
    shared.copied(files, source, copy)


def _deleted(files: PlanFiles, path: Path, manager: Any) -> None:
    if path.suffix == NOTEBOOK and not path.exists() and not shared.deleted(files, path):
        follow.discard(path, to_trash=bool(getattr(manager, "delete_to_trash", True)))


def _follow_save_as(sessions: Any, where, files: PlanFiles) -> None:
    """Save As writes the notebook under its new name and then moves the kernel's session
    there: if the notebook is still at the old name, the new one is a copy, with a copy of
    the plan. (After a rename the old name is gone and its plan moved already.)"""
    original = sessions.update_session

    @functools.wraps(original)
    async def update_session(session_id, **kwargs):
        before = None
        if kwargs.get("path"):
            found = await sessions.get_session(session_id=session_id)
            before = found.get("path") if found else None
        result = await original(session_id, **kwargs)
        if before and before != kwargs["path"]:
            old, new = where(before), where(kwargs["path"])
            # Save As wrote the new notebook first; a session moved to a name where there is
            # no notebook (a late update of a renamed notebook's session) gets no copy.
            if old.suffix == NOTEBOOK and old.is_file() and new.is_file():
                try:
                    await asyncio.to_thread(_copy, files, old, new)
                except (PlanStoreError, OSError) as exc:
                    _log.error("jupyter_plans: the copy saved as %s has no plan: %s", new, exc)
        return result

    sessions.update_session = update_session


def _move_sessions(manager: Any, sessions: Any) -> None:
    """A notebook renamed through the REST API alone keeps its kernel: the kernel's session
    moves with it, as JupyterLab moves it, so that a restarted kernel opens the plan under
    the new name (the server gives a kernel its notebook's path when it starts)."""
    rename = manager.rename

    @functools.wraps(rename)
    async def renamed(old_path, new_path, *args, **kwargs):
        result = await rename(old_path, new_path, *args, **kwargs)
        try:
            old, new = old_path.strip("/"), new_path.strip("/")
            for found in await sessions.list_sessions():
                if found.get("path") == old:
                    # The kernel's notebook path is made from the session's name (JupyterLab
                    # names a session after its file, and renames it with the file).
                    named = found.get("name") == PurePosixPath(old).name
                    extra = {"name": PurePosixPath(new).name} if named else {}
                    await sessions.update_session(found["id"], path=new, **extra)
        except Exception as exc:  # noqa: BLE001 - the rename stands; the kernel keeps its path
            _log.warning("jupyter_plans: the kernel's session kept the old path: %s", exc)
        return result

    manager.rename = renamed
