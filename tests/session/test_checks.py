"""Steps that check themselves (DESIGN section 17), through the session's API on SQLite and
PostgreSQL: a check's bounds, its place in the proposal's hash, which checks are approved, the
step_checked events and the snapshot's `checks` (and the fold, equal), the finish_plan gate,
and that no process without a kernel runs a check."""

from __future__ import annotations

import hashlib
import json

import pytest

from jupyter_plans import DecisionRefused
from jupyter_plans.plan.checks import CheckRun, check_digest
from jupyter_plans.plan.fold import fold
from jupyter_plans.session.checks import due_checks, record_check
from tests.waiting import next_millisecond

CLEAN = "df['price'].notna().all()"
FIT = "error < 0.10"
REVIEW = {"review": [{"objective": "A baseline", "outcome": "fitted", "evidence": "cell 9"}]}


def steps(statuses=None, **checks):
    """The plan's three steps; `checks` replaces a step's check (None: no check)."""
    found = [
        {"id": "clean", "description": "Drop rows with no price", "check": CLEAN},
        {"id": "fit", "description": "Fit the baseline", "check": FIT},
        {"id": "chart", "description": "Chart the fit"},
    ]
    for step in found:
        step["status"] = (statuses or {}).get(step["id"], "pending")
        if step["id"] in checks:
            step["check"] = checks[step["id"]]
    return found


def propose(session, **checks):
    session.on()
    args = {"explanation": "why", "findings": [], "objectives": ["A baseline"]}
    result = session.call_tool("plan_submit", {**args, "steps": steps(**checks)})
    assert not result.is_error, result.content
    return result


def update(session, statuses, **checks):
    plan = session.snapshot().plan
    args = {"expected_revision": plan.revision, "objectives": plan.objectives}
    result = session.call_tool("update_plan", {**args, "steps": steps(statuses, **checks)})
    assert not result.is_error, result.content


ALL_DONE = {"clean": "completed", "fit": "completed", "chart": "completed"}


def checks(session):
    return session.snapshot().model_dump(mode="json")["checks"]


def ran_by_itself(session, step_id, ok, value="False", count=7):
    """What a kernel does at the end of a cell for a check that came due."""
    _, due = due_checks(session)
    (since,) = [since for step, _, since in due if step == step_id]
    check = {s.id: s.check for s in session.snapshot().plan.steps}[step_id]
    return record_check(session, step_id, check, CheckRun(ok, value, None), count, None, since)


