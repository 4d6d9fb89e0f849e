"""Behind PgBouncer in transaction pooling (Debian's 1.18, started by `make test`): the store's own
tests run through it as an engine (tests/engines.py); these are what only a pooler brings. The
listener goes to the server's own address (plans_listen), or, without one, the stores poll and
the process says so once; the hooks' read-only store reads through it too."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.errors import PlanStoreError
from jupyter_plans.store.readonly import open_read_only
from tests.engines import pgbouncer_database, server
from tests.waiting import wait_until

REPO = Path(__file__).parents[2]
TOKEN_QUERY = "SELECT (SELECT coalesce(sum(cursor), 0) FROM plans_sessions)%"
WRITER = """
import sys
from jupyter_plans import PlanStore
session = PlanStore(sys.argv[1]).session("s")
for line in sys.stdin:
    session.call_tool("record_decision", {"title": line.strip(), "rationale": "r"})
    print("done", flush=True)
"""
SAID = "is a connection pooler (such as PgBouncer)"


def listeners(connection) -> int:
    return connection.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN jupyter_plans' "
        "AND datname = current_database()"
    ).fetchone()[0]


def token_queries_since(connection, started) -> int:
    return connection.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE %s AND query_start > %s "
        "AND datname = current_database()",
        (TOKEN_QUERY, started),
    ).fetchone()[0]


class Writer:
    """Another process writing through PgBouncer, one decision a line."""

    def __init__(self, url: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )

    def decide(self, title: str) -> None:
        self.process.stdin.write(title + "\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "done"

    def close(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0


def test_with_plans_listen_another_processs_commit_is_told_and_idle_asks_nothing():
    with pgbouncer_database() as url, server(url) as direct:
        store = PlanStore(url)
        assert store._backend.pooler, "the store did not see PgBouncer in front of the server"
        store.session("s").on()
        told = threading.Event()
        stop = store.on_change(told.set)
        assert stop is not None, "no listener through PgBouncer with plans_listen"
        wait_until(lambda: store._backend.notices.token() is not None, "the listener")
        assert listeners(direct) == 1  # on the server itself, not through the pooler
        writer = Writer(url)
        started = direct.execute("SELECT now()").fetchone()[0]
        try:
            for n in range(3):
                told.clear()
                before = store.change_token()
                writer.decide(f"decision {n}")
                assert told.wait(10), "the commit made through PgBouncer was not told"
                wait_until(lambda before=before: store.change_token() != before, "a new token")
            for _ in range(50):  # idle: cards read the token every 0.2 s
                store.change_token()
            assert token_queries_since(direct, started) == 0
        finally:
            writer.close()
        titles = [d.title for d in store.session("s").snapshot().decisions]
        assert titles == [f"decision {n}" for n in range(3)]
        stop()
        store.close()


# In a process of its own: what it says reaches its stderr, once for the process.
POLLING = """
import sys, time
from jupyter_plans import PlanStore
stores = [PlanStore(sys.argv[1]) for _ in range(2)]
assert all(s.on_change(lambda: None) is None for s in stores), "told, without a listener"
first = stores[0].change_token()
print("polling", flush=True)
sys.stdin.readline()  # another process commits meanwhile
assert all(s.change_token() != first for s in stores), "the poll did not see the commit"
stores[0].session("s").off()
for s in stores:
    s.close()
print("done", flush=True)
"""


@pytest.mark.parametrize("listen", [None, "off"])
def test_without_a_listening_address_stores_poll_and_it_is_said_once(listen):
    with pgbouncer_database(listen=False) as url, server(url) as direct:
        if listen is not None:
            url += f"?plans_listen={listen}"
        process = subprocess.Popen(
            [sys.executable, "-c", POLLING, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert process.stdout.readline() == "polling\n", process.stderr.read()
        assert listeners(direct) == 0  # no LISTEN went through the pooler
        writer = Writer(url)
        writer.decide("from elsewhere")
        writer.close()
        out, err = process.communicate("go\n", timeout=60)
    assert process.returncode == 0 and out == "done\n", err
    if listen is None:  # said once, with what to do about it
        assert err.count(SAID) == 1, err
        assert "plans_listen=HOST:PORT" in err and len(err.strip().splitlines()) == 1, err
    else:  # asked for: nothing said
        assert err == ""


@pytest.mark.parametrize(
    "value", ["db:port", "db:70000", "db:0", "user%40db:5432", "a/b", "x&plans_listen=y"]
)
def test_a_listening_address_that_is_no_address_is_refused_in_one_line(value):
    from tests.engines import postgres_schema

    with postgres_schema() as url:
        with pytest.raises(PlanStoreError) as refused:
            PlanStore(f"{url}&plans_listen={value}")
    message = str(refused.value)
    assert "plans_listen" in message and "HOST[:PORT]" in message and "\n" not in message


def test_the_hooks_read_only_store_reads_through_pgbouncer():
    """PgBouncer refuses settings at connect (`options`): each read transaction sets its own."""
    with pgbouncer_database() as url:
        with PlanStore(url) as store:
            store.session("s").call_tool(
                "update_plan", {"expected_revision": 0, "steps": [{"id": "a", "description": "A"}]}
            )
            store.session("s").on()
        with open_read_only(url) as reader:
            for _ in range(10):  # past psycopg's threshold for preparing a statement
                assert reader.gate("s") == ("plan", None)
            with pytest.raises(PlanStoreError, match="read-only transaction"), reader.read() as tx:
                tx.value("CREATE TABLE plans_intruder (x int)")
            with pytest.raises(PlanStoreError, match="statement timeout"), reader.read() as tx:
                tx.value("SELECT pg_sleep(60)")  # cut at the store's statement timeout
