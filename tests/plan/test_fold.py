"""Folding the events from the start reproduces the snapshot, after every operation."""

import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_plans import DecisionRefused, PlanStore
from jupyter_plans.plan.checks import CheckRun
from jupyter_plans.plan.fold import fold
from jupyter_plans.session.checks import due_checks, record_check
from tests.engines import ENGINES, database

_IDS = ["a", "b", "c", "d"]

_step = st.builds(
    lambda i, status, deps, text, check: {
        "id": i,
        "description": text,
        "status": status,
        "depends_on": deps,
        **({} if check == "absent" else {"check": check}),
    },
    st.sampled_from(_IDS),
    st.sampled_from(["pending", "in_progress", "completed", "done"]),
    st.lists(st.sampled_from(_IDS), max_size=2),
    st.sampled_from(["load", "clean", "plot", "   "]),
    # A step's check (DESIGN section 17): none, one of two, or one that is no expression.
    st.sampled_from(["absent", None, "x > 0", "len(df) == 3", "x = 1"]),
)
_plan = st.fixed_dictionaries(
    {"steps": st.lists(_step, max_size=4), "stale": st.booleans(), "titled": st.booleans()}
)
_operation = st.one_of(
    st.tuples(st.just("update_plan"), _plan, st.sampled_from([None, "t1", "t2", "t3"])),
    st.tuples(st.just("plan_submit"), _plan, st.sampled_from([None, "t1", "t2", "t3"])),
    st.tuples(st.just("record_decision"), st.sampled_from(["keep", " "])),
    st.tuples(st.just("edit"), _plan),
    st.tuples(st.just("verb"), st.sampled_from(["on", "off", "approve", "approve_bad", "revise"])),
    st.tuples(st.just("queue"), st.sampled_from(["person", "automatic"])),
    st.tuples(st.just("deliver")),
    st.tuples(st.just("retry")),
    # The person's comments and the agent's replies (DESIGN section 14).
    st.tuples(
        st.just("comment"), st.sampled_from([*_IDS, None, "zz"]), st.sampled_from(["x", " "])
    ),
    st.tuples(st.just("comment_reply"), st.sampled_from(["c1", "c2", "c3"])),
    # A run of a step's check, as a kernel records it: asked for, or by itself after a cell
    # (then only within the run window it was found due in: `since`).
    st.tuples(
        st.just("checked"),
        st.sampled_from(_IDS),
        st.booleans(),
        st.sampled_from([None, "window", "stale"]),
    ),
    st.tuples(
        st.sampled_from(["resolve_comment", "reopen_comment"]), st.sampled_from(["c1", "c2"])
    ),
)


def _args(plan, snapshot, proposal):
    revision = snapshot.plan.revision if snapshot.plan else 0
    steps = [dict(s) for s in plan["steps"]]
    if proposal:
        for step in steps:
            step["status"] = "pending"
    body = {"phases": [{"title": "P", "steps": steps}]} if plan["titled"] else {"steps": steps}
    return {"expected_revision": revision + (1 if plan["stale"] else 0), **body}


def _apply(session, operation, counter):
    kind = operation[0]
    snapshot = session.snapshot()
    if kind in ("update_plan", "plan_submit"):
        args = _args(operation[1], snapshot, kind == "plan_submit")
        session.call_tool(kind, args, turn_id=operation[2], call_id=f"c{counter}")
    elif kind == "record_decision":
        session.call_tool("record_decision", {"title": operation[1], "rationale": "because"})
    elif kind == "retry":
        session.call_tool("record_decision", {"title": "again", "rationale": "r"}, call_id="c1")
    elif kind == "edit":
        try:
            session.edit_plan(_args(operation[1], snapshot, False))
        except DecisionRefused:
            pass
    elif kind == "verb":
        verb = operation[1]
        try:
            if verb == "approve_bad":
                session.approve("0" * 64)
            elif verb == "revise":
                session.revise("please split step b")
            else:
                getattr(session, verb)()
        except DecisionRefused:
            pass
    elif kind == "comment":
        try:
            session.comment(operation[1], operation[2])
        except DecisionRefused:
            pass
    elif kind == "comment_reply":
        session.call_tool(kind, {"comment_id": operation[1], "reply": f"did {counter}"})
    elif kind in ("resolve_comment", "reopen_comment"):
        try:
            getattr(session, kind)(operation[1])
        except DecisionRefused:
            pass
    elif kind == "checked":
        _checked(session, *operation[1:])
    elif kind == "queue":
        session.queue_message(f"message {counter}", source=operation[1])
    else:
        session.deliver()


