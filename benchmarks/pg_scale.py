"""PostgreSQL for a team at scale: processes, each a store with a live watcher as a kernel's card
has, writing now and then, on one database of a server with max_connections=100 (`make bench`
starts it so), straight to the server and through PgBouncer in transaction pooling.

Each process watches its own session, as a card of its notebook does; another process (an agent,
a teammate) commits to a few of them at a time, and each commit is timed from the committing
call's start to the watcher seeing it. For 10, 50 and 100 processes: connections refused (a
write, or a listener, turned away by a full server), the p95 of a write, the p95 from commit to
wake, the server's connections at the busiest and once every process has been idle for a few
seconds. Three ways to set a team up:
- PostgreSQL: every process connects to the server itself;
- PgBouncer + plans_listen: writes and reads through PgBouncer, the listener on the server;
- PgBouncer, polling (plans_listen=off): everything through PgBouncer, the watchers poll.
Needs $JUPYTER_PLANS_TEST_POSTGRES and $JUPYTER_PLANS_TEST_PGBOUNCER (`make bench` starts both).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _table import percentile  # noqa: E402

from jupyter_plans.store.pg_idle import IDLE_SECONDS  # noqa: E402

SIZES = tuple(int(n) for n in os.environ.get("JUPYTER_PLANS_BENCH_SCALE", "10,50,100").split(","))
WRITE_EVERY = 10.0  # seconds between one process's writes, about
ROUNDS, TARGETS = 15, 5  # rounds of timed commits, and the processes each round commits to
WORKER = str(Path(__file__).with_name("_scale_worker.py"))
TAG = "plans-scale"  # the application_name of the processes' connections
# The processes' role: a team's, no superuser, so the server keeps its last connections for the
# benchmark's own (superuser_reserved_connections), which write the timed commits and count.
ROLE = "plans"


class Workers:
    """The processes, started once, each opening the store of whichever way is measured."""

    def __init__(self, count: int) -> None:
        self.processes = [
            subprocess.Popen(
                [sys.executable, WORKER, f"w{n}"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=Path(__file__).resolve().parents[1],
            )
            for n in range(count)
        ]
        for process in self.processes:  # all imported before anything is measured
            assert json.loads(process.stdout.readline()) == {"ready": True}

    def ask(self, which: slice, command: dict) -> list[dict]:
        chosen = self.processes[which]
        for process in chosen:
            process.stdin.write(json.dumps(command) + "\n")
            process.stdin.flush()
        return [json.loads(process.stdout.readline()) for process in chosen]

    def stop(self) -> None:
        for process in self.processes:
            process.stdin.close()
        for process in self.processes:
            process.wait(timeout=60)


class Server:
    """What the server and PgBouncer hold for one database."""

    def __init__(self, database: str) -> None:
        import psycopg
        from sqlalchemy.engine import make_url

        self.database = database
        server = make_url(os.environ["JUPYTER_PLANS_TEST_POSTGRES"]).set(drivername="postgresql")
        bouncer = make_url(os.environ["JUPYTER_PLANS_TEST_PGBOUNCER"]).set(drivername="postgresql")
        connect = psycopg.connect
        self.admin = connect(server.render_as_string(hide_password=False), autocommit=True)
        self.console = connect(
            bouncer.set(database="pgbouncer").render_as_string(hide_password=False),
            autocommit=True,
            prepare_threshold=None,  # the admin console prepares nothing
        )

    def connections(self) -> tuple[int, int]:
        """(the server's connections to the database, of which listening)."""
        return self.admin.execute(
            "SELECT count(*), count(*) FILTER (WHERE query = 'LISTEN jupyter_plans') "
            "FROM pg_stat_activity WHERE datname = %s",
            (self.database,),
        ).fetchone()

    def clients(self, bouncer: bool) -> int:
        """The processes' connections that are not listening: to PgBouncer, or the server."""
        if bouncer:
            clients = self.console.execute("SHOW CLIENTS").fetchall()
            return sum(1 for c in clients if c[2] == self.database and c[-1] == TAG)
        return self.admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s "
            "AND query <> 'LISTEN jupyter_plans'",
            (self.database, TAG),
        ).fetchone()[0]

    def close(self) -> None:
        self.console.close()
        self.admin.close()


def ways(database: str) -> list[tuple[str, str]]:
    from sqlalchemy.engine import make_url

    team = {"database": database, "username": ROLE}
    server = make_url(os.environ["JUPYTER_PLANS_TEST_POSTGRES"]).set(**team)
    bouncer = make_url(os.environ["JUPYTER_PLANS_TEST_PGBOUNCER"]).set(**team)
    listen = {"plans_listen": f"{server.host}:{server.port}"}
    named = {"application_name": TAG}
    return [
        ("PostgreSQL", server.update_query_dict(named)),
        ("PgBouncer + plans_listen", bouncer.update_query_dict({**named, **listen})),
        ("PgBouncer, polling", bouncer.update_query_dict({**named, "plans_listen": "off"})),
    ]


def refused(lines: list[str]) -> int:
    return sum(1 for line in lines if "too many" in line or "connection slots" in line)


