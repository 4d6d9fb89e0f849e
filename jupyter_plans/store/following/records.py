"""What a plan file records of the notebook it belongs to (DESIGN section 11), and what a notebook
opening its plan makes of it: the notebook's path relative to the file's folder, updated by
every move, and, in a plan file that could not follow its notebook (the new name was taken),
the notebook it was left behind by."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from pathlib import Path

from ...errors import PlanStoreError
from ..compiled import set_setting, setting
from ..keys import LEFT_KEY, NOTEBOOK_KEY, TAKEN_KEY
from ..locate import SUFFIX, plan_file
from ..opener import glance

MAX_RECORDED = 1000  # characters of a recorded notebook path


def stored_name(notebook: Path, plan: Path) -> str | bytes:
    """How a plan file at `plan` records `notebook`: its path relative to the file's folder, as
    text, or as the file system's bytes where it is no valid text (a name Jupyter took with
    bytes that are no UTF-8)."""
    name = os.path.relpath(notebook, plan.parent)
    try:
        name.encode()
    except UnicodeEncodeError:
        return os.fsencode(name)
    return name


def notebook_beside(plan: Path) -> Path | None:
    """The notebook a plan file is named after (`analysis.plans.sqlite`: `analysis.ipynb`), when
    it is there; None otherwise."""
    if not plan.name.endswith(SUFFIX) or plan.name == SUFFIX:
        return None
    notebook = plan.with_name(plan.name[: -len(SUFFIX)] + ".ipynb")
    try:
        return notebook if notebook.is_file() else None
    except (OSError, ValueError):
        return None


def record(cursor, notebook: Path, plan: Path) -> None:
    """Write, in the caller's transaction, which notebook the plan file at `plan` belongs to."""
    set_setting(cursor, NOTEBOOK_KEY, stored_name(notebook, plan))


def read_name(value: object) -> str | None:
    """A recorded notebook's name as a path relative to the plan file's folder; None for what
    no notebook beside the file is called (what another program wrote there is only taken as
    such a name)."""
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_RECORDED or os.path.isabs(value):
        return None
    # A byte of a name that is no UTF-8 reads as a lone surrogate of U+DC80 to U+DCFF.
    if any(not char.isprintable() and not "\udc80" <= char <= "\udcff" for char in value):
        return None
    return value


def recorded(plan: Path, key: str = NOTEBOOK_KEY) -> str | None:
    """The notebook a plan file says it belongs to (or, with LEFT_KEY, was left behind by),
    relative to its folder; None if it says none, or cannot be read."""
    connection = glance(plan)
    if connection is None:
        return None
    try:
        value = setting(connection, key)
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return None if value is None else read_name(value)


def owner(plan: Path) -> Path | None:
    """The notebook a plan file says it belongs to, as a path; None if it says none."""
    name = recorded(plan)
    return None if not name else (plan.parent / name)


def same(a: Path, b: Path) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


def claimed_by_another(plan: Path, notebook: Path, *also: Path) -> Path | None:
    """The other notebook, still there, that `plan` says it belongs to; None when it is
    `notebook`'s (or one of `also`, or nobody's, or its notebook is gone)."""
    found = owner(plan)
    if found is None or not found.exists() or any(same(found, n) for n in (notebook, *also)):
        return None
    return found


def orphans(notebook: Path) -> list[Path]:
    """Plan files in `notebook`'s folder that say they belong to a notebook that is gone (left
    behind by a rename outside Jupyter); only asked when `notebook` has no plan file."""
    found = []
    with contextlib.suppress(OSError):
        for plan in sorted(notebook.parent.glob("*" + SUFFIX)):
            gone = owner(plan)
            if gone is not None and not gone.exists() and not same(gone, notebook):
                found.append(plan)
    return found


def left_for(notebook: Path) -> tuple[Path, str | None] | None:
    """The plan file in `notebook`'s folder that stayed there when `notebook` was renamed or
    moved to its name (the plan's name was taken), and what held that name then; None when
    there is none."""
    with contextlib.suppress(OSError):
        for plan in sorted(notebook.parent.glob("*" + SUFFIX)):
            name = recorded(plan, LEFT_KEY)
            if name and same(plan.parent / name, notebook) and plan != plan_file(notebook):
                return plan, recorded(plan, TAKEN_KEY)
    return None


def identity_text(path: Path) -> str | None:
    """What is at `path` ("device:inode", a symbolic link itself); None for nothing."""
    try:
        found = os.lstat(path)
    except (OSError, ValueError):
        return None
    return f"{found.st_dev}:{found.st_ino}"


# A notebook opening its plan.


def before_open(notebook: Path | None, plan: str) -> str | None:
    """Before a notebook's plan file is opened (by the kernel, the server, an agent started with
    --notebook): refuse, in one line, a plan file that says it is another notebook's, still
    there, and one that holds the name while the notebook's own plan stayed under its former
    name; where there is no plan file, say in one line (returned) which plan file beside it
    was left by a notebook renamed (outside Jupyter, or onto a taken name), and how to take it
    along. Nothing is adopted. Only the plan file beside the notebook (the default) counts."""
    if notebook is None or Path(plan) != plan_file(notebook):
        return None
    plan_path = Path(plan)
    found = left_for(notebook)
    left = None if found is None else found[0]
    holder = identity_text(plan_path)
    if holder is not None:
        other = claimed_by_another(plan_path, notebook)
        if left is not None and holder == found[1]:  # what held the name holds it still
            raise PlanStoreError(
                f"{notebook.name}'s plan is {left.name}: it stayed there when the notebook took "
                f"this name, since {plan_path.name} was taken; move {plan_path.name} away, then "
                f"run: jupyter-plans move {_shell(_former(left))} {_shell(notebook)}"
            )
        if other is not None:
            raise PlanStoreError(
                f"{plan_path.name} is the plan of {other.name}, which is still there, not of "
                f"{notebook.name}: it is not taken over; remove or rename {plan_path.name} to "
                f"start {notebook.name}'s own plan"
            )
        return None  # the name holds another plan file since: the notebook's own
    if left is not None:
        return (
            f"{notebook.name} has no plan file, but {left.name} beside it is its plan, left "
            "there when the notebook took this name; take it along with: jupyter-plans move "
            f"{_shell(_former(left))} {_shell(notebook)}"
        )
    gone_ones = orphans(notebook)
    if not gone_ones:
        return None
    found = gone_ones[0]
    gone = owner(found)
    more = f" (and {len(gone_ones) - 1} more)" if len(gone_ones) > 1 else ""
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
        sys.stderr.write(f"{speaker}: {notice}\n")  # one write: one stream message in a kernel
    return store


def claim(store, notebook: Path | None) -> None:
    """Record in the plan file beside `notebook` that it is that notebook's, once."""
    if notebook is None or store.path is None or store.path != plan_file(notebook):
        return
    name = stored_name(notebook, store.path)
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
            name = read_name(tx.scalar("SELECT_SETTING", {"key": NOTEBOOK_KEY}))
        if name:
            return Path(os.path.normpath(store.path.parent / name))
    return notebook


def _former(plan: Path) -> Path:
    """The notebook a plan file is named after (there or not)."""
    return plan.with_name(plan.name[: -len(SUFFIX)] + ".ipynb")


def _shell(path: Path | None) -> str:
    import shlex

    return shlex.quote(os.path.relpath(path)) if path is not None else "OLD.ipynb"
