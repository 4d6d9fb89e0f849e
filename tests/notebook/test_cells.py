"""Steps and the cells that did them (DESIGN section 13), in a real kernel that gets each cell's
id in the execute request's metadata, as JupyterLab, Notebook 7 and VS Code send it."""

from __future__ import annotations

import sqlite3
import time

import pytest

from jupyter_plans import PlanStore
from tests.notebook.kernel import execute
from tests.waiting import wait_until

STEPS = [
    {"id": "parse", "description": "Parse the dates", "status": "in_progress"},
    {"id": "count", "description": "Count per month", "status": "pending"},
]


# Run in the kernel: what the package logs there is kept in `_logged` (see logged()).
KEEP_LOG = """
import logging
class _Kept(logging.Handler):
    def emit(self, record):
        _logged.append(record.getMessage())
_logged = []
logging.getLogger("jupyter_plans").addHandler(_Kept(logging.INFO))
logging.getLogger("jupyter_plans").setLevel(logging.INFO)
"""


def logged(client) -> str:
    """What the package logged in the kernel since KEEP_LOG ran there, one line each."""
    messages, _ = execute(client, "print('\\n'.join(_logged))")
    return "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")


def linked(plan_file, want, deadline=20.0):
    """The snapshot's cells once `want(cells)` holds (the links are written off the cell's
    critical path, just after it), or as they are at the deadline."""
    end = time.monotonic() + deadline
    with PlanStore(plan_file) as store:
        while True:
            cells = store.session().snapshot().model_dump(mode="json")["cells"]
            if want(cells) or time.monotonic() > end:
                return cells
            time.sleep(0.05)


def start(kernel, tmp_path):
    notebook = tmp_path / "dates.ipynb"
    execute(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans", "load")
    _, reply = execute(
        kernel,
        "import jupyter_plans\nsession = jupyter_plans.current_session()\n"
        f"session.call_tool('update_plan', {{'expected_revision': 0, 'steps': {STEPS!r}}})",
        "setup",
    )
    assert reply["status"] == "ok"
    return tmp_path / "dates.plans.sqlite"


def test_each_cell_run_while_a_step_is_in_progress_is_linked_to_it(kernel, tmp_path):
    plan_file = start(kernel, tmp_path)
    execute(kernel, "dates = ['2024-03-01']", "cell-a")
    _, failed = execute(kernel, "1 / 0", "cell-b")
    assert failed["status"] == "error"
    execute(kernel, "unlinked = True")  # a console's run: no cell id
    cells = linked(plan_file, lambda c: len(c.get("parse", [])) == 2)
    # The cell that set the step in progress did not do it: it was not in progress all along.
    assert cells == {
        "parse": [
            {"cell_id": "cell-a", "execution_count": 3, "ok": True, "changed": False},
            {"cell_id": "cell-b", "execution_count": 4, "ok": False, "changed": False},
        ]
    }
    with PlanStore(plan_file) as store:
        session = store.session()
        assert session.snapshot().plan.revision == 1  # links are no plan change
        # The card's text form (what nbval compares) shows nothing of this.
        messages, _ = execute(kernel, "%plan", "show")
        text = [
            m["content"]["data"]["text/plain"] for m in messages if m["msg_type"] == "display_data"
        ]
        assert text and "cell" not in text[0] and "[3]" not in text[0]
        # Completed; then the cell runs again with other code, with no step in progress.
        steps = [dict(STEPS[0], status="completed"), STEPS[1]]
        session.call_tool("update_plan", {"expected_revision": 1, "steps": steps})
        cursor = session.cursor()
        execute(kernel, "dates = ['2024-03-01']", "cell-a")  # the same code: nothing to say
        execute(kernel, "dates = ['2024-03-01', '01/03/2024']", "cell-a")
        cells = linked(plan_file, lambda c: c["parse"][-1]["changed"])
        assert cells["parse"][-1] == {
            "cell_id": "cell-a",
            "execution_count": 8,
            "ok": True,
            "changed": True,
        }
        assert [e.kind for e in session.events(after=cursor)] == ["cell_ran"]
        assert session.snapshot().plan.steps[0].status == "completed"  # not reopened


def test_a_cell_runs_while_the_plan_file_is_locked_and_is_linked_after(kernel, tmp_path):
    """The link is written off the cell's critical path: a cell whose plan file another
    process holds locked still finishes, and its link follows once the lock is gone."""
    plan_file = start(kernel, tmp_path)
    holder = sqlite3.connect(plan_file, timeout=10, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # as a writer in the middle of a long commit
    try:
        for cell_id in ("cell-a", "cell-b"):  # Run All goes on, cell after cell
            _, reply = execute(kernel, f"print({cell_id!r})", cell_id)
            assert reply["status"] == "ok"
        assert linked(plan_file, bool, deadline=0.5) == {}  # not written yet: the file is locked
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    cells = linked(plan_file, lambda c: len(c.get("parse", [])) == 2)
    assert [c["cell_id"] for c in cells["parse"]] == ["cell-a", "cell-b"]  # in their order


def test_a_lock_held_past_the_busy_timeout_delays_the_links_and_loses_none(kernel, tmp_path):
    """Another process holds the plan file's write lock for longer than the store waits for
    it (10 s): the cells run on, and every link is written, in order, once the lock is gone."""
    from jupyter_plans.store.sqlite import BUSY_TIMEOUT_MS

    plan_file = start(kernel, tmp_path)
    execute(kernel, KEEP_LOG)
    holder = sqlite3.connect(plan_file, timeout=10, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        ran = ["cell-a", "cell-b", "cell-c"]
        for cell_id in ran:
            _, reply = execute(kernel, f"print({cell_id!r})", cell_id)
            assert reply["status"] == "ok"
        wait_until(
            lambda: "cell cell-a waits for the plan file's lock" in logged(kernel),
            "the first link's wait for the lock to run out",
            timeout=BUSY_TIMEOUT_MS / 1000 + 30,
            every=0.5,
        )
        assert linked(plan_file, bool, deadline=0) == {}
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    cells = linked(plan_file, lambda c: len(c.get("parse", [])) == 3)
    assert [c["cell_id"] for c in cells.get("parse", [])] == ran


def test_a_blank_cell_id_links_nothing(kernel, tmp_path):
    plan_file = start(kernel, tmp_path)
    for blank in ("   ", "\t", "\u200b"):
        _, reply = execute(kernel, "x = 1", blank)
        assert reply["status"] == "ok"
    execute(kernel, "y = 2", "cell-a")
    cells = linked(plan_file, lambda c: len(c.get("parse", [])) >= 1)
    assert [c["cell_id"] for c in cells["parse"]] == ["cell-a"]
    with PlanStore(plan_file) as store:
        session = store.session()
        for blank in ("   ", "\u3000"):
            with pytest.raises(ValueError, match="is blank; it names no cell"):
                session.cell_ran(blank, 1, True, "x = 1")


def test_a_cell_of_plan_verbs_is_never_linked(kernel, tmp_path):
    """A cell that runs plan verbs (`%plan on`, `%plan`) is no work on the step in progress."""
    plan_file = start(kernel, tmp_path)
    execute(kernel, "%load_ext jupyter_plans\n# the plan\n%plan", "verbs")
    execute(kernel, "%plan status", "status")
    execute(kernel, "%plan\ndates = ['2024-03-01']", "mixed")  # it does work too: linked
    cells = linked(plan_file, lambda c: len(c.get("parse", [])) >= 1)
    assert [c["cell_id"] for c in cells["parse"]] == ["mixed"]
