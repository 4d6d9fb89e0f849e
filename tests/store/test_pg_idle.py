"""PostgreSQL connections are let go of once idle (store/pg_idle.py): a store that has not been
used for a few seconds holds none of the server's but its listening one, and its next write
costs one connect; closing between transactions never breaks one."""

import threading
import time

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.pg_idle import IDLE, IDLE_SECONDS
from tests.engines import connections, pgbouncer_database, postgres_schema, server
from tests.waiting import wait_until

STEPS = [{"id": "a", "description": "A"}]


def test_an_idle_store_holds_only_its_listening_connection_and_writes_again_with_one_connect():
    with postgres_schema() as url, server(url) as direct:
        tag = f"plans-idle-{time.time_ns()}"
        store = PlanStore(f"{url}&application_name={tag}")
        session = store.session("s")
        session.on()
        assert store.on_change(lambda: None) is not None  # a card's listener
        other = threading.Thread(target=session.off)  # a second thread: a second connection
        other.start()
        other.join()
        wait_until(lambda: len(connections(direct, tag)) == 3, "three connections")
        started = time.monotonic()
        wait_until(
            lambda: len(connections(direct, tag)) == 1, "the idle ones let go of", 4 * IDLE_SECONDS
        )
        assert time.monotonic() - started > IDLE_SECONDS / 2, "let go of while still in use"
        [(query, listening_since)] = connections(direct, tag)
        assert query == "LISTEN jupyter_plans"

        session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        held = connections(direct, tag)
        assert len(held) == 2, "a write after idling opened more than one connection"
        assert sorted(start for _q, start in held)[0] == listening_since  # the listener stayed
        assert session.snapshot().plan.revision == 1
        store.close()
        wait_until(lambda: not connections(direct, tag), "every connection closed")


@pytest.mark.parametrize("engine", ["postgresql", "pgbouncer"])
def test_connections_closed_between_transactions_lose_and_break_nothing(engine, monkeypatch):
    """With connections let go of after 20 ms, four threads writing and reading by turns keep
    finding theirs closed as they begin: every write lands once, and none fails."""
    monkeypatch.setattr(IDLE, "seconds", 0.02)
    closed = IDLE.closed
    where = postgres_schema() if engine == "postgresql" else pgbouncer_database()
    with where as url, PlanStore(url) as store:
        session = store.session("s")
        failures: list[BaseException] = []

        def work(name: str) -> None:
            try:
                for n in range(15):
                    session.call_tool("record_decision", {"title": f"{name} {n}", "rationale": "r"})
                    session.snapshot()
                    time.sleep(0.01 * (n % 4))  # now and then idle past the 20 ms
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures, failures
        titles = sorted(d.title for d in session.snapshot().decisions)
        assert titles == sorted(f"t{i} {n}" for i in range(4) for n in range(15))
        events = session.events()
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert IDLE.closed > closed + 10, "hardly any connection was let go of: it proved nothing"


IDLE_THEN_WRITE = """
import sys, time
from jupyter_plans import PlanStore
from jupyter_plans.store.pg_idle import IDLE
IDLE.seconds = 0.05
store = PlanStore(sys.argv[1])
session = store.session("s")
store.on_change(lambda: None)
for n in range(5):
    closed = IDLE.closed
    session.call_tool("record_decision", {"title": str(n), "rationale": "r"})
    while IDLE.closed == closed:
        time.sleep(0.01)
store.close()
print("done", flush=True)
"""


@pytest.mark.parametrize("engine", ["postgresql", "pgbouncer"])
def test_connections_let_go_of_print_nothing(engine):
    """In a process of its own, so that whatever the driver or its pool writes is seen."""
    import subprocess
    import sys
    from pathlib import Path

    where = postgres_schema() if engine == "postgresql" else pgbouncer_database()
    with where as url:
        done = subprocess.run(
            [sys.executable, "-c", IDLE_THEN_WRITE, url],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).parents[2],
        )
        with PlanStore(url) as store:
            assert len(store.session("s").snapshot().decisions) == 5
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr
    assert done.stderr == ""
