"""Steps that check themselves (DESIGN section 17), on a session: the checks due at a cell's
end, a run recorded as its `step_checked` event, and `run_check`, which runs a check in the
kernel that has the session loaded, and nowhere else (the server, the CLI, a hook, the MCP
server and the bridge have no kernel bound: they read checks, check_rows.py, and run none)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DecisionRefused
from ..plan.checks import CheckRun, check_digest, result_words
from ..plan.comments import step_named
from ..plan.validation import Refused, quote
from ..plan.who import person
from ..store.transaction import reconnecting as _reconnecting
from .check_rows import checks_fold
from .events import plan_at

if TYPE_CHECKING:
    from .reads import SessionReads

# What runs checks in this process: the kernel's CheckRunner (notebook/checks.py) while the
# extension is loaded; None everywhere else.
_runner: Any = None

NOT_LOADED = (
    "a check runs only in the notebook's own kernel, with the plan extension loaded "
    "(%load_ext jupyter_plans): never in the server, the command line, a hook, the MCP server "
    "or the ACP bridge"
)


@_reconnecting
def due_checks(session: SessionReads) -> tuple[int, list[tuple[str, str, int]]]:
    """What a kernel runs at the end of a cell: the session's cursor, and (step id, check, the
    seq its run window began at) of each completed step whose approved check has not run since
    the step was completed."""
    with session.store.read() as tx:
        row = tx.first("SELECT_ROW", {"sid": session.session_id})
        if row is None:
            return 0, []
        plan = plan_at(tx, session.store, session.session_id, row.plan_seq)
        cache, born = session.store.check_cache, row.created_at
        fold = checks_fold(tx, cache, session.session_id, row.cursor, plan, born)
    return row.cursor, [] if fold is None else fold.due()


@_reconnecting
def record_check(
    session: SessionReads,
    step_id: str,
    check: str,
    run: CheckRun,
    execution_count: int | None,
    by: dict | None,
    since: int | None = None,
) -> int | None:
    """Record a run of `check` on step `step_id` as its step_checked event (it changes no
    revision and no hash); its seq. A run made at a cell's end by itself (`by` None, `since`
    the seq its window began at when it was found due) is not recorded when that window has
    closed since (the step was completed anew, reopened, or given another check): it ran for
    a completion that no longer stands. None then, and when the step no longer has that check.
    Only the kernel's runner (notebook/checks.py) and `run_check` record runs."""
    with session.writing() as change:
        s = change.state
        steps = s.plan["steps"] if s.plan else ()
        if not any(step["id"] == step_id and step.get("check") == check for step in steps):
            return None  # the step, or its check, changed while it ran
        if since is not None:
            born = change.tx.first("SELECT_ROW", {"sid": s.session_id}).created_at
            cache = session.store.check_cache
            fold = checks_fold(change.tx, cache, s.session_id, s.cursor, s.plan, born)
            if fold is None or fold.since.get(step_id) != since:
                return None
        data = {
            "step_id": step_id,
            "check_sha256": check_digest(check),
            "ok": run.ok,
            "value": run.value,
            "error": run.error,
            "execution_count": execution_count,
            "by": by,
        }
        return change.emit("step_checked", data)


def run_check(session: SessionReads, step_id: str, by: Any = None) -> dict:
    """Run the check of step `step_id` now, in this kernel's namespace, approved or not (the
    person asked), and record it: the step_checked event's data, with its `seq`. Refused in
    one line (DecisionRefused) outside the kernel that has this session loaded, and for a step
    with no check."""
    runner = _runner_of(session)
    by = person(by)
    step_id, check = step_check(session.snapshot_data()["plan"], step_id)
    run = runner.evaluate(check)
    count = runner.execution_count()
    seq = record_check(session, step_id, check, run, count, by)
    return {
        "step_id": step_id,
        "check_sha256": check_digest(check),
        "ok": run.ok,
        "value": run.value,
        "error": run.error,
        "execution_count": count,
        "by": by,
        "seq": seq,
    }


def step_check(plan: dict | None, step_id: Any) -> tuple[str, str]:
    """The id and the check of the step `step_id` (its id, or its 1-based position) names;
    refused in one line where there is none."""
    try:
        named = step_named(plan, step_id) if isinstance(step_id, str) else None
    except Refused as refusal:
        raise DecisionRefused(str(refusal)) from None
    step = next((s for s in (plan or {"steps": ()})["steps"] if s["id"] == named), None)
    if step is None:
        ids = ", ".join(s["id"] for s in plan["steps"]) if plan else ""
        raise DecisionRefused(
            f"no step {quote(step_id)} in the plan; its steps are: {ids or 'none'}"
        )
    if step.get("check") is None:
        raise DecisionRefused(f"step {step['id']} has no check to run")
    return step["id"], step["check"]


def bind_runner(runner: Any) -> None:
    """The extension, loading in a kernel, gives the runner of its checks (None on unload):
    `runner.serves(store, session_id)` says whether that session is the one loaded there."""
    global _runner
    _runner = runner


def _runner_of(session: SessionReads) -> Any:
    """The runner of this kernel, when it has this session (of the same database) loaded."""
    if _runner is None or not _runner.serves(session.store, session.session_id):
        raise DecisionRefused(NOT_LOADED)
    return _runner


def check_lines(session: SessionReads, by: Any) -> list[str]:
    """`%plan check all`: run each approved check of a completed step, and say of every step
    with a check, in the plan's order, one line ("clean: passed", "fit: failed: False",
    "chart: not run", "draft: unapproved"). A step not completed, or whose check the person
    did not approve, is not run."""
    runner = _runner_of(session)
    snapshot = session.snapshot_data()
    plan, checks = snapshot["plan"], snapshot["checks"]
    lines = []
    for step in plan["steps"] if plan else ():
        entry = checks.get(step["id"])
        if entry is None:
            continue
        if entry["status"] == "unapproved" or step["status"] != "completed":
            words = result_words(
                {"status": "unapproved" if entry["status"] == "unapproved" else "not_run"}
            )
        else:
            run = runner.evaluate(step["check"])
            record_check(session, step["id"], step["check"], run, runner.execution_count(), by)
            status = "passed" if run.ok else "failed"
            words = result_words({"status": status, "value": run.value, "error": run.error})
        lines.append(f"{step['id']}: {words}")
    return lines
