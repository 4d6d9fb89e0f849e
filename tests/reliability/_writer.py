"""A writer process for the reliability tests: updates one session, retrying stale revisions.

    python -m tests.reliability._writer DB NAME COUNT [--trace]

Each update replaces this writer's own step and keeps everyone else's, so a lost update
shows as a missing call id. With --trace the writer prints each call id and the revision it
expects before sending it, so a test that kills it knows which call was in flight (every step
is sent whole, as a snapshot shows it, so the call can be made again from the plan). Prints its
stale retries, and the calls it sent again once the store's own tries at a lost connection
ran out, at the end.
"""

import sys

from jupyter_plans import PlanStore
from jupyter_plans.errors import ConnectionLost

RESENDS = 20  # calls a writer sends again in all before it gives up, naming the error


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


def tally(output: str) -> tuple[int, int]:
    """A writer's stale retries and calls sent again, from the last line it printed."""
    _, stale, _, lost = output.split()[-4:]
    return int(stale), int(lost)


def main(db: str, name: str, count: int, trace: bool) -> None:
    session = PlanStore(db).session("shared")
    stale = lost = 0
    for i in range(count):
        args = None
        while True:
            try:
                args = args or arguments(session, name, i)
                if trace:
                    print(f"{name}-{i} {args['expected_revision']}", flush=True)
                result = session.call_tool("update_plan", args, call_id=f"{name}-{i}")
            except ConnectionLost as error:
                # The store's own tries ran out (a loaded machine, connections ended every
                # 0.1 s): send the same call again, as an agent would; where it had landed,
                # its recorded result comes back and nothing is applied twice.
                lost += 1
                if lost > RESENDS:
                    gave_up = f"{name}-{i}: sent again {RESENDS} times, still lost: {error}"
                    raise SystemExit(gave_up) from None
                continue
            if not result.is_error:
                break
            if "expected_revision" not in result.content:
                raise SystemExit(f"unexpected refusal: {result.content}")
            stale += 1
            args = None
    print(f"stale {stale} lost {lost}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), "--trace" in sys.argv[4:])
