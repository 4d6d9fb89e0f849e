"""`jupyter-plans move OLD.ipynb NEW.ipynb`: a notebook moved outside Jupyter takes its plan file
along, as a rename in Jupyter does (store/follow.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import PlanStoreError
from ..store.following import follow
from ..store.locate import plan_file


def move_notebook(old: Path, new: Path) -> str:
    """Move the notebook `old` to `new` (a file name, or a folder to move it into) with its plan
    file; what was done, in one line. When `old` is gone and `new` is there, the notebook was
    moved already (by hand, or by another program): its plan file is taken along alone.
    Everything is checked before anything moves; nothing is overwritten."""
    if new.is_dir():
        new = new / old.name
    if old.suffix != ".ipynb" or new.suffix != ".ipynb":
        raise PlanStoreError(
            f"move takes two notebooks (.ipynb); found {old.name!r} and {new.name!r}"
        )
    if not new.parent.is_dir():
        raise PlanStoreError(f"cannot move to {new}: the folder {new.parent} does not exist")
    old_plan, new_plan = plan_file(old), plan_file(new)
    moved_already = not old.exists() and new.is_file()
    if not moved_already:
        if not old.is_file():
            raise PlanStoreError(f"{old} is not a notebook here: nothing was moved")
        if new.exists():
            raise PlanStoreError(f"{new} exists already: nothing was moved")
    if not old_plan.exists():
        if moved_already:
            raise PlanStoreError(f"{old} is gone and has no plan file ({old_plan.name}) to move")
        _move_file(old, new)
        return f"Moved {old} to {new} (it had no plan file)."
    if os.path.lexists(new_plan):
        raise PlanStoreError(
            f"{new_plan} exists already (the plan of another notebook, or an old one): "
            "move it away first; nothing was moved"
        )
    other = follow.claimed_by_another(old_plan, old, new)  # left behind by `new`: its own
    if other is not None:
        raise PlanStoreError(
            f"{old_plan.name} is the plan of {other.name}, which is still there: nothing was moved"
        )
    if not moved_already:
        _move_file(old, new)
    try:
        follow.move(old, new)
    except PlanStoreError:
        if not moved_already:
            _move_file(new, old)  # the notebook goes back: both stay together
        raise
    what = "its plan file" if moved_already else f"{old} to {new} with its plan file"
    return f"Moved {what} ({old_plan.name} -> {new_plan})."


def _move_file(source: Path, target: Path) -> None:
    try:
        os.rename(source, target)
    except OSError:
        shutil.move(source, target)  # another file system: copied, then removed
