"""PostgreSQL change notices with many listening processes: what an idle database is asked, and
how soon a commit reaches every process (DESIGN section 12).

N processes (100 by default, JUPYTER_PLANS_BENCH_LISTENERS) each hold a store of one shared
database as a notebook with a live card does: told of changes by the server (LISTEN), and
reading the store's change token every 0.2 s as the card's poll does. While nothing changes,
the database is watched for queries of the change token (pg_stat_activity); then one writer
commits, and each process notes when it was told. Needs a server:
$JUPYTER_PLANS_TEST_POSTGRES (`make bench` starts one).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.engines import postgres_schema  # noqa: E402

LISTENERS = int(os.environ.get("JUPYTER_PLANS_BENCH_LISTENERS", "100"))
COMMITS = 20
IDLE_SECONDS = 5.0
TOKEN_QUERY = "SELECT (SELECT coalesce(sum(cursor), 0) FROM plans_sessions)%"

LISTENER = """
import json, sys, threading, time
from jupyter_plans import PlanStore
store = PlanStore(sys.argv[1])
told = []
store.on_change(lambda: told.append(time.time()))
while store._backend.notices.token() is None:
    time.sleep(0.05)
print("ready", flush=True)
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
while not stop.wait(0.2):
    store.change_token()  # as a card's poll does
print(json.dumps(told), flush=True)
"""


def main() -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    from jupyter_plans import PlanStore

    with postgres_schema() as url:
        writer = PlanStore(url).session("s")
        writer.on()
        plain = make_url(url).set(drivername="postgresql", query={})
        admin = psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True)
        started = time.monotonic()
        listeners = [
            subprocess.Popen(
                [sys.executable, "-c", LISTENER, url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(LISTENERS)
        ]
        for process in listeners:
            assert process.stdout.readline().strip() == "ready"
        print(f"{LISTENERS} processes listening after {time.monotonic() - started:.1f} s")
        since = admin.execute("SELECT now()").fetchone()[0]
        time.sleep(IDLE_SECONDS)
        asked = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE %s AND query_start > %s",
            (TOKEN_QUERY, since),
        ).fetchone()[0]
        commits = []
        for n in range(COMMITS):
            commits.append(time.time())  # the call's start: the write's own time is counted
            writer.call_tool("record_decision", {"title": f"d{n}", "rationale": "r"})
            time.sleep(0.1)
        time.sleep(0.5)
        latencies = []
        for process in listeners:
            out, _ = process.communicate("", timeout=60)
            told = json.loads(out.strip().splitlines()[-1])
            for committed in commits:
                after = [t for t in told if t >= committed]
                latencies.append(min(after) - committed if after else float("inf"))
        latencies.sort()
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(
            f"idle {IDLE_SECONDS:.0f} s, {LISTENERS} processes polling the token every 0.2 s: "
            f"{asked} queries of the change token reached the server"
        )
        print(
            f"write to notice (from the call's start), {COMMITS} commits x {LISTENERS} "
            "processes: median "
            f"{statistics.median(latencies) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
            f"max {latencies[-1] * 1000:.1f} ms"
        )
        admin.close()


if __name__ == "__main__":
    main()
