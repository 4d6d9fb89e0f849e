"""PostgreSQL behind a flaky link: a connection lost while a store opens, or at the start of a
transaction (twice running), is retried as one lost mid-transaction; the driver's pool prints
nothing. A real server, reached through a TCP relay on 127.0.0.1 that cuts connections."""

import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from jupyter_plans import PlanStore
from tests.engines import postgres_schema

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.postgres


class Relay:
    """Forwards 127.0.0.1:port to the PostgreSQL server; can refuse new connections and cut
    the ones it carries."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.refuse_next = 0  # accept and at once close this many new connections
        self.accepted = 0
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
                if self.refuse_next > 0:
                    self.refuse_next -= 1
                    client.close()
                    continue
            server = socket.create_connection(self.target)
            with self._lock:
                self._pairs.append((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> int:
        """End every connection carried now, as a network cut or a server restart would."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for end in pair:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
        return len(pairs)

    def close(self) -> None:
        self.listener.close()
        self.cut()


@contextmanager
def relayed():
    """(a URL of a fresh schema reached through the relay, the relay)."""
    with postgres_schema() as url:
        parts = urlsplit(url)
        relay = Relay((parts.hostname, parts.port))
        try:
            yield url.replace(f"{parts.hostname}:{parts.port}", f"127.0.0.1:{relay.port}"), relay
        finally:
            relay.close()


def test_a_connection_lost_while_the_store_opens_is_retried(capfd):
    with relayed() as (url, relay):
        relay.refuse_next = 2  # the first two connections die at once
        with PlanStore(url) as store:
            store.session("s").on()
            assert store.session("s").snapshot().mode == "plan"
        assert relay.accepted >= 3
    assert capfd.readouterr().err == ""


def test_connections_lost_twice_at_begin_are_retried(capfd):
    with relayed() as (url, relay):
        with PlanStore(url) as store:
            session = store.session("s")
            session.on()
            assert relay.cut() >= 1  # the held connection is dead now
            relay.refuse_next = 1  # and the first new one dies at once
            session.call_tool("update_plan", {"expected_revision": 0, "steps": []})
            assert session.snapshot().plan.revision == 1
            relay.cut()
            relay.refuse_next = 2
            session.off()
            events = session.events()
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert [e.kind for e in events].count("plan_updated") == 1
    assert "Traceback" not in capfd.readouterr().err


def test_the_pool_prints_nothing_when_connections_die(tmp_path):
    """In a process of its own, so that whatever the driver's pool writes to stderr is seen."""
    with relayed() as (url, relay):
        script = (
            "import sys\n"
            "from jupyter_plans import PlanStore\n"
            "store = PlanStore(sys.argv[1])\n"
            "store.session('s').on()\n"
            "print('ready', flush=True)\n"
            "sys.stdin.readline()\n"
            "store.close()\n"  # its connection died meanwhile: the pool must not shout
            "store = PlanStore(sys.argv[1])\n"
            "store.session('s').off()\n"
            "store.close()\n"
            "print('done', flush=True)\n"
        )
        process = subprocess.Popen(
            [sys.executable, "-c", script, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert process.stdout.readline() == "ready\n"
        relay.cut()
        out, err = process.communicate("go\n", timeout=60)
    assert process.returncode == 0 and out == "done\n", err
    assert err == ""


@pytest.fixture(autouse=True)
def _needs_postgres():
    pytest.importorskip("psycopg")
