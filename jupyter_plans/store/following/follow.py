"""The plan follows its notebook (DESIGN section 11): a plan file records the notebook it belongs
to, and is moved, copied and sent to the trash with it, touching nothing else.

Renaming an open SQLite file is not safe: its -wal holds recent commits, and a store that has it
open would go on writing to a file nobody reads any more. So a move takes the old file's write
lock, copies the file through SQLite's backup into a file made beside the new one, puts that in
place under the new name (never over anything there), commits in the old file a marker naming
the new one with the move's token, and removes the old file. A store that has the old file open
reads the marker in each write transaction, and whenever its path no longer names its file, and
opens the new one once it records that very move (see marker.py and tracking.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import sqlite3
import tempfile
import time
from pathlib import Path

from ...errors import PlanStoreError
from ..compiled import run_sqlite, set_setting
from ..keys import HOPS_KEY, LEFT_KEY, MOVED_KEY, NOTEBOOK_KEY, RENAMED_KEY, TAKEN_KEY, TOKEN_KEY
from ..locate import SUFFIX, plan_file
from ..opener import SIDE_FILES, backup, sync_unplaced, writing
from ..preflight import check_plan_file, file_identity
from ..sqlite import BUSY_TIMEOUT_MS
from . import marker
from .former import add_former
from .records import (  # what a notebook opening its plan uses is there, and named here
    before_open,
    claim,
    claimed_by_another,
    identity_text,
    notebook_of,
    open_for,
    orphans,
    owner,
    record,
    recorded,
    same,
    stored_name,
)

__all__ = [
    "before_open",
    "claim",
    "claimed_by_another",
    "notebook_of",
    "open_for",
    "orphans",
    "owner",
    "record",
    "recorded_notebook",
]


def recorded_notebook(plan: Path) -> str | None:
    """The notebook a plan file says it belongs to (relative to its folder); None if it says
    none, or cannot be read."""
    return recorded(plan)


# Moving, copying and discarding.


def move(old_notebook: Path, new_notebook: Path) -> Path | None:
    """Move `old_notebook`'s plan file to `new_notebook`'s; the new plan file, or None when the
    old notebook has none. Refused (nothing moved) when the new plan name is taken, whatever
    holds it, or the old plan file is not the old notebook's."""
    return _transfer(old_notebook, new_notebook, keep=False)


def copy(notebook: Path, copy_notebook: Path) -> Path | None:
    """Give `copy_notebook` its own copy of `notebook`'s plan file (same sessions and history);
    None when `notebook` has none, or the copy's plan name is taken."""
    if os.path.lexists(plan_file(copy_notebook)):
        return None
    return _transfer(notebook, copy_notebook, keep=True)


def stay(old_notebook: Path, new_notebook: Path) -> Path | None:
    """When `old_notebook`'s plan file could not follow it to `new_notebook`: record in the plan
    file, which stays where it is, that it is now `new_notebook`'s (so that a new notebook of
    the old name does not take it over) and was left behind by it (so that `new_notebook`'s
    next load says where its plan is). The plan file, or None when it is not the old
    notebook's to record in."""
    plan = plan_file(old_notebook)
    if plan.is_symlink() or not plan.is_file():
        return None
    if claimed_by_another(plan, old_notebook, new_notebook) is not None:
        return None
    with _locked(plan) as (writer, _reader, _sides):
        name = stored_name(new_notebook, plan)
        set_setting(writer, NOTEBOOK_KEY, name)
        set_setting(writer, LEFT_KEY, name)
        set_setting(writer, TAKEN_KEY, identity_text(plan_file(new_notebook)) or "")
        writer.execute("COMMIT")
    return plan


def home(old_notebook: Path, new_notebook: Path) -> Path | None:
    """A notebook renamed to the name of a plan file that records it (left behind when it took
    another name): that plan file is its own again. The plan file, or None."""
    plan = plan_file(new_notebook)
    found = owner(plan) if plan.is_file() and not plan.is_symlink() else None
    if found is None or not same(found, old_notebook):
        return None
    with _locked(plan) as (writer, _reader, _sides):
        set_setting(writer, NOTEBOOK_KEY, stored_name(new_notebook, plan))
        run_sqlite(writer, "DELETE_LEFT_BEHIND")
        writer.execute("COMMIT")
    return plan


def discard(notebook: Path, to_trash: bool) -> Path | None:
    """Send a deleted notebook's plan file where the notebook went: to the trash (a copy made
    through SQLite's backup, so recent commits go too), or nowhere. Stores that have it open
    learn it is gone. Returns the plan file, or None when there was none to discard."""
    plan = plan_file(notebook)
    if not plan.is_file() or plan.is_symlink():
        return None
    if claimed_by_another(plan, notebook) is not None:
        return None
    with _locked(plan) as (writer, reader, sides):
        if to_trash:
            holder = Path(tempfile.mkdtemp(prefix=f".{plan.name}.", dir=plan.parent))
            try:
                backup(reader, holder / plan.name)
                _trash(holder / plan.name)
            finally:
                for leftover in holder.iterdir():
                    leftover.unlink()
                holder.rmdir()
        set_setting(writer, MOVED_KEY, "")
        _remove(plan, sides)
        writer.execute("COMMIT")
    return plan


