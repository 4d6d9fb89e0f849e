"""Another process's commit to a PostgreSQL plan store, told by the server (DESIGN section 12):
every write transaction sends a notice on the channel `jupyter_plans` with its commit, naming
its schema, and one connection per process and database (and schema) listens, counting the
notices of its own schema: teams kept in schemas of one database do not wake each other.

While it listens, the store's change token is a count of the notices and costs no query, so an
idle process sends none; cards, streams and MCP list changes are told at once. A listening
connection that is lost is made again (the poll, with its query, serves meanwhile), and its
return counts as a change, for what was missed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

_log = logging.getLogger("jupyter_plans")

CHANNEL = "jupyter_plans"
NOTIFY = f"SELECT pg_notify('{CHANNEL}', current_schema())"
WAKE_SECONDS = 1.0  # how often the listening thread looks whether it is still wanted
RETRY_SECONDS = (0.2, 0.5, 1.0, 2.0, 5.0)  # waits before listening again, then 5 s each


class Notices:
    """One listening connection to a database, for every store of it in this process."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self._count = 0
        self._epoch = 0
        self._listening = False
        self._ready = threading.Event()  # set once it first listens
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jupyter-plans listen", daemon=True)
        self._thread.start()

    def wait_listening(self, seconds: float) -> None:
        """Give a listener just made a moment to begin, so that the token a store reads first
        is already the notices' count (not a query's, which would then change by itself)."""
        self._ready.wait(seconds)

    def committed(self) -> None:
        """A commit made in this process: its stores' tokens move at once, before the notice
        comes back from the server."""
        with self._lock:
            self._count += 1

    def token(self) -> int | None:
        """A number that changes with each notice while this process listens; None while it
        does not (the caller asks the database instead)."""
        with self._lock:
            return (self._epoch << 32) + self._count if self._listening else None

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` (on the listening thread) for each notice; returns what stops it."""
        with self._lock:
            self._listeners.append(callback)

        def stop() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return stop

    def _tell(self, counted: int) -> None:
        with self._lock:
            self._count += counted
            listeners = list(self._listeners)
        for callback in listeners:
            try:
                callback()
            except Exception:  # noqa: BLE001 - one listener gone must not stop the others
                _log.debug("jupyter_plans: a change listener failed", exc_info=True)

    def _run(self) -> None:
        import psycopg

        failures = 0
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as connection:
                    (schema,) = connection.execute("SELECT current_schema()").fetchone()
                    connection.execute(f"LISTEN {CHANNEL}")
                    with self._lock:
                        self._listening, self._epoch = True, self._epoch + 1
                    self._ready.set()
                    failures = 0
                    self._tell(0)  # what was committed while nobody listened
                    while not self._stop.is_set():
                        for notice in connection.notifies(timeout=WAKE_SECONDS):
                            if notice.payload == schema:  # at once: a card shows it
                                self._tell(1)
            except Exception as exc:  # noqa: BLE001 - lost, refused: the poll serves meanwhile
                _log.debug("jupyter_plans: not listening to %s: %s", CHANNEL, exc)
            with self._lock:
                self._listening = False
            self._stop.wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1

    def close(self) -> None:
        self._stop.set()


_by_database: dict[str, tuple[Notices, int]] = {}
_lock = threading.Lock()


def notices_for(conninfo: str) -> Notices:
    """The one listener of this process for the database at `conninfo`, held until each store
    that took it gives it back (release): a connection of the server's is not kept for
    nobody."""
    with _lock:
        found, users = _by_database.get(conninfo, (None, 0))
        if found is None:
            found = Notices(conninfo)
        _by_database[conninfo] = (found, users + 1)
        return found


def committed_here(conninfo: str) -> None:
    """A write of this process committed to the database at `conninfo`: the tokens of every
    store of it in this process move at once (the server's notice follows)."""
    with _lock:
        found, _users = _by_database.get(conninfo, (None, 0))
    if found is not None:
        found.committed()


def release(conninfo: str) -> None:
    with _lock:
        found, users = _by_database.get(conninfo, (None, 0))
        if found is None:
            return
        if users > 1:
            _by_database[conninfo] = (found, users - 1)
            return
        del _by_database[conninfo]
    found.close()
