"""The cells that did each step (DESIGN section 13): a run of a notebook cell while a step is
in progress is linked to it, and a cell of a completed step run again with other code is
recorded against that step, which then reads "changed after completion"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plan.cells import active_step, cell_id_refusal, code_digest, completed_steps
from ..plan.intake import MAX_SEQ
from ..store.transaction import reconnecting as _reconnecting
from .events import plan_at

if TYPE_CHECKING:
    from .reads import SessionReads
    from .transaction import Change


# What a kernel says of a run during which no step was in progress all along.
NO_STEP = ""


@_reconnecting
def cell_ran(
    session: SessionReads,
    cell_id: str,
    execution_count: int | None,
    ok: bool,
    code: str,
    step_id: str | None = None,
) -> list[int]:
    """Link a run of the cell `cell_id` to the step in progress (or to `step_id`, the step
    that was in progress while the cell ran, as a kernel saw it; NO_STEP for none), and
    record it against each completed step whose cell it is when its code changed; the
    seqs of the `cell_ran` events appended (none when the run concerns no step)."""
    refused = cell_id_refusal(cell_id)
    if refused is None and execution_count is not None:
        if not isinstance(execution_count, int) or isinstance(execution_count, bool):
            refused = "execution_count must be an integer or None"
        elif not 0 <= execution_count <= MAX_SEQ:
            shown = execution_count if abs(execution_count) < 10**20 else "a larger number"
            refused = f"execution_count must be 0 to {MAX_SEQ}; found {shown}"
    if refused is None and not isinstance(code, str):
        refused = f"code must be a string; found {type(code).__name__}"
    if refused:
        raise ValueError(refused)
    digest = code_digest(code)
    with session.writing() as change:
        return _link(change, cell_id, execution_count, bool(ok), digest, step_id)


@_reconnecting
def cell_watch(session: SessionReads) -> tuple[str | None, dict[str, set[str]]]:
    """What a kernel needs to tell, without writing, whether a cell's run concerns a step:
    the step in progress, and per cell of a completed step the code of its latest runs."""
    with session.store.read() as tx:
        row = tx.first("SELECT_ROW", {"sid": session.session_id})
        if row is None:
            return None, {}
        plan = plan_at(tx, session.store, session.session_id, row.plan_seq)
        rows = tx.all("SELECT_CELLS", {"sid": session.session_id})
    done = completed_steps(plan)
    completed: dict[str, set[str]] = {}
    for run in rows:
        if run.step_id in done:
            completed.setdefault(run.cell_id, set()).add(run.code_sha256)
    return active_step(plan), completed


def _link(
    change: Change, cell_id: str, count: int | None, ok: bool, digest: str, step_id: str | None
) -> list[int]:
    plan = change.state.plan
    status = {step["id"]: step["status"] for step in plan["steps"]} if plan else {}
    active = active_step(plan) if step_id is None else step_id if step_id in status else None
    targets = [active] if active is not None else []
    key = {"sid": change.state.session_id, "cell_id": cell_id}
    for row in change.tx.all("SELECT_CELL_STEPS", key):
        if row.step_id != active and status.get(row.step_id) == "completed":
            if row.code_sha256 != digest:  # ran again with other code
                targets.append(row.step_id)
    seqs = []
    for step_id in targets:
        data = {
            "step_id": step_id,
            "cell_id": cell_id,
            "execution_count": count,
            "ok": ok,
            "code_sha256": digest,
        }
        seq = change.emit("cell_ran", data)
        change.add("UPSERT_CELL", {**key, **data, "seq": seq})
        seqs.append(seq)
    return seqs
