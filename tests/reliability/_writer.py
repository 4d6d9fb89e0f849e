"""A writer process for the reliability tests: updates one session, retrying stale revisions.

    python -m tests.reliability._writer DB NAME COUNT [--trace]

Each update replaces this writer's own step and keeps everyone else's, so a lost update
shows as a missing call id. With --trace the writer prints each call id and the revision it
expects before sending it, so a test that kills it knows which call was in flight (every step
is sent whole, as a snapshot shows it, so the call can be made again from the plan). Prints its
stale retries at the end.
"""

import sys

from jupyter_plans import PlanStore


def arguments(session, name: str, i: int) -> dict:
    snap = session.snapshot()
    revision = snap.plan.revision if snap.plan else 0
    steps = [s.model_dump() for s in snap.plan.steps] if snap.plan else []
    steps = [s for s in steps if s["id"] != name][-30:]
    steps.append(
        {
            "id": name,
            "description": f"{name} update {i}",
            "status": "pending",
            "acceptance": None,
            "depends_on": [],
            "evidence": None,
            "check": None,
        }
    )
    return {"expected_revision": revision, "steps": steps}


def main(db: str, name: str, count: int, trace: bool) -> None:
    session = PlanStore(db).session("shared")
    stale = 0
    for i in range(count):
        while True:
            args = arguments(session, name, i)
            if trace:
                print(f"{name}-{i} {args['expected_revision']}", flush=True)
            result = session.call_tool("update_plan", args, call_id=f"{name}-{i}")
            if not result.is_error:
                break
            if "expected_revision" not in result.content:
                raise SystemExit(f"unexpected refusal: {result.content}")
            stale += 1
    print(f"stale {stale}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), "--trace" in sys.argv[4:])
