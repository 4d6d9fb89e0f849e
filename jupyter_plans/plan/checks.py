"""Steps that check themselves (DESIGN section 17), as data: what a check may be (one Python
expression, compiled in eval mode), what a run of it leaves (its value and error, cut to one
line), and the snapshot's `checks` folded from the events, which says of each check whether
the person approved it and how its latest run since its step was completed went.

Nothing here runs a check: only a kernel with the session loaded does (notebook/checks.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from ..lazy import LazyModule

# What a value or an error may not show as it is: the characters section 2 keeps out of text.
from .validation import _CONTROL as _UNSHOWABLE
from .validation import MAX_CHECK_BYTES, quote

# Loaded with the first check read or hashed: the hook at session start folds checks, and
# needs neither the parser nor OpenSSL for a plan whose steps have none.
ast = LazyModule("ast")
hashlib = LazyModule("hashlib")

# A check's value and error are shown in at most this many characters.
MAX_SHOWN_CHARS = 200
# A check still running after this many seconds is stopped, and counted as failed.
CHECK_SECONDS = 10


def timed_out(seconds: float = CHECK_SECONDS) -> str:
    """The error of a check stopped after `seconds`."""
    return f"TimeoutError: the check ran for {seconds:g} s and was stopped"


# The events the checks are folded from.
CHECK_KINDS = ("plan_updated", "decision", "step_checked")
STATUS_WORDS = {
    "passed": "passed",
    "failed": "failed",
    "not_run": "not run",
    "unapproved": "unapproved",
}
_SHAPE = (
    f"a check is one Python expression of at most {MAX_CHECK_BYTES} bytes on one line, "
    "compiled in eval mode, such as df['price'].notna().all()"
)


class CheckRun(NamedTuple):
    """What one run of a check said: passed or not, and its value's repr or its error (each
    cut to one line of MAX_SHOWN_CHARS)."""

    ok: bool
    value: str | None
    error: str | None


def check_digest(check: str) -> str:
    """The SHA-256 of a check's text: a run names the exact text that ran."""
    return hashlib.sha256(check.encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=512)  # an agent sends its plan's checks again with every update
