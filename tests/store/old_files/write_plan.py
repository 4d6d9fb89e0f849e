"""Run by make.py with an earlier commit's package first on sys.path: writes one session of a
plan file with what that code can do, and prints what it did and the snapshots it then reads
as JSON. Not a test module."""

import contextlib
import json
import sys

from jupyter_plans import PlanStore

path, session_id = sys.argv[1], sys.argv[2]
wrote = []


def step(name, fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - an earlier version may lack the verb
        print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    else:
        wrote.append(name)


STEPS = [
    {"id": "load", "description": "Load sales.csv"},
    {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
]
TEXT = {
    "explanation": "Clean first.",
    "findings": ["price is null in 412 rows"],
    "objectives": ["a weekly revenue chart"],
}

store = PlanStore(path)
session = store.session(session_id)
call = session.call_tool
step(
    "update_plan",
    lambda: call(
        "update_plan", {"expected_revision": 0, "steps": STEPS}, turn_id="turn-1", call_id="call-1"
    ),
)
step("on", session.on)
step("ask_user", lambda: call("ask_user", {"question": "Median or mean?"}, turn_id="turn-2"))
step(
    "plan_submit",
    lambda: call("plan_submit", {**TEXT, "steps": STEPS}, turn_id="turn-2", call_id="call-2"),
)
step("revise", lambda: session.revise("use the median"))
step(
    "plan_submit_again",
    lambda: call(
        "plan_submit",
        {**TEXT, "steps": STEPS[:1] + [{**STEPS[1], "description": "Fill with median"}]},
        turn_id="turn-3",
        call_id="call-3",
    ),
)
step("approve", lambda: session.approve(session.snapshot().pending_proposal_hash))
step(
    "record_decision",
    lambda: call(
        "record_decision",
        {"title": "Median", "rationale": "Prices are skewed.", "sources": ["eda"]},
        turn_id="turn-3",
        call_id="call-4",
    ),
)
step("comment", lambda: session.comment("clean", "keep the outliers"))
step("cell_ran", lambda: session.cell_ran("cell-1", 3, True, "df = load()"))
done = [{**s, "status": "completed"} for s in STEPS]
step(
    "update_plan_done",
    lambda: call("update_plan", {"expected_revision": 2, **TEXT, "steps": done}, turn_id="turn-4"),
)
step(
    "finish_plan",
    lambda: call(
        "finish_plan",
        {
            "review": [
                {"objective": TEXT["objectives"][0], "outcome": "drawn", "evidence": "figure 1"}
            ]
        },
        turn_id="turn-4",
    ),
)
step(
    "agent_status",
    lambda: session.record_agent_status(
        {"agent": "Claude Code", "mode": "default", "working": False}
    ),
)


def seen():
    try:
        from jupyter_plans.notebook.resume import remember_seen
    except ImportError:  # before the package had floors
        from jupyter_plans._resume import remember_seen

    remember_seen(session, "analysis.ipynb", session.snapshot().cursor)


step("seen", seen)
step("other_session", lambda: store.session("other").on())
snapshots = {
    name: store.session(name).snapshot().model_dump(mode="json") for name in (session_id, "other")
}
store.close()


def heartbeat():
    from jupyter_plans.store.readonly import open_read_only

    with contextlib.closing(open_read_only(path)) as guard:
        if not guard.record_seen("Claude Code", "2.1.332", "PreToolUse"):
            raise RuntimeError("no heartbeat written")


step("heartbeat", heartbeat)
print(json.dumps({"wrote": wrote, "snapshots": snapshots}))
