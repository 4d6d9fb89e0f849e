"""The plan follows its notebook (DESIGN section 11): a plan file records the notebook it belongs
to, and is moved, copied and sent to the trash with it.

Renaming an open SQLite file is not safe: its -wal holds recent commits, and a store that has it
open would go on writing to a file nobody reads any more. So a move takes the old file's write
lock, copies the file through SQLite's backup into a file made beside the new one, renames that
into place, commits in the old file a marker naming the new one, and removes the old file. A
store that has the old file open reads the marker in each write transaction, and whenever its
path no longer names its file, and opens the new one (see Store._on_file).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from ..errors import PlanStoreError
from .guards import add_former
from .locate import SUFFIX, plan_file
from .preflight import moved_to
from .sqlite import BUSY_TIMEOUT_MS, SIDE_FILES, check_plan_file, file_identity, reading_uri

NOTEBOOK_KEY = "notebook"  # the notebook's path, relative to the plan file's folder
MOVED_KEY = "moved_to"  # in a file that was moved: the new file's absolute path; "" for the trash
RENAMED_KEY = "renamed_to"  # in a file whose folder was renamed: its own new path
MAX_RECORDED = 1000  # characters of a recorded notebook path
_READ = "SELECT value FROM plans_settings WHERE key = ?"
_WRITE = (
    "INSERT INTO plans_settings (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def recorded_notebook(plan: Path) -> str | None:
    """The notebook a plan file says it belongs to (relative to its folder); None if it says
    none, or cannot be read."""
    if plan.is_symlink() or not plan.is_file():  # a pipe would hold the open forever
        return None
    try:
        connection = sqlite3.connect(reading_uri(plan), uri=True)
    except sqlite3.Error:
        return None
    try:
        row = connection.execute(_READ, (NOTEBOOK_KEY,)).fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    name = None if row is None else row[0]
    # What another program wrote there is taken only as a notebook's name beside the file.
    if not isinstance(name, str) or not 0 < len(name) <= MAX_RECORDED or _unprintable(name):
        return None
    return None if os.path.isabs(name) else name


def _unprintable(text: str) -> bool:
    return any(not char.isprintable() for char in text)


def record(cursor, notebook: Path, plan: Path) -> None:
    """Write, in the caller's transaction, which notebook the plan file at `plan` belongs to."""
    cursor.execute(_WRITE, (NOTEBOOK_KEY, os.path.relpath(notebook, plan.parent)))


def owner(plan: Path) -> Path | None:
    """The notebook a plan file says it belongs to, as a path; None if it says none."""
    name = recorded_notebook(plan)
    return None if not name else (plan.parent / name)


def claimed_by_another(plan: Path, notebook: Path) -> Path | None:
    """The other notebook, still there, that `plan` says it belongs to; None when it is
    `notebook`'s (or nobody's, or its notebook is gone)."""
    recorded = owner(plan)
    if recorded is None or _same(recorded, notebook) or not recorded.exists():
        return None
    return recorded


def orphans(notebook: Path) -> list[Path]:
    """Plan files in `notebook`'s folder that say they belong to a notebook that is gone (left
    behind by a rename outside Jupyter); only asked when `notebook` has no plan file."""
    found = []
    with contextlib.suppress(OSError):
        for plan in sorted(notebook.parent.glob("*" + SUFFIX)):
            recorded = owner(plan)
            if recorded is not None and not recorded.exists() and not _same(recorded, notebook):
                found.append(plan)
    return found


def _same(a: Path, b: Path) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


# A notebook opening its plan.


