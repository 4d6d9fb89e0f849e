"""The kernel's side of steps that check themselves (DESIGN section 17): a check evaluated in the
notebook's own namespace and stopped after 10 s; at the end of each cell, the checks that came
due (a completed step's approved check, once a completion, whoever completed it), each said in
one line and recorded after the cell by the writer's thread; and `%plan check [STEP|all]`.

A check never breaks the cell it follows: whatever it raises is its own failure, reported, and
the cell's result stands.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import DecisionRefused, PlanStoreError
from ..plan.checks import CHECK_SECONDS, CheckRun, error_line, result_words, shown, timed_out
from ..plan.validation import quote
from ..session.checks import due_checks, record_check
from . import say
from .verbs import MAGIC, MagicVerb

if TYPE_CHECKING:
    from ..session import PlanSession


# How long the cell after one that ran checks waits for their records, at most.
RECORD_WAIT_SECONDS = 10.0


class _Stopped(BaseException):
    """Raised in a check that ran past its time (a BaseException, so that code the check calls
    does not catch it as an error of its own)."""


class CheckRunner:
    """Evaluates checks in a kernel's user namespace, and runs those due at a cell's end."""

    def __init__(self, shell: Any, loaded: Callable[[], Any], seconds: float = CHECK_SECONDS):
        self.shell = shell
        self.loaded = loaded  # the session the kernel has loaded now
        self.seconds = seconds
        self._depth = 0  # cells running now: code run inside a cell is no cell of its own
        self._count: int | None = None  # the execution count of the cell running now
        self._known: tuple[str, int] | None = None  # (session, cursor) last looked at
        self._ran: set[tuple[str, str, int]] = set()  # (session, step, window) run here
        # Set once the runs of the last cell that ran checks are recorded: the next cell waits
        # for them (only then), so what it reads of the plan (finish_plan's gate, the card)
        # holds them.
        self._recorded: threading.Event | None = None

    def serves(self, store: Any, session_id: str) -> bool:
        """Whether `session_id` of `store` (the same database) is the session loaded here."""
        loaded = self.loaded()
        return loaded.session_id == session_id and repr(loaded.store) == repr(store)

    def execution_count(self) -> int | None:
        """The execution count of the cell running now; None between cells (a card's Run
        check is answered there)."""
        return self._count if self._depth else None

    def evaluate(self, check: str) -> CheckRun:
        """Run `check` in the notebook's namespace: passed when its value is true; failed when
        it is false, when it raises (its type and first line) or when it is stopped after
        `seconds`."""
        try:
            code = compile(check, "<check>", "eval", dont_inherit=True)
            with _time_limit(self.seconds):
                value = eval(code, self.shell.user_global_ns, self.shell.user_ns)  # noqa: S307 - the person approved it
                ok = bool(value)
                said = _repr(value)
        except _Stopped:
            return CheckRun(False, None, timed_out(self.seconds))
        except BaseException as error:  # noqa: BLE001 - whatever a check raises is its failure
            return CheckRun(False, None, error_line(error))
        return CheckRun(ok, said, None)

    # IPython's events, through PlanMagics.

    def before(self, info: Any) -> None:
        """pre_run_cell: a cell begins (or code inside one). IPython has already counted on
        for a cell it keeps in its history: the cell's own count is the one before."""
        if self._recorded is not None:
            self._recorded.wait(RECORD_WAIT_SECONDS)
            self._recorded = None
        if not self._depth:
            count = getattr(self.shell, "execution_count", None)
            kept = getattr(info, "store_history", False) and isinstance(count, int)
            self._count = count - 1 if kept else count
        self._depth += 1

    def after(self, session: PlanSession, cursor: int, count: int | None, defer: Callable) -> None:
        """post_run_cell: at the end of a cell (not of code run inside one), run each check that
        came due since the session last changed, say how it went, and have `defer` record it
        after the cell."""
        self._depth = max(0, self._depth - 1)
        if self._depth or (session.session_id, cursor) == self._known:
            return  # inside a cell, or nothing happened since the last look: nothing is due
        try:
            self._known = (session.session_id, cursor)
            _, due = due_checks(session)
        except PlanStoreError:  # a store that cannot be read now runs nothing at this cell
            self._known = None
            return
        ran = False
        for step_id, check, since in due:
            key = (session.session_id, step_id, since)
            if key in self._ran:
                continue  # ran here already; its record is on its way
            self._ran.add(key)
            run = self.evaluate(check)
            say(f"check {step_id}: {_words(run)}")
            defer(record_check, session, step_id, check, run, count, None, since)
            ran = True
        if ran:
            self._recorded = threading.Event()
            defer(self._recorded.set)


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise _Stopped in this thread once `seconds` have passed: by SIGALRM in the main thread
    (it interrupts a sleep or a blocking call too; an alarm the notebook set is put back),
    elsewhere by an exception set asynchronously in the thread."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        with _async_limit(seconds):
            yield
        return

    def stop(_signum: int, _frame: Any) -> None:
        raise _Stopped

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, stop)
    earlier, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if earlier:  # the notebook's own alarm goes on, less the time the check took
            left = earlier - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


@contextmanager
def _async_limit(seconds: float) -> Iterator[None]:
    import ctypes  # with the first check run off the main thread: a kernel loads it for none

    thread = threading.get_ident()
    done = threading.Event()

    def stop() -> None:
        if not done.is_set():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(thread), ctypes.py_object(_Stopped)
            )

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()


def _repr(value: Any) -> str:
    try:
        return shown(repr(value))
    except Exception as error:  # noqa: BLE001 - a repr may raise anything
        return shown(f"<{type(value).__name__} whose repr raised {error_line(error)}>")


def _words(run: CheckRun) -> str:
    status = "passed" if run.ok else "failed"
    return result_words({"status": status, "value": run.value, "error": run.error})


def check(session: PlanSession, rest: str) -> None:
    """%plan check [STEP|all]: run a step's check now (approved or not: the person asks), or
    every approved check of a completed step, one line per step with a check."""
    if rest in ("", "all"):
        lines = session.check_lines(by=MAGIC())
        say("\n".join(lines) if lines else "No step of the plan has a check.")
        return
    if " " in rest:
        raise DecisionRefused(
            f"check takes one STEP (its id or 1-based position) or all; found {quote(rest)}"
        )
    ran = session.run_check(rest, by=MAGIC())
    say(f"{ran['step_id']}: {_words(CheckRun(ran['ok'], ran['value'], ran['error']))}")


CHECK_VERBS: dict[str, MagicVerb] = {"check": check}
