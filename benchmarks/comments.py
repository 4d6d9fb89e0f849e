"""What a person's comment costs (DESIGN section 14), in one run: adding a comment to a 32-step
plan that already holds 64 comments, against one update_plan of the same plan, on a SQLite plan
file with synchronous=FULL.

The session holds 64 comments: 63 not resolved (some addressed by the agent) and one resolved, so
each comment added is the 64th not resolved (the most a session holds); it is resolved after it
is timed (not counted), so the next one is too, and the resolved ones pile up as in a long
review. The two series alternate, so both see the same machine; update_plan sends
the whole 32-step plan back with one status changed, as an agent does.
"""

from __future__ import annotations

import os
import tempfile
import time

from _table import ratio_table

from jupyter_plans import PlanStore

ROUNDS = 600
STEPS = [{"id": f"s{n}", "description": f"Step number {n} of the plan"} for n in range(32)]


def main() -> dict[str, float]:
    folder = tempfile.mkdtemp()
    with PlanStore(os.path.join(folder, "bench.plans.sqlite")) as store:
        session = store.session("bench")
        session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        for n in range(64):  # 63 not resolved and one resolved
            made = session.comment(f"s{n % 32}", f"comment {n}: use the median here", by="ann")
            if n == 7:
                session.resolve_comment(made.id, by="ann")
        for n in range(0, 20, 3):
            session.call_tool("comment_reply", {"comment_id": f"c{n + 1}", "reply": "done"})
        assert sum(c.status != "resolved" for c in session.snapshot().comments) == 63
        samples: dict[str, list[float]] = {"update_plan, 32 steps": [], "comment": []}
        revision = session.snapshot().plan.revision
        for n in range(ROUNDS):
            steps = [dict(step) for step in STEPS]
            steps[n % 32]["status"] = "in_progress"
            start = time.perf_counter()
            result = session.call_tool(
                "update_plan", {"expected_revision": revision, "steps": steps}
            )
            samples["update_plan, 32 steps"].append(time.perf_counter() - start)
            assert not result.is_error, result.content
            revision += 1
            start = time.perf_counter()
            made = session.comment(f"s{n % 32}", "label the y axis in dollars", by="ann")
            samples["comment"].append(time.perf_counter() - start)
            session.resolve_comment(made.id, by="ann")  # not counted
        shown = session.snapshot().comments
        assert sum(c.status != "resolved" for c in shown) == 63
    print(
        f"comments: adding a comment to a 32-step plan with 64 comments, {ROUNDS} times, "
        "against one update_plan of that plan"
    )
    figures = ratio_table(samples, "update_plan, 32 steps")
    figures["comment / update_plan"] = figures["comment"]
    return figures


if __name__ == "__main__":
    main()
