"""The cells that did each step, as data (DESIGN section 13): a cell's id and code, the
steps a plan change marks completed, and the snapshot's `cells`."""

from __future__ import annotations

from typing import Any

from ..lazy import LazyModule
from .intake import ID_FORBIDDEN, id_refusal
from .validation import is_blank, quote

hashlib = LazyModule("hashlib")  # with the first cell hashed: a hook reading a plan needs none

# Per step, the snapshot keeps the latest run of at most this many cells (the most recent).
MOST_CELLS = 16
CELL_ID_BYTES = 128


def code_digest(code: str) -> str:
    """The SHA-256 of a cell's code as it ran."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def cell_id_refusal(cell_id: Any) -> str | None:
    """Why `cell_id` cannot name a cell, or None: 1 to 128 bytes of Unicode without a control
    character or a bidirectional control, and not blank (no cell is called "   ")."""
    refused = id_refusal("cell_id", cell_id, CELL_ID_BYTES)
    if refused is None and (found := ID_FORBIDDEN.search(cell_id)):
        refused = f"cell_id contains U+{ord(found.group()):04X} at character {found.start()}"
    if refused is None and is_blank(cell_id):
        refused = f"cell_id {quote(cell_id)} is blank; it names no cell"
    return refused


def active_step(plan: dict | None) -> str | None:
    """The id of the plan's step in progress, if any."""
    for step in plan["steps"] if plan else ():
        if step["status"] == "in_progress":
            return step["id"]
    return None


def completion_changes(old: dict | None, new: dict) -> tuple[list[str], list[str]]:
    """The steps a plan change marks completed, and those it takes out of completed (or out
    of the plan): their cells' code is kept as it stands, or forgotten."""
    before, after = completed_steps(old), completed_steps(new)
    return sorted(after - before), sorted(before - after)


def completed_steps(plan: dict | None) -> set[str]:
    """The ids of the plan's completed steps."""
    if plan is None:
        return set()
    return {step["id"] for step in plan["steps"] if step["status"] == "completed"}


def cells_view(rows: Any) -> dict[str, list[dict]]:
    """The snapshot's `cells` from rows (step_id, cell_id, execution_count, ok, code_sha256,
    baseline_sha256) in the order of their latest runs."""
    found: dict[str, list[dict]] = {}
    for step_id, cell_id, count, ok, code, baseline in rows:
        found.setdefault(step_id, []).append(
            {
                "cell_id": cell_id,
                "execution_count": count,
                "ok": bool(ok),
                "changed": baseline is not None and code != baseline,
            }
        )
    return {step: runs[-MOST_CELLS:] for step, runs in found.items()}
