"""Crash: kill -9 a SQLite writer mid-commit, 50 times; the file and the history stay whole."""

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from jupyter_plans import PlanStore
from jupyter_plans.plan.fold import fold
from tests.reliability._writer import arguments

ROOT = Path(__file__).resolve().parents[2]
KILLS = 50


def test_kill_9_mid_commit_leaves_a_whole_file_and_a_safe_retry(tmp_path, figure):
    path = tmp_path / "crash.plans.sqlite"
    PlanStore(path).close()
    rng = random.Random(20261130)
    landed = applied_on_retry = 0
    for kill in range(KILLS):
        name = f"k{kill}"
        writer = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability._writer", str(path), name, "100000"]
            + ["--trace"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = writer.stdout.readline()
        assert first, writer.stderr.read()  # it is writing now
        time.sleep(rng.uniform(0, 0.05))  # on purpose: killed anywhere in a write
        writer.send_signal(signal.SIGKILL)
        assert writer.wait() == -signal.SIGKILL
        # The rest of its trace through the same reader: readline may have read past the first
        # line (a loaded machine lets the writer trace its next call first), and communicate()
        # would read the pipe under that buffer and never see those lines.
        out = writer.stdout.read()
        writer.stdout.close()
        writer.stderr.close()
        traced = (first + out).strip().splitlines()[-1]  # "CALL_ID EXPECTED_REVISION"
        in_flight = traced.split(" ", 1)[0]

        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
        with PlanStore(path) as store:
            session = store.session("shared")
            events, snapshot = session.events(), session.snapshot()
            # The last committed revision is intact: the state is the fold of the history.
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            assert fold("shared", events) == snapshot
            updates = [e for e in events if e.kind == "plan_updated"]
            assert (snapshot.plan.revision if snapshot.plan else 0) == len(updates)  # none yet
            was_recorded = any(e.data["call_id"] == in_flight for e in updates)
            landed += was_recorded
            # The writer never saw its result; whoever takes over retries the same call: the
            # plan it made when it landed, else the one it would make now.
            number = int(in_flight.rsplit("-", 1)[1])
            if was_recorded:
                steps = [step.model_dump() for step in snapshot.plan.steps]
                args = {"expected_revision": int(traced.split(" ", 1)[1]), "steps": steps}
            else:
                args = arguments(session, name, number)
            retry = session.call_tool("update_plan", args, call_id=in_flight)
            again = session.call_tool("update_plan", args, call_id=in_flight)
            assert not retry.is_error and again == retry
            after = session.events()
            applied_on_retry += len(after) - len(events)
            assert len(after) - len(events) == (0 if was_recorded else 1)
            assert [e.data["call_id"] for e in after if e.kind == "plan_updated"].count(
                in_flight
            ) == 1
    with PlanStore(path) as store:
        total = store.session("shared").snapshot().plan.revision
    figure(
        f"{KILLS} kill -9 of a writer: integrity_check ok {KILLS}/{KILLS}; in-flight call had "
        f"landed {landed} times (retry returned the recorded result, no new event) and not "
        f"{applied_on_retry} times (retry applied it once); {total} revisions in all"
    )