def _checked(session, step_id, ok, window):
    plan = session.snapshot_data()["plan"]
    check = (
        next((s.get("check") for s in plan["steps"] if s["id"] == step_id), None) if plan else None
    )
    if check is None:
        return
    run = CheckRun(
        ok, None if not ok else "True", None if ok else "NameError: name 'x' is not defined"
    )
    if window is None:  # the person asked
        record_check(session, step_id, check, run, 7, {"name": "alice", "via": "magic"})
        return
    _, due = due_checks(session)
    since = next((since for step, _, since in due if step == step_id), None)
    if since is not None:
        record_check(session, step_id, check, run, 8, None, since - (window == "stale"))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@pytest.mark.parametrize("engine", ENGINES)
@given(st.lists(_operation, min_size=1, max_size=25))
def test_folding_events_reproduces_the_snapshot_after_every_operation(engine, operations):
    with tempfile.TemporaryDirectory() as folder, database(engine, Path(folder)) as location:
        with PlanStore(location) as store:
            session = store.session("s")
            for counter, operation in enumerate(operations):
                _apply(session, operation, counter)
                events = session.events()
                assert [e.seq for e in events] == list(range(1, len(events) + 1))
                assert fold("s", events) == session.snapshot()


# Steps that check themselves (DESIGN section 17): plans that are always valid, so that every
# operation moves the checks, folded as a session's reads fold them (from where they left off).
_CHECKS = st.sampled_from([None, "x > 0", "len(df) == 3", "ok"])
_check_operation = st.one_of(
    st.tuples(st.just("submit"), st.lists(_CHECKS, min_size=3, max_size=3)),
    st.tuples(st.just("approve")),
    st.tuples(
        st.just("status"),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["pending", "in_progress", "completed"]),
    ),
    st.tuples(st.sampled_from(["agent_check", "person_check"]), st.sampled_from("abc"), _CHECKS),
    st.tuples(
        st.just("checked"),
        st.sampled_from(["a", "b", "c"]),
        st.booleans(),
        st.sampled_from([None, "window", "stale"]),
    ),
)


def _apply_check_operation(session, operation):
    kind, plan = operation[0], session.snapshot_data()["plan"]
    if kind == "submit":
        steps = [
            {"id": i, "description": f"do {i}", "check": check}
            for i, check in zip("abc", operation[1], strict=True)
        ]
        session.on()
        args = {"explanation": "e", "findings": [], "objectives": [], "steps": steps}
        assert not session.call_tool("plan_submit", args).is_error
    elif kind == "approve":
        with contextlib.suppress(DecisionRefused):  # none waits, or the plan moved since
            session.approve()
    elif kind == "checked":
        _checked(session, *operation[1:])
    elif plan is not None:
        steps = [dict(step) for step in plan["steps"]]
        for step in steps:
            if step["id"] != operation[1]:
                if kind == "status" and operation[2] == "in_progress":
                    step["status"] = (
                        "pending" if step["status"] == "in_progress" else step["status"]
                    )
                continue
            if kind == "status":
                step["status"] = operation[2]
            else:
                step["check"] = operation[2]
        args = {"expected_revision": plan["revision"], "steps": steps}
        if kind == "person_check":
            session.edit_plan(args)
        else:
            assert not session.call_tool("update_plan", args).is_error


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.parametrize("engine", ENGINES)
@given(st.lists(_check_operation, min_size=1, max_size=20))
def test_folding_events_reproduces_the_checks_after_every_operation(engine, operations):
    with tempfile.TemporaryDirectory() as folder, database(engine, Path(folder)) as location:
        with PlanStore(location) as store:
            session = store.session("s")
            for operation in operations:
                _apply_check_operation(session, operation)
                assert fold("s", session.events()) == session.snapshot()
            folded = fold("s", session.events())
        with PlanStore(location) as again:  # a process that never folded them before
            assert again.session("s").snapshot() == folded
