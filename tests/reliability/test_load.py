"""Load: four processes x 500 updates on one session, on each engine; nothing lost or doubled."""

import subprocess
import sys
import time
from pathlib import Path

from jupyter_plans import PlanStore
from jupyter_plans.plan.fold import fold
from tests.reliability._writer import tally

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, UPDATES = 4, 500


def test_four_writers_lose_no_update_and_leave_no_gap(db, engine, figure):
    PlanStore(db).close()
    names = [f"w{n}" for n in range(PROCESSES)]
    started = time.perf_counter()
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.reliability._writer", db, name, str(UPDATES)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    outputs = [w.communicate(timeout=900) for w in writers]
    seconds = time.perf_counter() - started
    for writer, (_out, err) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, err
    tallies = [tally(out) for out, _ in outputs]
    stale = sum(stale for stale, _ in tallies)
    assert [lost for _, lost in tallies] == [0] * PROCESSES, "no connection was lost here"

    with PlanStore(db) as store:
        session = store.session("shared")
        events = session.events()
        snapshot = session.snapshot()
    accepted = [e.data["call_id"] for e in events if e.kind == "plan_updated"]
    assert sorted(accepted) == sorted(f"{n}-{i}" for n in names for i in range(UPDATES))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert snapshot.plan.revision == PROCESSES * UPDATES
    assert fold("shared", events) == snapshot
    # Each writer's last update is the step it left behind.
    assert {s.id: s.description for s in snapshot.plan.steps} == {
        n: f"{n} update {UPDATES - 1}" for n in names
    }
    figure(
        f"{engine}: {PROCESSES} processes x {UPDATES} updates = {len(accepted)} accepted once "
        f"each, seq 1..{len(events)} gap-free, {stale} stale retries, {seconds:.1f} s"
    )
