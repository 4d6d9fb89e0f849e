"""What linking cells to steps costs a cell (DESIGN section 13), in one run: the time the
extension's own pre_run_cell and post_run_cell hooks take per cell, with no step in progress
and with one (the link then goes to a thread of its own, off the cell's critical path), against
a raw SQLite read of the session's head, the floor of knowing whether anything changed.

The hooks are called as IPython calls them around a cell, with a real execution info and
result, for a cell with an id (as JupyterLab sends it). The link writes of the second series
run on their thread while the cells go on; a pause after each cell lets them keep up, as a
person's cells do, and is not counted. The third line is one link's write (its cell_ran
event, committed with synchronous=FULL), timed apart: what the cell no longer waits for.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time

from _table import ratio_table
from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult, InteractiveShell

ROUNDS = 2000
STEPS = [
    {"id": "parse", "description": "Parse the dates", "status": "in_progress"},
    {"id": "count", "description": "Count per month", "status": "pending"},
]


def hooks(shell, count: int) -> float:
    """One cell's pass through the extension's hooks."""
    info = ExecutionInfo("dates = parse(raw)", True, False, True, "cell-7")
    result = ExecutionResult(info)
    result.execution_count = count
    start = time.perf_counter()
    shell.events.trigger("pre_run_cell", info)
    shell.events.trigger("post_run_cell", result)
    return time.perf_counter() - start


def main() -> dict[str, float]:
    folder = tempfile.mkdtemp()
    shell = InteractiveShell.instance()
    shell.user_ns["__session__"] = os.path.join(folder, "analysis.ipynb")
    shell.run_cell("%load_ext jupyter_plans")
    magics = shell.magics_manager.registry["PlanMagics"]
    session = magics.session
    pending = [{**STEPS[0], "status": "pending"}, STEPS[1]]
    session.call_tool("update_plan", {"expected_revision": 0, "steps": pending})
    path = str(magics.store.path)
    floor = sqlite3.connect(path)
    samples: dict[str, list[float]] = {
        "raw SQLite head read": [],
        "no step in progress": [],
        "a step in progress": [],
    }
    for n in range(ROUNDS):  # no step in progress: nothing is linked
        samples["no step in progress"].append(hooks(shell, n))
        start = time.perf_counter()
        floor.execute(
            "SELECT cursor, pending_proposal_hash FROM plans_sessions WHERE session_id = ?",
            (session.session_id,),
        ).fetchone()
        samples["raw SQLite head read"].append(time.perf_counter() - start)
    session.call_tool("update_plan", {"expected_revision": 1, "steps": STEPS})
    writes = []
    for n in range(ROUNDS // 4):
        samples["a step in progress"].append(hooks(shell, n))
        started = time.perf_counter()
        assert magics.cells.flush()  # the pause after the cell, not counted
        writes.append(time.perf_counter() - started)
    linked = session.snapshot().cells["parse"]
    assert len(linked) == 1 and linked[0].execution_count == ROUNDS // 4 - 1
    shell.run_cell("%unload_ext jupyter_plans")
    print(
        f"cell_links: the extension's hooks per cell, {ROUNDS} cells with no step in progress "
        f"and {ROUNDS // 4} with one (each linked off the cell's path), against a raw read"
    )
    figures = ratio_table(samples, "raw SQLite head read")
    for name in ("no step in progress", "a step in progress"):
        figures[f"{name}, us"] = sorted(samples[name])[len(samples[name]) // 2] * 1e6
    writes.sort()
    write = writes[len(writes) // 2]
    print(f"{'a link written, after the cell':30} {write * 1e3:8.2f} ms p50")
    figures["a step in progress / its write"] = figures["a step in progress, us"] / 1e6 / write
    return figures


if __name__ == "__main__":
    main()
