"""Another process's commit to a PostgreSQL plan store, told by the server (DESIGN section 12):
every write transaction sends a notice on the channel `jupyter_plans` with its commit, naming
its schema, and one connection per process and database (and schema) listens, counting the
notices of its own schema: teams kept in schemas of one database do not wake each other.

A write to a session first sends a notice naming the session too, on `jupyter_plans_session`:
a card reads its session again only when a notice named it, or named none (a change to the
whole store, or a write of an earlier version, which sends only the first kind; versions that
know only the first kind still hear every write).

While it listens, the store's change token is a count of the notices and costs no query, so an
idle process sends none; cards, streams and MCP list changes are told at once. A listening
connection that is lost, or refused (the server has no connection to spare), is made again (the
poll, with its query, serves meanwhile), and its return counts as a change, for what was missed.

LISTEN through a connection pooler cannot be relied on (PgBouncer's transaction pooling hands
the LISTEN to one server connection and the next transaction to another): a listener that finds
a pooler at its address does not listen; the stores poll, and it says so once, naming the URL
parameter that gives the server's own address.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

_log = logging.getLogger("jupyter_plans")

CHANNEL = "jupyter_plans"
SESSION_CHANNEL = "jupyter_plans_session"
NOTIFY = f"SELECT pg_notify('{CHANNEL}', current_schema())"
SEPARATOR = "\x1f"  # between the schema and the session (no session id holds a control character)
NOTIFY_SESSION = f"SELECT pg_notify('{SESSION_CHANNEL}', current_schema() || chr(31) || %s)"
WAKE_SECONDS = 1.0  # how often the listening thread looks whether it is still wanted
# Waits before listening again, then 30 s each: a server restarting is back within the first
# few; one with no connection to spare is not asked every few seconds.
RETRY_SECONDS = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
_said: set[str] = set()  # what this process has said about its listeners, said once each


class Notices:
    """One listening connection to a database, for every store of it in this process."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self._count = 0  # every notice
        self._whole = 0  # the notices that named no session
        self._sessions: dict[str, int] = {}  # the notices that named each session
        self._epoch = 0
        self._listening = False
        self._ready = threading.Event()  # set once it first listens, or knows it will not
        self.unusable = False  # its address is a connection pooler's: it does not listen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jupyter-plans listen", daemon=True)
        self._thread.start()

    def wait_listening(self, seconds: float) -> None:
        """Give a listener just made a moment to begin, so that the token a store reads first
        is already the notices' count (not a query's, which would then change by itself)."""
        self._ready.wait(seconds)

    def committed(self, session_id: str | None = None) -> None:
        """A commit made in this process: its stores' tokens move at once, before the notice
        comes back from the server."""
        with self._lock:
            self._count_one(session_id)

    def _count_one(self, session_id: str | None) -> None:
        self._count += 1
        if session_id is None:
            self._whole += 1
        else:
            self._sessions[session_id] = self._sessions.get(session_id, 0) + 1

    def token(self) -> int | None:
        """A number that changes with each notice while this process listens; None while it
        does not (the caller asks the database instead)."""
        with self._lock:
            return (self._epoch << 32) + self._count if self._listening else None

    def session_token(self, session_id: str) -> tuple | None:
        """A value that changes with each notice that may concern `session_id` (one naming it,
        or none); None while this process does not listen. Read it before the session."""
        with self._lock:
            if not self._listening:
                return None
            return (self._epoch, self._whole, self._sessions.get(session_id, 0))

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` (on the listening thread) for each notice; returns what stops it."""
        with self._lock:
            self._listeners.append(callback)

        def stop() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return stop

    def _tell(self, payload: str | None) -> None:
        """A notice of `payload` (a session, or "" for the whole store); None: none, but call
        the listeners (what was committed while nobody listened)."""
        with self._lock:
            if payload is not None:
                self._count_one(payload or None)
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
                    (schema, pid) = connection.execute(
                        "SELECT current_schema(), pg_backend_pid()"
                    ).fetchone()
                    if pid != connection.info.backend_pid:  # a pooler's cancel key: see postgres.py
                        self._give_up()
                        return
                    connection.execute(f"LISTEN {SESSION_CHANNEL}")
                    connection.execute(f"LISTEN {CHANNEL}")  # what pg_stat_activity shows
                    with self._lock:
                        self._listening, self._epoch = True, self._epoch + 1
                    self._ready.set()
                    failures = 0
                    self._tell(None)  # what was committed while nobody listened
                    named_by = None  # who sent the notice naming a session, just before
                    while not self._stop.is_set():
                        for notice in connection.notifies(timeout=WAKE_SECONDS):
                            named_by = self._heard(notice, schema, named_by)
            except Exception as exc:  # noqa: BLE001 - lost, refused: the poll serves meanwhile
                self._not_listening(exc)
            with self._lock:
                self._listening = False
            self._stop.wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1

    def _heard(self, notice, schema: str, named_by: int | None) -> int | None:
        """Count a notice of `schema` at once (a card shows it). A transaction's notice naming
        its session comes just before its plain one, from the same server process: that one
        is counted once, for the session. Returns who sent the notice naming a session."""
        if notice.channel == SESSION_CHANNEL:
            of, _separator, session = notice.payload.partition(SEPARATOR)
            if of != schema or not session:
                return None
            self._tell(session)
            return notice.pid
        if notice.payload == schema and notice.pid != named_by:
            self._tell("")
        return None

    @property
    def where(self) -> str:
        from sqlalchemy.engine import make_url

        return make_url(self._conninfo).render_as_string(hide_password=True)

    def _give_up(self) -> None:
        self.unusable = True
        self._ready.set()
        _say_once(
            f"jupyter_plans: {self.where} is a connection pooler (such as PgBouncer), through "
            "which LISTEN cannot be relied on, so cards and streams poll the database for "
            "changes; add plans_listen=HOST:PORT (the PostgreSQL server's own address) to the "
            "database URL to have them told at once, or plans_listen=off to poll without this "
            "message"
        )

    def _not_listening(self, error: Exception) -> None:
        text = (str(error).strip().splitlines() or [type(error).__name__])[0]
        if "too many" in text or "connection slots" in text:  # the server is full: say so
            _say_once(
                f"jupyter_plans: cannot listen to {self.where} ({text}); cards and streams poll "
                "the database for changes until it has a connection to spare"
            )
        else:
            _log.debug("jupyter_plans: not listening to %s: %s", CHANNEL, error)

    def close(self) -> None:
        self._stop.set()


def _say_once(message: str) -> None:
    with _lock:
        if message in _said:
            return
        _said.add(message)
    _log.warning("%s", message)


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


def committed_here(conninfo: str, session_id: str | None = None) -> None:
    """A write of this process committed to the database at `conninfo`: the tokens of every
    store of it in this process move at once (the server's notice follows)."""
    with _lock:
        found, _users = _by_database.get(conninfo, (None, 0))
    if found is not None:
        found.committed(session_id)


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
