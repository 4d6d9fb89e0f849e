"""The kernel's side of linking cells to steps (DESIGN section 13): which runs concern a step,
told from what the kernel already knows, and their `cell_ran` events written by a thread of
their own, so a cell's execution never waits for the plan file's fsync.

The cell id comes from the execute request's metadata (`cellId`, which JupyterLab, Notebook 7
and VS Code send); a run without one (a console, %run) is not linked. A run is linked to the
step that was in progress when it began and still is when it ends: the cell that approves a
plan and starts its first step, or the one that tells the agent a step is done, did not do the
step. Code that runs inside a cell (the built-in agent's run_code) is linked under that cell's
id and code, to the step in progress while it ran.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
from typing import TYPE_CHECKING, Any

from ..errors import PlanStoreError, StoreBusy
from ..plan.cells import cell_id_refusal, code_digest
from ..session.cells import NO_STEP

if TYPE_CHECKING:
    from ..session import PlanSession

log = logging.getLogger("jupyter_plans")
# Tries of a link while another process holds the plan file's write lock, each waiting the
# store's busy timeout (10 s): about ten minutes.
LOCK_ATTEMPTS = 60


_PLAN_LINE = re.compile(r"\s*(%+plan\b|%(load|reload|unload)_ext\s+jupyter_plans\s*$)")


def plan_verbs_only(code: str) -> bool:
    """Whether a cell's code is plan verbs only (`%plan ...` lines, the extension loaded), its
    comments and blank lines aside: such a cell is no work on a step (DESIGN section 13)."""
    lines = [
        line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    return bool(lines) and all(_PLAN_LINE.match(line) for line in lines)


class _Outer:
    """The cell running now, while code inside it runs."""

    __slots__ = ("cell_id", "code", "count", "step")

    def __init__(self, cell_id: str | None, code: str, count: int | None) -> None:
        self.cell_id, self.code, self.count = cell_id, code, count
        self.step: str | None = None  # the step in progress when the run began


class CellLinker:
    """Links the cells a kernel runs to the step in progress, off the cell's critical path."""

    def __init__(self) -> None:
        self._known: tuple[str, int] | None = None  # (session, cursor) the view was read at
        self._active: str | None = None  # the step in progress
        self._completed: dict[str, set[str]] = {}  # cell id -> code of its completed steps
        self._running: list[_Outer] = []  # the cells running now, outermost first
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._pending = 0  # links asked for and not yet written
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # IPython's events.

    def before(self, session: PlanSession, info: Any, count: int) -> None:
        """pre_run_cell, with the shell's execution count: note the cell and the step in
        progress. A cell never waits for the link of the one before: Run All is not slowed by
        the plan file's fsync (the links are written in order, one after the other)."""
        this = _Outer(getattr(info, "cell_id", None), getattr(info, "raw_cell", ""), count)
        if self._running and not getattr(info, "store_history", False):
            self._running.append(this)  # code run inside the cell running now
        else:
            self._running = [this]
        if self._running[0].cell_id:
            try:
                this.step = self._look(session, session.head()[0])
            except PlanStoreError:  # a store that cannot be read now links nothing of this run
                this.step = None

    def after(self, session: PlanSession, cursor: int, result: Any) -> None:
        """post_run_cell, given the session's newest cursor: link the run if it concerns a step."""
        if not self._running:
            return  # the cell that loaded the extension began before it
        this = self._running.pop()
        outer = self._running[0] if self._running else this
        cell_id = outer.cell_id
        if result is None or not cell_id or cell_id_refusal(cell_id) is not None:
            return
        if outer is this and plan_verbs_only(this.code):
            # A cell that runs plan verbs (`%plan on`) does no step's work; code the agent runs
            # inside it (after `%plan approve`) does, and is linked under it.
            return
        # Code run inside the cell is linked as the cell's own run.
        count = result.execution_count if outer is this else outer.count
        code = outer.code
        ended = self._look(session, cursor)
        step = this.step if this.step is not None and ended == this.step else None
        if step is None:
            before = self._completed.get(cell_id)
            if before is None or before == {code_digest(code)}:
                return  # no step in progress all along; no completed step's cell changed
        self.defer(self._link, session, cell_id, count, bool(result.success), code, step or NO_STEP)

    def defer(self, write: Any, *args: Any) -> None:
        """Have `write(*args)` done on the writer's thread, after what was asked before it:
        a write the cell need not wait for (its fsync is off the cell's critical path)."""
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put((write, args))
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._write, name="plan-writes", daemon=True)
            self._thread.start()

    def _look(self, session: PlanSession, cursor: int) -> str | None:
        """The step in progress, read again only when the session changed since."""
        if (session.session_id, cursor) != self._known:
            self._active, self._completed = session.cell_watch()
            self._known = (session.session_id, cursor)
        return self._active

    # The writer.

    def _write(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            write, args = item
            try:
                write(*args)
            except Exception:  # a reminder or a link lost is told, and the kernel goes on
                log.warning("jupyter-plans: a write after the cell failed", exc_info=True)
            with self._lock:
                self._pending -= 1
                if not self._pending:
                    self._idle.set()

    def _link(self, session, cell_id, count, ok, code, step) -> None:
        seqs = self._written(session, cell_id, count, ok, code, step)
        if seqs is None:
            return
        with self._lock:
            if step and len(seqs) == 1 and self._known == (session.session_id, seqs[0] - 1):
                # Only this link since the view was read: it changes nothing the view holds,
                # so the next cell need not read it again.
                self._known = (session.session_id, seqs[0])

    def _written(self, session, cell_id, count, ok, code, step) -> list[int] | None:
        """The link's `cell_ran`, written past another process's hold on the plan file's write
        lock: each try waits for the lock as long as the store's busy timeout, and the link
        waits its turn (the later ones behind it) while the kernel runs. None, said in the log,
        when it cannot be written."""
        problem: Exception | None = None
        for attempt in range(LOCK_ATTEMPTS):
            try:
                return session.cell_ran(cell_id, count, ok, code, step)
            except StoreBusy as busy:
                problem = busy
                if self._stopping.is_set():
                    break
                if attempt == 0:
                    log.info("jupyter-plans: cell %s waits for the plan file's lock", cell_id)
            except (PlanStoreError, ValueError, OSError) as error:
                problem = error
                break
        log.warning("jupyter-plans: cell %s was not linked to the plan: %s", cell_id, problem)
        return None

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every link asked for is written; whether they all were in time."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Write what is asked for, then end the writer."""
        self.flush(timeout)
        self._stopping.set()  # a link still waiting for the lock gives up
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None