def body_hash(args):
    """DESIGN sections 3 and 17, computed here from the input: a step's check is bound."""
    body = {
        "explanation": args["explanation"],
        "findings": args["findings"],
        "objectives": args["objectives"],
        "phases": [
            {
                "title": None,
                "steps": [
                    {
                        "id": step["id"],
                        "description": step["description"],
                        "acceptance": None,
                        "depends_on": [],
                        "check": step.get("check"),
                    }
                    for step in args["steps"]
                ],
            }
        ],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_proposals_hash_binds_its_checks(session):
    propose(session)
    args = {"explanation": "why", "findings": [], "objectives": ["A baseline"], "steps": steps()}
    first = session.snapshot().pending_proposal_hash
    assert first == body_hash(args)
    again = {**args, "steps": steps(fit="error < 0.5")}
    assert not session.call_tool("plan_submit", again).is_error
    assert session.snapshot().pending_proposal_hash == body_hash(again)
    assert session.snapshot().pending_proposal_hash != first  # only a check changed


def test_only_the_checks_of_the_approved_plan_are_approved(session):
    propose(session)
    assert {step: c["status"] for step, c in checks(session).items()} == {
        "clean": "unapproved",
        "fit": "unapproved",
    }
    session.approve()
    assert {step: c["status"] for step, c in checks(session).items()} == {
        "clean": "not_run",
        "fit": "not_run",
    }
    # The agent changes a check after the approval: that check is unapproved, and never due.
    update(session, {"clean": "completed", "fit": "completed"}, fit="error < 0.90")
    assert checks(session)["fit"]["status"] == "unapproved"
    assert [step for step, _, _ in due_checks(session)[1]] == ["clean"]


def test_a_check_the_person_writes_before_approving_is_approved(session):
    propose(session, fit=None)
    plan = session.snapshot().plan.model_dump()
    plan["phases"][0]["steps"][1]["check"] = "error < 0.2"
    session.edit_plan({"expected_revision": plan["revision"], "phases": plan["phases"]})
    session.approve()
    assert checks(session)["fit"]["status"] == "not_run"
    # After the approval, a check the person adds is theirs to run, not approved by itself.
    plan = session.snapshot().plan.model_dump()
    plan["phases"][0]["steps"][2]["check"] = "len(figure.axes) == 1"
    session.edit_plan({"expected_revision": plan["revision"], "phases": plan["phases"]})
    assert checks(session)["chart"]["status"] == "unapproved"


def test_a_run_is_one_step_checked_event_and_changes_no_revision_or_hash(session):
    propose(session)
    session.approve()
    update(session, {"clean": "completed"})
    before = session.snapshot()
    seq = ran_by_itself(session, "clean", False, "False", count=9)
    after = session.snapshot()
    assert after.cursor == seq == before.cursor + 1
    assert (after.plan.revision, after.approved_proposal_hash, after.pending_proposal_hash) == (
        before.plan.revision,
        before.approved_proposal_hash,
        before.pending_proposal_hash,
    )
    (event,) = session.events(after=seq - 1)
    assert event.kind == "step_checked"
    assert event.data == {
        "step_id": "clean",
        "check_sha256": check_digest(CLEAN),
        "ok": False,
        "value": "False",
        "error": None,
        "execution_count": 9,
        "by": None,
    }
    assert checks(session)["clean"] == {
        "status": "failed",
        "value": "False",
        "error": None,
        "execution_count": 9,
        "seq": seq,
    }
    assert fold("s", session.events()) == session.snapshot()


def test_a_step_completed_again_runs_its_check_again(session):
    propose(session)
    session.approve()
    update(session, {"clean": "completed"})
    ran_by_itself(session, "clean", False)
    assert due_checks(session)[1] == []  # it ran since this completion
    update(session, {"clean": "in_progress"})
    assert checks(session)["clean"]["status"] == "not_run"  # a new window: no run in it yet
    update(session, {"clean": "completed"})
    assert [step for step, _, _ in due_checks(session)[1]] == ["clean"]
    ran_by_itself(session, "clean", True, "np.True_", count=12)
    assert checks(session)["clean"]["status"] == "passed"
    assert checks(session)["clean"]["execution_count"] == 12
    assert fold("s", session.events()) == session.snapshot()


def test_a_run_for_a_completion_that_no_longer_stands_is_not_recorded(session):
    propose(session)
    session.approve()
    update(session, {"clean": "completed"})
    _, due = due_checks(session)
    update(session, {"clean": "in_progress"})  # reopened while the run was on its way
    update(session, {"clean": "completed"})
    cursor = session.snapshot().cursor
    assert (
        record_check(session, "clean", CLEAN, CheckRun(True, "True", None), 5, None, due[0][2])
        is None
    )
    assert session.snapshot().cursor == cursor
    assert checks(session)["clean"]["status"] == "not_run"


@pytest.mark.parametrize("outcome", ["not_run", "failed", "changed"])
def test_finish_plan_is_refused_while_a_completed_steps_approved_check_does_not_hold(
    session, outcome
):
    propose(session)
    session.approve()
    update(session, ALL_DONE)
    ran_by_itself(session, "fit", True, "True")
    if outcome == "failed":
        ran_by_itself(session, "clean", False, "np.False_")
    if outcome == "changed":
        ran_by_itself(session, "clean", True, "True")
        update(session, ALL_DONE, clean="True")
    cursor = session.snapshot().cursor
    result = session.call_tool("finish_plan", REVIEW)
    assert result.is_error and "\n" not in result.content
    assert "step clean" in result.content
    said = {
        "not_run": "has not run since the step was completed",
        "failed": "failed in the notebook (np.False_)",
        "changed": "is no longer the step's check",
    }[outcome]
    assert said in result.content
    assert [e.kind for e in session.events(after=cursor)] == ["tool_finished"]


def test_finish_plan_is_taken_once_every_approved_check_passed(session):
    propose(session)
    session.approve()
    update(session, ALL_DONE)
    ran_by_itself(session, "clean", True, "True")
    ran_by_itself(session, "fit", True, "True")
    result = session.call_tool("finish_plan", REVIEW)
    assert not result.is_error, result.content


def test_no_process_without_a_kernel_runs_a_check(session):
    propose(session)
    session.approve()
    cursor = session.snapshot().cursor
    for run in (lambda: session.run_check("clean"), lambda: session.check_lines(by=None)):
        with pytest.raises(DecisionRefused) as refused:
            run()
        assert "only in the notebook's own kernel" in str(refused.value)
        assert "\n" not in str(refused.value)
    assert session.snapshot().cursor == cursor


def test_a_proposal_waiting_from_before_checks_stays_approvable(tmp_path):
    """A proposal submitted by a version before steps carried checks waits under the hash of
    its body without them: approving it still binds that text."""
    import sqlite3

    from jupyter_plans import PlanStore

    path = tmp_path / "a.plans.sqlite"
    args = {"explanation": "why", "findings": [], "objectives": [], "steps": steps(fit=None)}
    args["steps"] = [{k: v for k, v in s.items() if k != "check"} for s in args["steps"]]
    with PlanStore(path) as store:
        store.session("s").on()
        assert not store.session("s").call_tool("plan_submit", args).is_error
    body = {k: args[k] for k in ("explanation", "findings", "objectives")}
    listed = [
        {"id": s["id"], "description": s["description"], "acceptance": None, "depends_on": []}
        for s in args["steps"]
    ]
    body["phases"] = [{"title": None, "steps": listed}]
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    legacy = hashlib.sha256(text.encode()).hexdigest()
    with sqlite3.connect(path) as connection:  # as the earlier version left it
        connection.execute("UPDATE plans_sessions SET pending_proposal_hash = ?", (legacy,))
    connection.close()
    with PlanStore(path) as store:
        assert store.session("s").approve(legacy).approved_proposal_hash == legacy


def test_a_check_the_person_takes_out_after_approving_holds_nothing_back(session):
    propose(session)
    session.approve()
    update(session, ALL_DONE)
    ran_by_itself(session, "fit", True, "True")
    plan = session.snapshot().plan.model_dump()
    plan["phases"][0]["steps"][0]["check"] = None  # the person's own edit: clean's check goes
    session.edit_plan({"expected_revision": plan["revision"], "phases": plan["phases"]})
    assert list(checks(session)) == ["fit"]
    result = session.call_tool("finish_plan", REVIEW)
    assert not result.is_error, result.content


def test_a_session_made_later_under_a_renamed_ones_id_has_its_own_checks(store):
    """A notebook's session renamed with it (a shared database), and a new notebook under the
    old name: the new session's checks are its own, never what this process folded before."""
    from jupyter_plans.store.following.session_moves import rename

    old = store.session("a.ipynb")
    propose(old)
    old.approve()
    assert checks(old)["clean"]["status"] == "not_run"  # folded, and kept by this process
    assert rename(store, "a.ipynb", "b.ipynb") == "moved"
    next_millisecond()  # made later: not in the millisecond of the move
    new = store.session("a.ipynb")
    for revision in range(8):  # past the cursor the old session's fold was kept at
        args = {"expected_revision": revision, "steps": steps()}
        assert not new.call_tool("update_plan", args).is_error
    assert {step: c["status"] for step, c in checks(new).items()} == {
        "clean": "unapproved",  # the same text, never approved in this session
        "fit": "unapproved",
    }
    assert fold("a.ipynb", new.events()) == new.snapshot()
