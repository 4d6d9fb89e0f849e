"""Connection loss on PostgreSQL: backends ended mid-run lose no update and double none, on the
server itself and through PgBouncer in transaction pooling (whose client connections end with
the server connection they were given)."""

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.plan.fold import fold
from tests.engines import pgbouncer_database, postgres_schema
from tests.reliability._writer import tally

ROOT = Path(__file__).resolve().parents[2]
WRITERS, UPDATES = 2, 300


def _terminate_writers(admin, schema_url_options: str) -> int:
    """End every client backend but the admin's own; the number ended."""
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() "
        "AND datname = current_database() AND application_name = %s",
        (schema_url_options,),
    ).fetchall()
    return sum(1 for (ended,) in rows if ended)


def server_url(db: str) -> str:
    """A libpq URL of the database `db` names, on the server itself (not through PgBouncer)."""
    from sqlalchemy.engine import make_url

    from tests.engines import postgres_base_url

    url = make_url(db)
    server = make_url(postgres_base_url()).set(drivername="postgresql", database=url.database)
    return server.render_as_string(hide_password=False)


@pytest.mark.parametrize("engine", ["postgresql", "pgbouncer"])
def test_terminated_backends_lose_and_double_nothing(engine, figure):
    psycopg = pytest.importorskip("psycopg")
    where = postgres_schema() if engine == "postgresql" else pgbouncer_database()
    with where as db:
        # The writers name themselves, so only their connections are ended (PgBouncer gives
        # its server connections the name of the client it serves).
        tag = f"plans-loss-{time.time_ns()}"
        url = db + f"&application_name={tag}"
        PlanStore(url).close()
        writers = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.reliability._writer", url, f"p{n}", str(UPDATES)]
                + ["--trace"],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(WRITERS)
        ]
        for writer in writers:
            assert writer.stdout.readline(), writer.stderr.read()
        admin_url = server_url(db)
        ended = rounds = 0
        rng = random.Random(5433)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            while any(w.poll() is None for w in writers):
                ended += _terminate_writers(admin, tag)
                rounds += 1
                time.sleep(rng.uniform(0.05, 0.15))  # on purpose: ended at any moment
        # Every writer has ended; its output through the reader that read its first line
        # (communicate() would read the pipe under that reader's buffer).
        outputs = [(w.stdout.read(), w.stderr.read()) for w in writers]
        for writer in writers:
            writer.stdout.close()
            writer.stderr.close()
        for writer, (_out, err) in zip(writers, outputs, strict=True):
            assert writer.returncode == 0, err
        sent_again = sum(tally(out)[1] for out, _ in outputs)
        with PlanStore(db) as store:
            session = store.session("shared")
            events, snapshot = session.events(), session.snapshot()
        accepted = [e.data["call_id"] for e in events if e.kind == "plan_updated"]
        expected = [f"p{n}-{i}" for n in range(WRITERS) for i in range(UPDATES)]
        assert sorted(accepted) == sorted(expected), "no update lost, none doubled"
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert fold("shared", events) == snapshot
        assert ended > 0, "the test ended no connection: it proved nothing"
        figure(
            f"{engine}: {ended} writer connections ended by pg_terminate_backend in {rounds} "
            "rounds; "
            f"{WRITERS} processes x {UPDATES} updates: {len(accepted)} accepted exactly once, "
            f"seq 1..{len(events)} gap-free; {sent_again} calls sent again by their writer "
            "once the store's own tries ran out"
        )