def before_open(notebook: Path | None, plan: str) -> str | None:
    """Before a notebook's plan file is opened (by the kernel, the server, an agent started with
    --notebook): refuse, in one line, a plan file that says it is another notebook's, still
    there; where there is no plan file, say in one line (returned) which plan file beside it
    was left by a notebook renamed outside Jupyter, and how to take it along. Nothing is
    adopted. Only the plan file beside the notebook (the default) is looked at."""
    if notebook is None or Path(plan) != plan_file(notebook):
        return None
    plan_path = Path(plan)
    if plan_path.exists():
        other = claimed_by_another(plan_path, notebook)
        if other is not None:
            raise PlanStoreError(
                f"{plan_path.name} is the plan of {other.name}, which is still there, not of "
                f"{notebook.name}: it is not taken over; remove or rename {plan_path.name} to "
                f"start {notebook.name}'s own plan"
            )
        return None
    left = orphans(notebook)
    if not left:
        return None
    found = left[0]
    gone = owner(found)
    more = f" (and {len(left) - 1} more)" if len(left) > 1 else ""
    return (
        f"{notebook.name} has no plan file, but {found.name}{more} beside it is the plan of "
        f"{gone.name if gone else '?'}, which is gone; if that was this notebook, take its plan "
        f"along with: jupyter-plans move {_shell(gone)} {_shell(notebook)}"
    )


def open_for(notebook: Path | None, where: str, opener, speaker: str):
    """`opener(where)`, the plan store of `notebook`, after the look of before_open (its notice
    is said on stderr by `speaker`), recorded as that notebook's."""
    notebook = None if notebook is None else notebook.absolute()
    notice = before_open(notebook, where)
    store = opener(where)
    claim(store, notebook)
    if notice:
        print(f"{speaker}: {notice}", file=sys.stderr)
    return store


def claim(store, notebook: Path | None) -> None:
    """Record in the plan file beside `notebook` that it is that notebook's, once."""
    if notebook is None or store.path is None or store.path != plan_file(notebook):
        return
    name = os.path.relpath(notebook, store.path.parent)
    with contextlib.suppress(PlanStoreError):  # a plan file this process cannot write
        with store.read() as tx:
            if tx.scalar("SELECT_SETTING", {"key": NOTEBOOK_KEY}) is not None:
                return
        with store.write() as tx:
            if tx.scalar("SELECT_SETTING", {"key": NOTEBOOK_KEY}) is None:
                tx.execute("UPSERT_SETTING", {"key": NOTEBOOK_KEY, "value": name})


def notebook_of(store, notebook: Path | None) -> Path | None:
    """The notebook whose plan `store` has open now: after its plan file moved with it, the one
    the file names; else `notebook`."""
    if notebook is None or not getattr(store, "moves", 0) or store.path is None:
        return notebook
    with contextlib.suppress(PlanStoreError):
        with store.read() as tx:
            name = tx.scalar("SELECT_SETTING", {"key": NOTEBOOK_KEY})
        if name:
            return Path(os.path.normpath(store.path.parent / name))
    return notebook


def _shell(path: Path | None) -> str:
    import shlex

    return shlex.quote(os.path.relpath(path)) if path is not None else "OLD.ipynb"


# Moving, copying and discarding.


def move(old_notebook: Path, new_notebook: Path, *, replace_stale: bool = False) -> Path | None:
    """Move `old_notebook`'s plan file to `new_notebook`'s; the new plan file, or None when the
    old notebook has none. A plan file at the new name is refused, unless `replace_stale` (the
    notebook was renamed already, so that file is left by another notebook gone since): it goes
    to the trash first."""
    return _transfer(old_notebook, new_notebook, keep=False, replace_stale=replace_stale)


def copy(notebook: Path, copy_notebook: Path) -> Path | None:
    """Give `copy_notebook` its own copy of `notebook`'s plan file (same sessions and history);
    None when `notebook` has none, or the copy has one already."""
    if plan_file(copy_notebook).exists():
        return None
    return _transfer(notebook, copy_notebook, keep=True, replace_stale=False)


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
                _backup(reader, holder / plan.name)
                _trash(holder / plan.name)
            finally:
                for leftover in holder.iterdir():
                    leftover.unlink()
                holder.rmdir()
        writer.execute(_WRITE, (MOVED_KEY, ""))
        _remove(plan, sides)
        writer.execute("COMMIT")
    return plan


