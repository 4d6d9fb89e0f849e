"""What steps that check themselves (DESIGN section 17) cost a cell, in one run: the time the
extension's own pre_run_cell and post_run_cell hooks take per cell, against a raw SQLite read of
the session's head (the floor of knowing whether anything changed),

- with a plan whose steps have checks and none is due (the common cell): the target is 100 us;
- with a plan without checks, the same hooks, for comparison;
- at the cell after a step with an approved check was completed (by another process here, as
  an agent over MCP does it): the check runs, is said in one line and handed to the writer's
  thread; ours is that less the check's own evaluation, timed alone; the target is 1 ms.

The hooks are called as IPython calls them around a cell, with a real execution info and
result. The completions between the due cells, and the pause in which the writer's thread
records each run, are not counted.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import statistics
import tempfile
import time

from _table import ratio_table
from cell_links import hooks  # one cell's pass through the extension's hooks
from IPython.core.interactiveshell import InteractiveShell

ROUNDS = 2000
CHECK = "sum(units) > 0"
STEPS = [
    {"id": "clean", "description": "Drop the orders with no price", "check": CHECK},
    {"id": "fit", "description": "Fit the baseline", "check": "error < 0.10"},
]


def set_status(session, status: str) -> None:
    plan = session.snapshot_data()["plan"]
    steps = [{**step, "status": status if step["id"] == "clean" else "pending"} for step in STEPS]
    result = session.call_tool(
        "update_plan", {"expected_revision": plan["revision"], "steps": steps}
    )
    assert not result.is_error, result.content


def main() -> dict[str, float]:
    folder = tempfile.mkdtemp()
    shell = InteractiveShell.instance()
    shell.user_ns["__session__"] = os.path.join(folder, "prices.ipynb")
    shell.user_ns.update(units=[12, 7, 10], error=0.05)
    shell.run_cell("%load_ext jupyter_plans")
    magics = shell.magics_manager.registry["PlanMagics"]
    session = magics.session
    floor = sqlite3.connect(str(magics.store.path))
    head = "SELECT cursor, pending_proposal_hash FROM plans_sessions WHERE session_id = ?"
    samples: dict[str, list[float]] = {
        "raw SQLite head read": [],
        "no check in the plan": [],
        "checks, none due": [],
    }
    plain = [{k: v for k, v in step.items() if k != "check"} for step in STEPS]
    session.call_tool("update_plan", {"expected_revision": 0, "steps": plain})
    for n in range(ROUNDS):
        samples["no check in the plan"].append(hooks(shell, n))
    session.on()
    args = {"explanation": "e", "findings": [], "objectives": [], "steps": STEPS}
    assert not session.call_tool("plan_submit", args).is_error
    session.approve()
    for n in range(ROUNDS):
        samples["checks, none due"].append(hooks(shell, n))
        start = time.perf_counter()
        floor.execute(head, (session.session_id,)).fetchone()
        samples["raw SQLite head read"].append(time.perf_counter() - start)
    due, own, runs = [], [], ROUNDS // 10
    code = compile(CHECK, "<check>", "eval")
    for n in range(runs):
        set_status(session, "in_progress")
        set_status(session, "completed")
        with contextlib.redirect_stdout(io.StringIO()) as said:
            due.append(hooks(shell, n))
        assert said.getvalue() == "check clean: passed\n", said.getvalue()
        assert magics.cells.flush()  # the pause after the cell, not counted
        start = time.perf_counter()
        eval(code, shell.user_ns)  # noqa: S307 - the check's own time
        own.append(time.perf_counter() - start)
    assert session.snapshot().checks["clean"].status == "passed"
    shell.run_cell("%unload_ext jupyter_plans")
    print(
        f"checks: the extension's hooks per cell, {ROUNDS} cells with no check due (and without "
        f"checks), and {runs} cells after a completion whose check runs, against a raw read"
    )
    figures = ratio_table(samples, "raw SQLite head read")
    for name in ("no check in the plan", "checks, none due"):
        figures[f"{name}, us"] = statistics.median(samples[name]) * 1e6
    ours = statistics.median(due) - statistics.median(own)
    print(f"{'a check due: the cell, p50':30} {statistics.median(due) * 1e6:8.0f} us")
    print(f"{'  of which the check itself':30} {statistics.median(own) * 1e6:8.2f} us")
    figures["a check due, ours us"] = ours * 1e6
    return figures


if __name__ == "__main__":
    main()
