"""PostgreSQL change notices (DESIGN section 12) on a real server: another process's commit is
told through LISTEN/NOTIFY without a poll, an idle process asks the database nothing, and a
lost listening connection falls back to the poll and comes back."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from tests.engines import postgres_schema
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


@pytest.fixture
def url():
    """A schema of its own, its connections named for this test: the server's other clients (the
    tests beside it) are not counted."""
    with postgres_schema() as location:
        yield f"{location}&application_name=plans-notices-{time.time_ns()}"


def admin(url: str):
    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    named = {k: v for k, v in parsed.query.items() if k == "application_name"}
    plain = parsed.set(drivername="postgresql", query=named)  # named as the test's stores
    return psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True)


def token_queries_since(connection, started) -> int:
    return connection.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE %s AND query_start > %s "
        "AND application_name = %s",
        (TOKEN_QUERY, started, _name(connection)),
    ).fetchone()[0]


def _name(connection) -> str:
    return connection.execute("SHOW application_name").fetchone()[0]


def listening(server) -> list[tuple[int]]:
    """The listening connections of this test's stores."""
    return server.execute(
        "SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN jupyter_plans' "
        "AND application_name = %s",
        (_name(server),),
    ).fetchall()


def test_another_processs_commit_is_told_and_an_idle_process_asks_nothing(url):
    store = PlanStore(url)
    store.session("s").on()
    told = threading.Event()
    stop = store.on_change(told.set)
    assert stop is not None
    notices = store._backend.notices
    wait_until(lambda: notices.token() is not None, "the listener")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    with admin(url) as server:
        started = server.execute("SELECT now()").fetchone()[0]
        try:
            for n in range(5):
                told.clear()
                before = store.change_token()
                writer.stdin.write(f"decision {n}\n")
                writer.stdin.flush()
                assert writer.stdout.readline().strip() == "done"
                assert told.wait(10), "no notice came"
                wait_until(lambda before=before: store.change_token() != before, "a new token")
            # Idle: cards and streams read the token every 0.2 s; it asks the server nothing.
            for _ in range(50):
                store.change_token()
            time.sleep(0.5)  # on purpose: idle for a while, in which nothing may ask either
            assert token_queries_since(server, started) == 0
        finally:
            writer.stdin.close()
            writer.wait(timeout=30)
        titles = [d.title for d in store.session("s").snapshot().decisions]
        assert titles == [f"decision {n}" for n in range(5)]

        # The listening connection is lost: the token is read from the database meanwhile,
        # and the listener comes back by itself.
        [(pid,)] = listening(server)
        server.execute("SELECT pg_terminate_backend(%s)", (pid,))
        wait_until(lambda: notices.token() is None, "the listener to see its loss")
        lost = server.execute("SELECT now()").fetchone()[0]
        store.change_token()
        assert token_queries_since(server, lost) == 1
        wait_until(lambda: notices.token() is not None, "the listener")
        assert len(listening(server)) == 1
    stop()
    store.close()
    # Given back when its last store closes: no connection is kept for nobody.
    wait_until(lambda: not notices._thread.is_alive(), "the listener to end")


def test_a_commit_in_another_schema_of_the_database_wakes_nobody_here(url):
    """Teams kept in schemas of one database: a write in one tells only that schema's stores."""
    with postgres_schema() as elsewhere:
        store, other = PlanStore(url), PlanStore(elsewhere)
        store.session("s").on()
        told = threading.Event()
        stop = store.on_change(told.set)
        notices = store._backend.notices
        wait_until(lambda: notices.token() is not None, "the listener")
        before = store.change_token()
        for n in range(3):
            other.session("s").call_tool("record_decision", {"title": f"t{n}", "rationale": "r"})
        # On purpose: a notice that must not come has no moment to wait for; its listener is
        # another connection, so nothing here tells when the other schema's notices have come.
        time.sleep(0.5)
        assert not told.is_set() and store.change_token() == before
        writer = PlanStore(url)
        writer.session("s").off()
        assert told.wait(10), "its own schema's commit was not told"
        wait_until(lambda: store.change_token() != before, "a new token")
        stop()
        for each in (store, other, writer):
            each.close()


def test_a_notice_names_the_session_it_changed(url):
    """A card reads its session again only after a notice that may concern it: one naming that
    session, or the store as a whole (the current session changed)."""
    store = PlanStore(url)
    store.session("s").on()
    notices = store._backend.notices
    wait_until(lambda: notices.token() is not None, "the listener")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER.replace('session("s")', "session(sys.argv[2])"), url, "t"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        mine, before = store.session_token("s"), store.change_token()
        writer.stdin.write("in t\n")
        writer.stdin.flush()
        assert writer.stdout.readline().strip() == "done"
        wait_until(lambda: store.change_token() != before, "a new token")  # told of it
        assert store.session_token("s") == mine  # but it was not about "s"
        theirs = store.session_token("t")
    finally:
        writer.stdin.close()
        writer.wait(timeout=30)
    other = PlanStore(url)
    other.session("s").off()
    wait_until(lambda: store.session_token("s") != mine, "a new token of s")
    assert store.session_token("t") == theirs
    other.set_current_session("t")  # the store as a whole: every session may read again
    wait_until(lambda: store.session_token("t") != theirs, "a new token of t")
    for each in (store, other):
        each.close()


def test_versions_that_send_or_hear_only_the_plain_notice_still_wake_and_are_woken(url):
    """A kernel of an earlier version, in a team part-way through an upgrade: its writes (the
    plain notice only) wake every card here, and it hears each write made here once."""
    import psycopg

    store = PlanStore(url)
    store.session("s").on()
    notices = store._backend.notices
    wait_until(lambda: notices.token() is not None, "the listener")
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as earlier:
        earlier.execute("LISTEN jupyter_plans")
        (schema,) = earlier.execute("SELECT current_schema()").fetchone()
        before = store.session_token("s")
        earlier.execute("SELECT pg_notify('jupyter_plans', current_schema())")  # its write
        wait_until(lambda: store.session_token("s") != before, "a new token of s")
        writer = PlanStore(url)
        for n in range(3):
            writer.session(f"w{n}").call_tool("record_decision", {"title": "d", "rationale": "r"})
        heard = []  # of this schema: the server's other schemas (tests beside this) notify too
        deadline = time.monotonic() + 10
        while len(heard) < 4 and time.monotonic() < deadline:  # its own, and the three
            heard += [n.payload for n in earlier.notifies(timeout=0.5, stop_after=1)]
            heard = [payload for payload in heard if payload == schema]
        assert heard == [schema] * 4
        again = [n.payload for n in earlier.notifies(timeout=0.5) if n.payload == schema]
        assert again == [], "a write was heard twice"
        writer.close()
    store.close()