def wake_latencies(reports: list[dict], probes: list[tuple[int, int, float]]) -> tuple[list, int]:
    """From each timed commit's start to its watcher's first sight of it (or of a later
    cursor)."""
    latencies, missed = [], 0
    for target, cursor, started in probes:
        after = [when for at, when in reports[target]["seen"] if at >= cursor]
        if after:
            latencies.append(max(0.0, min(after) - started))
        else:
            missed += 1
    return latencies, missed


def measure(workers: Workers, way: str, url: str, server: Server, size: int, opened: int) -> dict:
    from jupyter_plans import PlanStore

    replies = workers.ask(slice(opened, size), {"open": url})
    not_opened = sum(1 for r in replies if not r["opened"])
    time.sleep(1.0)  # the new listeners begin
    workers.ask(slice(0, size), {"write_every": WRITE_EVERY})
    probes, peak = [], 0
    prober = url.replace(f"application_name={TAG}", "application_name=plans-probe").replace(
        f"://{ROLE}@", "://postgres@"
    )
    with PlanStore(prober) as store:
        for n in range(ROUNDS):
            for target in random.sample(range(size), min(TARGETS, size)):
                session = store.session(f"w{target}")
                started = time.time()
                session.call_tool("record_decision", {"title": f"p{n}", "rationale": "r"})
                probes.append((target, session.cursor(), started))
            peak = max(peak, server.connections()[0])
            time.sleep(random.uniform(0.3, 0.7))
        time.sleep(2.5)  # a watcher that polls where notices are told looks every 1 s
    reports = workers.ask(slice(0, size), {"report": True})
    # Idle now: each process lets go of its connections but the listening one (and, polling,
    # the one it polls on).
    bouncer, polling = "PgBouncer" in way, "plans_listen=off" in url
    deadline = time.monotonic() + 4 * IDLE_SECONDS
    while server.clients(bouncer) > (size if polling else 0) and time.monotonic() < deadline:
        time.sleep(0.2)
    clients = server.clients(bouncer) if bouncer else 0
    writes = [w for r in reports for w in r["writes"]]
    latencies, missed = wake_latencies(reports, probes)
    said = [line for r in reports for line in r["said"] + r["errors"]]
    idle, listening = server.connections()
    return {
        "refused": refused(said) + not_opened,
        "writes": len(writes),
        "write p50": statistics.median(writes) * 1000 if writes else float("nan"),
        "write p95": percentile(writes, 0.95) * 1000 if writes else float("nan"),
        "wake p50": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "wake p95": percentile(latencies, 0.95) * 1000 if latencies else float("nan"),
        "missed": missed,
        "peak": peak,
        "idle": idle,
        "listening": listening,
        "clients": clients,
    }


def main() -> dict[str, float]:
    if not os.environ.get("JUPYTER_PLANS_TEST_POSTGRES") or not os.environ.get(
        "JUPYTER_PLANS_TEST_PGBOUNCER"
    ):
        print("pg_scale: skipped (needs PostgreSQL and PgBouncer: make bench starts them)")
        return {}
    database = f"scale_{uuid.uuid4().hex[:8]}"
    server = Server(database)
    (limit,) = server.admin.execute("SHOW max_connections").fetchone()
    if not server.admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone():
        server.admin.execute(f"CREATE ROLE {ROLE} LOGIN")
    server.admin.execute(f'CREATE DATABASE "{database}" OWNER {ROLE}')
    started = time.perf_counter()
    workers = Workers(max(SIZES))
    print(
        f"\nPostgreSQL at scale: max_connections={limit}, processes writing every "
        f"{WRITE_EVERY:.0f} s or so, {ROUNDS * TARGETS} commits of another process timed to "
        "the watcher of their session"
    )
    header = (
        f"{'':26} {'procs':>5} {'refused':>7} {'write p50/p95 ms':>17} "
        f"{'commit-to-wake p50/p95 ms':>26} {'peak':>5} {'idle (listening)':>17} "
        f"{'PgBouncer clients':>17}"
    )
    print(header)
    figures: dict[str, float] = {}
    try:
        for way, url in ways(database):
            url = url.render_as_string(hide_password=False)
            opened = 0
            for size in SIZES:
                found = measure(workers, way, url, server, size, opened)
                opened = size
                missed = f" ({found['missed']} missed)" if found["missed"] else ""
                print(
                    f"{way:26} {size:5} {found['refused']:7} "
                    f"{found['write p50']:8.1f}/{found['write p95']:<8.1f} "
                    f"{found['wake p50']:12.0f}/{found['wake p95']:<6.0f}{missed:8} "
                    f"{found['peak']:5} {found['idle']:8} ({found['listening']}) "
                    f"{found['clients']:17}"
                )
                for key in ("refused", "write p95", "wake p95", "idle"):
                    figures[f"{way} {key} @{size}"] = found[key]
                # Straight to the server, what each process holds once idle (PgBouncer's own
                # connections to the server are its pool's, whatever the processes).
                figures[f"{way} held idle per process @{size}"] = found["idle"] / size
            workers.ask(slice(0, opened), {"close": True})
    finally:
        workers.stop()
        server.admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        server.close()
    print(f"({time.perf_counter() - started:.0f} s)")
    return figures


if __name__ == "__main__":
    main()