def mark_moved_folder(folder: Path) -> None:
    """After a folder was renamed: each plan file in it names where it is now, so that a store
    which had it open under the old folder finds it (its own file, under the new name)."""
    for plan in folder.rglob("*" + SUFFIX):
        if plan.is_file() and not plan.is_symlink():
            with contextlib.suppress(PlanStoreError, sqlite3.Error), _locked(plan) as (w, _r, _s):
                set_setting(w, RENAMED_KEY, marker.stored_path(plan.absolute()))
                w.execute("COMMIT")


def _transfer(source_nb: Path, target_nb: Path, *, keep: bool) -> Path | None:
    source, target = plan_file(source_nb), plan_file(target_nb)
    if source.is_symlink():
        raise PlanStoreError(f"{source} is a symbolic link; a plan file must be a regular file")
    if not source.is_file():
        return None
    other = claimed_by_another(source, source_nb, target_nb)
    what = "copied" if keep else "moved"
    if other is not None:
        raise PlanStoreError(
            f"{source.name} is the plan of {other.name}, which is still there; it was not "
            f"{what} to {target.name}"
        )
    if same(source, target):
        raise PlanStoreError(f"{source.name} is already the plan file of {target_nb.name}")
    if os.path.lexists(target):
        raise PlanStoreError(f"{target} is taken; {source.name} was not {what}")
    with _locked(source) as (writer, reader, sides):
        # The move, as the new file records it: made from this file, now that it is locked.
        token, locked_at = secrets.token_hex(16), time.time()
        handle, made = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(handle)  # an empty file: SQLite's backup makes a database of it
        made = Path(made)
        try:
            backup(reader, made)
            hop = None if keep else marker.Hop(token, _identity(source), locked_at)
            _own(made, target_nb, target, renamed_from=None if keep else source_nb, hop=hop)
            _place(made, target, source)
            _sync_folder(target.parent)
        finally:
            for leftover in (made, *(Path(str(made) + s) for s in SIDE_FILES)):
                leftover.unlink(missing_ok=True)
        if not keep:
            set_setting(writer, MOVED_KEY, marker.stored_path(target.absolute()))
            set_setting(writer, TOKEN_KEY, token)
            writer.execute("COMMIT")  # a store that waited for the lock sees the marker
            _remove(source, sides)
    return target


def _place(made: Path, target: Path, source: Path) -> None:
    """Put the finished copy in place under `target`'s name, never over anything there."""
    try:
        os.link(made, target)
    except FileExistsError:
        raise PlanStoreError(f"{target} is taken; {source.name} was not moved") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if os.path.lexists(target):  # a file system without hard links: look, then rename
            raise PlanStoreError(f"{target} is taken; {source.name} was not moved") from None
        os.replace(made, target)


def _identity(path: Path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_dev, found.st_ino


@contextlib.contextmanager
def _locked(plan: Path):
    """The plan file's write lock, held by one connection (which the caller commits in), and a
    second connection that reads it (SQLite's backup cannot read through the writer's)."""
    check_plan_file(plan)
    try:
        writer = writing(plan, wait=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot open {plan}: {exc}") from None
    reader = None
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        sides = [file_identity(str(plan) + suffix) for suffix in SIDE_FILES]
        writer.execute("BEGIN IMMEDIATE")
        went = marker.read(writer)
        if went is not None:
            raise PlanStoreError(f"{plan} was moved already (to {went.target or 'the trash'})")
        reader = writing(plan)
        yield writer, reader, sides
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot move {plan}: {exc}") from None
    finally:
        if reader is not None:
            reader.close()
        if writer.in_transaction:
            writer.execute("ROLLBACK")
        writer.close()


def _own(made: Path, notebook: Path, plan: Path, renamed_from: Path | None, hop) -> None:
    """The copy records its notebook, names no move of its own, and keeps what the notebook's
    person saw; a moved file records the move that made it (`hop`), a copy none."""
    connection = writing(made)
    try:
        connection.execute("BEGIN IMMEDIATE")
        hops = marker.hops_of(connection)
        run_sqlite(connection, "DELETE_NOT_COPIED")
        if hop is not None:
            set_setting(connection, HOPS_KEY, marker.with_hop(hops, hop))
        record(connection, notebook, plan)
        if renamed_from is not None:
            with contextlib.suppress(UnicodeEncodeError):  # a name that is no text keeps none
                add_former(connection, renamed_from, plan)  # a hook of the old name follows it
                run_sqlite(
                    connection,
                    "RENAME_SEEN_NOTEBOOK_ALL",
                    {"old_notebook": renamed_from.name, "new_notebook": notebook.name},
                )
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    sync_unplaced(made)  # not yet at its name, and no connection has it open any more


def _remove(plan: Path, sides: list) -> None:
    """Unlink a plan file that moved, and its side files while they are still its own."""
    plan.unlink(missing_ok=True)
    for suffix, known in zip(SIDE_FILES, sides, strict=True):
        side = str(plan) + suffix
        if known is not None and file_identity(side) == known:
            with contextlib.suppress(OSError):
                os.unlink(side)


def _trash(path: Path) -> None:
    try:
        from send2trash import send2trash
    except ImportError:
        raise PlanStoreError(
            f"cannot send {path} to the trash: send2trash is not installed"
        ) from None
    try:
        send2trash(str(path))
    except OSError as exc:
        raise PlanStoreError(f"cannot send {path} to the trash: {exc}") from None


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