def mark_moved_folder(folder: Path) -> None:
    """After a folder was renamed: each plan file in it names where it is now, so that a store
    which had it open under the old folder finds it (its own file, under the new name)."""
    for plan in folder.rglob("*" + SUFFIX):
        if plan.is_file() and not plan.is_symlink():
            with contextlib.suppress(PlanStoreError, sqlite3.Error), _locked(plan) as (w, _r, _s):
                w.execute(_WRITE, (RENAMED_KEY, str(plan.absolute())))
                w.execute("COMMIT")


def _transfer(source_nb: Path, target_nb: Path, *, keep: bool, replace_stale: bool) -> Path | None:
    source, target = plan_file(source_nb), plan_file(target_nb)
    if source.is_symlink():
        raise PlanStoreError(f"{source} is a symbolic link; a plan file must be a regular file")
    if not source.is_file():
        return None
    other = claimed_by_another(source, source_nb)
    if other is not None:
        raise PlanStoreError(
            f"{source.name} is the plan of {other.name}, which is still there; it was not "
            f"{'copied' if keep else 'moved'} to {target.name}"
        )
    if target.exists() or target.is_symlink():
        if not replace_stale:
            raise PlanStoreError(f"{target} exists already; move it away first (nothing was moved)")
        _trash(target)
    with _locked(source) as (writer, reader, sides):
        handle, made = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(handle)  # an empty file: SQLite's backup makes a database of it
        made = Path(made)
        try:
            _backup(reader, made)
            _own(made, target_nb, target, renamed_from=None if keep else source_nb)
            os.replace(made, target)
            _sync_folder(target.parent)
        finally:
            for leftover in (made, *(Path(str(made) + s) for s in SIDE_FILES)):
                leftover.unlink(missing_ok=True)
        if not keep:
            writer.execute(_WRITE, (MOVED_KEY, str(target.absolute())))
            writer.execute("COMMIT")  # a store that waited for the lock sees the marker
            _remove(source, sides)
    return target


@contextlib.contextmanager
def _locked(plan: Path):
    """The plan file's write lock, held by one connection (which the caller commits in), and a
    second connection that reads it (SQLite's backup cannot read through the writer's)."""
    check_plan_file(plan)
    try:
        writer = sqlite3.connect(str(plan), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot open {plan}: {exc}") from None
    reader = None
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        sides = [file_identity(str(plan) + suffix) for suffix in SIDE_FILES]
        writer.execute("BEGIN IMMEDIATE")
        went = moved_to(writer)
        if went is not None:
            raise PlanStoreError(f"{plan} was moved already (to {went or 'the trash'})")
        reader = sqlite3.connect(str(plan), isolation_level=None)
        yield writer, reader, sides
    except sqlite3.Error as exc:
        raise PlanStoreError(f"cannot move {plan}: {exc}") from None
    finally:
        if reader is not None:
            reader.close()
        if writer.in_transaction:
            writer.execute("ROLLBACK")
        writer.close()


def _backup(reader: sqlite3.Connection, target: Path) -> None:
    made = sqlite3.connect(str(target))
    try:
        reader.backup(made)
    finally:
        made.close()


def _own(made: Path, notebook: Path, plan: Path, renamed_from: Path | None) -> None:
    """The copy records its notebook, names no move, and keeps what the notebook's person saw."""
    connection = sqlite3.connect(str(made), isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "DELETE FROM plans_settings WHERE key IN (?, ?)", (MOVED_KEY, RENAMED_KEY)
        )
        record(connection, notebook, plan)
        if renamed_from is not None:
            add_former(connection, renamed_from, plan)  # a hook of the old name follows it
            connection.execute(
                "UPDATE plans_seen SET notebook = ? WHERE notebook = ?",
                (notebook.name, renamed_from.name),
            )
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    with open(made, "rb+") as file:
        os.fsync(file.fileno())


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