def expression_problem(check: str) -> str | None:
    """Why `check` cannot be a check, in words ("is an assignment"), or None when it is one
    Python expression that assigns nothing."""
    try:
        tree = ast.parse(check, mode="eval")
        compile(tree, "<check>", "eval", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as error:
        return _not_an_expression(check, error)
    if any(isinstance(node, ast.NamedExpr) for node in ast.walk(tree)):
        return "assigns with :=, which a check may not"
    return None


def _not_an_expression(check: str, error: Exception) -> str:
    try:
        statements = ast.parse(check, mode="exec").body
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        statements = None
    if statements and len(statements) > 1:
        return f"is {len(statements)} statements"
    if statements and isinstance(statements[0], ast.Assign | ast.AugAssign | ast.AnnAssign):
        return "is an assignment"
    if statements and not isinstance(statements[0], ast.Expr):
        word = re.match(r"\s*(\w+)", check)
        return f"is a statement ({word.group(1) if word else type(statements[0]).__name__})"
    reason = getattr(error, "msg", None) or str(error) or type(error).__name__
    where = getattr(error, "offset", None)
    at = f" at character {where}" if isinstance(where, int) and where > 0 else ""
    return f"does not parse as a Python expression ({reason}{at})"


def check_refusal(where: str, check: str) -> str | None:
    """The one line that refuses `check` at the field `where` (such as steps[2].check), or None.
    Its size and characters are the other rules' (section 2); this is its grammar."""
    problem = expression_problem(check)
    if problem is None:
        return None
    return f"{where} {problem}; {_SHAPE}; found {quote(check)}"


def shown(text: str) -> str:
    """A value's repr or an error's line as the card and the journal show it: the characters
    that do not show as themselves escaped, cut to MAX_SHOWN_CHARS."""
    if _UNSHOWABLE.search(text):
        text = _UNSHOWABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text[:MAX_SHOWN_CHARS]


def error_line(error: BaseException) -> str:
    """An exception as a check's error: its type and the first line of its message."""
    message = str(error).strip().splitlines()
    return shown(f"{type(error).__name__}: {message[0]}" if message else type(error).__name__)


def result_words(entry: dict) -> str:
    """A check's status in words, with the value of a failed run or its error: "passed",
    "failed: False", "not run", "unapproved"."""
    words = STATUS_WORDS[entry["status"]]
    if entry["status"] == "failed":
        words += f": {entry['error'] if entry['error'] is not None else entry['value']}"
    return words


def check_words(entry: dict, step_status: str, snapshot: dict | None = None) -> str:
    """A step's check in the card's words (DESIGN section 17): "check passed in cell [7]",
    "check failed in cell [9]: False", "not run since completed", "unapproved: changed after
    your approval, not run" (labextension/src/card/checks.ts says the same). An unapproved
    check of a waiting proposal, or of a plan never approved, says so. Only a check that
    passed says the step was checked."""
    status, count = entry["status"], entry["execution_count"]
    where = ", run outside a cell" if count is None else f" in cell [{count}]"
    if status == "passed":
        return f"check passed{where}"
    if status == "failed":
        return f"check failed{where}: {entry['error'] or entry['value']}"
    if status == "not_run":
        if step_status == "completed":
            return "not run since completed"
        return "not run yet: it runs once the step is completed"
    if snapshot is not None and snapshot.get("pending_proposal_hash"):
        return "proposed: runs in the notebook once you approve it and the step is completed"
    if snapshot is not None and not snapshot.get("approved_proposal_hash"):
        return "unapproved: not in a plan you approved, not run"
    return "unapproved: changed after your approval, not run"


def counts_line(checks: dict) -> str | None:
    """The card's text/plain line when the plan has checks: "checks: 1 passed, 1 failed, 0 not
    run" (and ", 1 unapproved" when one is); None when it has none."""
    if not checks:
        return None
    found = {status: 0 for status in STATUS_WORDS}
    for entry in checks.values():
        found[entry["status"]] += 1
    line = f"checks: {found['passed']} passed, {found['failed']} failed, {found['not_run']} not run"
    return line + (f", {found['unapproved']} unapproved" if found["unapproved"] else "")


class CheckFold:
    """The snapshot's `checks`, folded from events of CHECK_KINDS in order (fold.py folds every
    event with one; a session's reads fold only those kinds, from where they left off).

    Per step with a check, its run window begins with the plan event that gave the step its
    check or its completion: the latest run of that very check text in the window is the one
    shown. The approved checks are those of the plan the person last approved (approval binds
    the plan as it stands: what was proposed, or the person's edit of it); a later edit of the
    person's that changes or removes one of them takes back that approval, an agent's does not
    (the step's approved check then still holds finish_plan back)."""

    __slots__ = ("approved", "completed", "cursor", "read", "runs", "since", "steps")

    def __init__(self) -> None:
        # step id -> (completed, check, its digest), for the current plan's steps with a check
        self.steps: dict[str, tuple[bool, str, str]] = {}
        self.completed: tuple[str, ...] = ()  # the current plan's completed steps, in order
        self.approved: dict[str, str] = {}  # step id -> the check the person approved
        self.runs: dict[str, dict] = {}  # step id -> its check's latest run in its window
        self.since: dict[str, int] = {}  # step id -> the seq its window began at
        self.read: list[tuple[str, bool, str | None]] = []  # what `plan` last read
        self.cursor = 0

    def copy(self) -> CheckFold:
        other = CheckFold()
        other.steps, other.completed, other.approved = self.steps, self.completed, self.approved
        other.runs, other.since, other.cursor = dict(self.runs), dict(self.since), self.cursor
        other.read = self.read
        return other

    def apply(self, seq: int, kind: str, data: dict) -> None:
        self.cursor = seq
        if kind == "plan_updated":
            steps = data["plan"]["steps"]
            read = [(s["id"], s["status"] == "completed", s.get("check")) for s in steps]
            self.plan(seq, read, data.get("author") == "user")
        elif kind == "decision" and data.get("action") == "approved":
            self.approved = {step: check for step, (_, check, _) in self.steps.items()}
        elif kind == "step_checked":
            step = self.steps.get(data["step_id"])
            if step is not None and step[2] == data["check_sha256"]:
                self.runs[data["step_id"]] = {
                    "ok": data["ok"],
                    "value": data["value"],
                    "error": data["error"],
                    "execution_count": data["execution_count"],
                    "seq": seq,
                }

    def plan(self, seq: int, read: list[tuple[str, bool, str | None]], by_person: bool) -> None:
        """A plan_updated event, as (step id, completed, check) of each step in order."""
        self.cursor = seq
        if read == self.read and not by_person:
            return  # most updates move a step in or out of progress: nothing checks read
        self.read = read
        now: dict[str, tuple[bool, str, str]] = {}
        for step_id, done, check in read:
            if check is None:
                continue
            before = self.steps.get(step_id)
            if before is not None and before[:2] == (done, check):
                now[step_id] = before
                continue
            now[step_id] = (done, check, check_digest(check))
            self.runs.pop(step_id, None)  # a new window: completed anew, or another check
            self.since[step_id] = seq
        for gone in self.steps.keys() - now.keys():
            self.runs.pop(gone, None)
            self.since.pop(gone, None)
        self.steps = now
        self.completed = tuple(step_id for step_id, done, _ in read if done)
        if by_person:  # the person's own change to a check they approved takes it back
            self.approved = {
                step: check for step, check in self.approved.items() if check == _text(now, step)
            }

    def approved_check(self, step_id: str) -> bool:
        return step_id in self.steps and self.approved.get(step_id) == self.steps[step_id][1]

    def view(self) -> dict[str, dict]:
        """The snapshot's `checks`: per step with a check, in the plan's order, its status and
        its latest run's value, error, execution count and seq (null where it has none)."""
        found = {}
        for step_id in self.steps:
            run = self.runs.get(step_id)
            if not self.approved_check(step_id):
                status = "unapproved"
            else:
                status = "not_run" if run is None else "passed" if run["ok"] else "failed"
            found[step_id] = {
                "status": status,
                "value": None if run is None else run["value"],
                "error": None if run is None else run["error"],
                "execution_count": None if run is None else run["execution_count"],
                "seq": None if run is None else run["seq"],
            }
        return found

    def due(self) -> list[tuple[str, str, int]]:
        """The checks to run at the end of a cell: (step id, check, the seq its window began)
        of each completed step whose approved check has not run since it was completed."""
        return [
            (step_id, check, self.since[step_id])
            for step_id, (done, check, _) in self.steps.items()
            if done and step_id not in self.runs and self.approved_check(step_id)
        ]

    def holding_back(self) -> tuple[str, str, str | None] | None:
        """What finish_plan is refused for: the first completed step whose approved check
        failed ("failed", with its error or value), has not run since the step was completed
        ("not_run"), or is no longer the step's check since the agent changed or removed it
        ("changed"); None when no step holds it back."""
        for step_id in self.completed:
            approved = self.approved.get(step_id)
            if approved is None:
                continue
            if _text(self.steps, step_id) != approved:
                return step_id, "changed", None
            run = self.runs.get(step_id)
            if run is None:
                return step_id, "not_run", None
            if not run["ok"]:
                return step_id, "failed", run["error"] if run["error"] is not None else run["value"]
        return None


def _text(steps: dict[str, tuple[bool, str, str]], step_id: str) -> str | None:
    step = steps.get(step_id)
    return None if step is None else step[1]


def has_checks(plan: Any) -> bool:
    """Whether any step of a plan (its JSON) has a check."""
    return plan is not None and any(step.get("check") is not None for step in plan["steps"])
