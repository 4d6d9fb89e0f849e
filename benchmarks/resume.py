"""Resume cost against history: open a store and take a session's snapshot, with 100,000 events
in the session's history and with 10, alternating, in one run.

What a restarted kernel does first. The long history is written once through the public API
(plan updates, queued and delivered messages, decisions), with the setup's connection at
synchronous=OFF so that writing it takes seconds rather than minutes; the files are then read
as any other. Both sessions end with the same 12-step plan and the same three decisions.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _table import ratio_table
from update_plan import plan_steps

from jupyter_plans import PlanStore

LONG, SHORT, ROUNDS = 100_000, 10, 60


def write_history(path: Path, events: int) -> None:
    with PlanStore(path) as store:
        store.connections.cursor().execute(
            "PRAGMA synchronous=OFF"
        )  # setup only; reads are unchanged
        session = store.session("s")
        revision = 0
        for title in ("Use parquet", "Drop 2019", "Weekly grain"):
            session.call_tool("record_decision", {"title": title, "rationale": "measured"})
        while session.cursor() < events - 1:
            if revision % 10 == 9:
                session.queue_message(f"note {revision}", source="automatic")
                session.deliver()
            args = {"expected_revision": revision, "steps": plan_steps(revision)}
            assert not session.call_tool("update_plan", args).is_error
            revision += 1
        while session.cursor() < events:
            session.queue_message("last", source="automatic")
        # The same final plan in both files.
        session.call_tool("update_plan", {"expected_revision": revision, "steps": plan_steps(5)})


def resume(path: Path) -> float:
    start = time.perf_counter()
    with PlanStore(path) as store:
        snapshot = store.session("s").snapshot()
    elapsed = time.perf_counter() - start
    assert snapshot.plan is not None and len(snapshot.decisions) == 3
    return elapsed


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        short, long = Path(folder) / "short.plans.sqlite", Path(folder) / "long.plans.sqlite"
        started = time.perf_counter()
        write_history(short, SHORT)
        write_history(long, LONG)
        setup = time.perf_counter() - started
        samples: dict[str, list[float]] = {"10 events": [], "100,000 events": []}
        for _ in range(ROUNDS):
            samples["10 events"].append(resume(short))
            samples["100,000 events"].append(resume(long))
        size = long.stat().st_size / 1e6
    print(
        f"resume: open the store and take the snapshot, {ROUNDS} times each, alternating "
        f"(history written in {setup:.0f} s; {size:.0f} MB file)"
    )
    return ratio_table(samples, "10 events", unit="ms", tail=False)


if __name__ == "__main__":
    main()
