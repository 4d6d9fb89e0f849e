"""PostgreSQL engine for teams: psycopg 3, READ COMMITTED writers that lock the session row.

The driver runs in autocommit and the transactions are ours, as on SQLite: writers open
READ COMMITTED transactions whose first statement locks the session row (`FOR UPDATE`) and
whose update checks the cursor it read; readers open REPEATABLE READ, READ ONLY
transactions, so a snapshot's several reads see one state. Migrations take a transaction
advisory lock, so two processes opening a new database do not both create it.

Connections are not pooled here: each thread keeps the one it opened between transactions, and
one that has gone unused for a few seconds is closed (pg_idle.py), so an idle process holds none
but its listening one (pg_notices.py). Behind a connection pooler (PgBouncer), whose transaction
pooling hands each transaction whichever server connection is free, psycopg prepares no
statement, and the listener takes the server's own address from the URL's `plans_listen`.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import URL
from sqlalchemy.pool import NullPool

from ..errors import ConnectionLost, PlanStoreError
from .driver_errors import first_line as _line
from .driver_errors import from_psycopg
from .pg_idle import IDLE
from .transaction import WRITE_OPTION

LISTEN_WAIT_SECONDS = 1.0  # the most a store's first look waits for its listener to begin
# The URL's parameter naming where the listener connects: HOST[:PORT] of the server itself (the
# URL's own address when absent), or "off" (no listener: cards and streams poll).
LISTEN_PARAMETER = "plans_listen"
_MIGRATION_LOCK = 0x706C616E  # "plan": the advisory lock migrations hold
# Changes with every event of every session, and when the current session changes.
_CHANGE_TOKEN = (
    "SELECT (SELECT coalesce(sum(cursor), 0) FROM plans_sessions), "
    "(SELECT value FROM plans_settings WHERE key = 'current_session')"
)


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise PlanStoreError(
            "PostgreSQL needs psycopg 3: pip install 'jupyter-plans[postgres]'"
        ) from None
    return psycopg


_QUIET = logging.NullHandler()


class PostgresBackend:
    """The engine of one PostgreSQL database, and the statements the session needs."""

    dialect = "postgresql"
    insert = staticmethod(pg_insert)
    begin_write = "BEGIN ISOLATION LEVEL READ COMMITTED"
    others_commits = None  # a writer locks the session row by reading it, every time
    begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    translate = staticmethod(from_psycopg)
    path = None  # a database server, not a file

    def __init__(self, url: URL) -> None:
        psycopg = _psycopg()
        self.driver_error = psycopg.Error
        self._pq = psycopg.pq
        # BEGIN with the first statement, and a write's statements sent together (Tx).
        self.pipelines = psycopg.Pipeline.is_supported()
        # A pipeline on a connection the server ended logs a warning as it is let go of; the
        # loss is handled (the operation runs again), so without logging set up it must not
        # reach stderr. With logging set up, it still reaches the application's handlers.
        logging.getLogger("psycopg").addHandler(_QUIET)
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+psycopg")
        if url.drivername != "postgresql+psycopg":
            raise PlanStoreError(
                f"unsupported PostgreSQL driver {url.drivername!r}; use postgresql+psycopg://"
            )
        url, self._listen = _listen_address(url)
        self.url = url
        # Whether a connection pooler (PgBouncer) stands between this process and the server:
        # known from the first connection, None until then.
        self.pooler: bool | None = None
        # A thread's connection is its own between transactions, and closed once idle: no pool
        # keeps any open. Transactions are ours and end before a connection is let go of, so
        # nothing is reset (a reset on a dead connection printed a traceback to stderr).
        self.engine: Engine = create_engine(url, poolclass=NullPool, pool_reset_on_return=None)
        event.listen(self.engine, "connect", self._configure_connection)
        event.listen(self.engine, "begin", _begin)
        self._token_lock = threading.Lock()
        self._token_handle = None
        self._notices = None
        # Sent with each write's COMMIT: other processes' cards are told of it at once.
        from .pg_notices import NOTIFY, NOTIFY_SESSION

        self.notify, self.notify_session = NOTIFY, NOTIFY_SESSION

    schema_version = None  # unknown until the migration check reads it

    def create_latest(self) -> bool:
        return False  # the migrations make the schema, under their advisory lock

    @property
    def statement_dialect(self):
        return self.engine.dialect

    def connect(self):
        """A pooled connection: (what to close or invalidate, the driver connection).

        A server that cannot be reached right now is a lost connection: the operation is run
        again after a pause (ConnectionLost), as when one is lost in a transaction."""
        from sqlalchemy.exc import DBAPIError

        try:
            handle = self.engine.raw_connection()
        except (DBAPIError, self.driver_error) as exc:  # the pool raises the driver's own
            if not self.transient(exc):
                raise PlanStoreError(f"cannot connect to {self.where}: {_line(exc)}") from None
            raise ConnectionLost(f"cannot connect to {self.where}: {_line(exc)}") from None
        IDLE.hold(handle.driver_connection)
        return handle, handle.driver_connection

    def _configure_connection(self, dbapi_connection, _record) -> None:
        dbapi_connection.autocommit = True
        if self.pooler is None:
            try:
                self.pooler = behind_pooler(dbapi_connection)
            except self.driver_error:
                dbapi_connection.close()  # lost as it opened: the connect is tried again
                raise
        if self.pooler:
            # PgBouncer's transaction pooling (before 1.21) keeps no prepared statement from one
            # transaction to the next: a statement prepared on one server connection is missing
            # on the next ("prepared statement _pg3_0 does not exist").
            dbapi_connection.prepare_threshold = None

    @staticmethod
    def take(connection) -> bool:
        """A transaction is about to begin on this thread's connection: False when it was
        closed for idling, and another is needed."""
        return IDLE.take(connection)

    @property
    def where(self) -> str:
        return self.url.render_as_string(hide_password=True)

    def transient(self, error: BaseException) -> bool:
        """Whether `error` is the server going away or not answering (worth a retry), rather
        than a refusal (a wrong password, a missing database) that a retry cannot mend."""
        original = getattr(error, "orig", None) or error
        psycopg = _psycopg()
        if not isinstance(original, psycopg.OperationalError):
            return False
        text = str(original).lower()
        refusals = ("password", "authentication", "does not exist", "permission denied")
        return not any(refusal in text for refusal in refusals)

    def forget(self, handle) -> None:
        IDLE.forget(handle.driver_connection)
        handle.invalidate()  # the pool must not hand the dead connection out again

    def connection_lost(self, connection, error: Exception | None = None) -> bool:
        """Whether `error` means the connection itself is gone (the server ended it)."""
        if getattr(connection, "closed", False) or getattr(connection, "broken", False):
            return True
        # A pipeline the server ended half-way leaves libpq in pipeline mode ("cannot exit
        # pipeline mode while busy") before it has read the end of the connection.
        pgconn, pq = getattr(connection, "pgconn", None), self._pq
        return pgconn is not None and (
            pgconn.status != pq.ConnStatus.OK or pgconn.pipeline_status != pq.PipelineStatus.OFF
        )

    @property
    def notices(self):
        """This process's listener for the database's change notices (pg_notices.py); None
        with `plans_listen=off`."""
        if self._notices is None and self._listen is not None:
            from .pg_notices import notices_for

            self._notices = notices_for(self._listen)
            self._notices.wait_listening(LISTEN_WAIT_SECONDS)
        return self._notices

    def on_change(self, callback):
        """Call `callback()` as another process's commit is told; None where nothing is told
        (no listener, or one that cannot listen where it was pointed): poll instead."""
        notices = self.notices
        if notices is None or notices.unusable:
            return None
        return notices.subscribe(callback)

    def committed(self, session_id: str | None = None) -> None:
        """A write of this process committed: the notices' count moves at once, for every
        store of the database in this process."""
        if self._listen is not None:
            from .pg_notices import committed_here

            committed_here(self._listen, session_id)

    def session_token(self, session_id: str) -> tuple | None:
        """A value that changes with each notice that may concern `session_id`, costing no
        query; None when there is no telling (read the session)."""
        notices = self.notices
        return None if notices is None else notices.session_token(session_id)

    def change_token(self) -> int:
        """A value that changes whenever any process commits a change to the store: the count
        of the server's notices while this process listens (no query), else read."""
        notices = self.notices
        told = None if notices is None else notices.token()
        if told is not None:
            return told
        with self._token_lock:
            for attempt in (1, 2):
                try:
                    handle = self._token_handle
                    if handle is None or not IDLE.take(handle.driver_connection):
                        self._close_token_connection()
                        handle, _driver = self.connect()
                        self._token_handle = handle
                    with handle.driver_connection.cursor() as cursor:
                        cursor.execute(_CHANGE_TOKEN)
                        return hash(cursor.fetchone())
                except (self.driver_error, ConnectionLost):
                    self._close_token_connection()
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    def _close_token_connection(self) -> None:
        if self._token_handle is not None:
            handle, self._token_handle = self._token_handle, None
            try:
                self.forget(handle)
            except self.driver_error:
                pass

    def dispose(self) -> None:
        if self._notices is not None:
            from .pg_notices import release

            self._notices = None
            release(self._listen)
        with self._token_lock:
            self._close_token_connection()
        self.engine.dispose()


def _listen_address(url: URL) -> tuple[URL, str | None]:
    """The URL to connect to without `plans_listen`, and the libpq URL its listener connects
    to: the same, or the server's own HOST[:PORT] given there; None with `plans_listen=off`."""
    value = url.query.get(LISTEN_PARAMETER)
    url = url.difference_update_query([LISTEN_PARAMETER])
    plain = url.set(drivername="postgresql")
    if value is None:
        return url, plain.render_as_string(hide_password=False)
    if isinstance(value, tuple) or not value.strip():
        raise PlanStoreError(
            f"{LISTEN_PARAMETER} must be given once, as HOST[:PORT] or off; "
            f"found {str(value)[:100]!r}"
        )
    if value == "off":
        return url, None
    host, colon, port = value.rpartition(":") if not value.endswith("]") else ("", "", "")
    if not colon:
        host, port = value, ""
    host = host.removeprefix("[").removesuffix("]")
    if not host or "/" in host or "@" in host or (port and not 0 < _number(port) < 65536):
        raise PlanStoreError(
            f"{LISTEN_PARAMETER} must be HOST[:PORT] of the PostgreSQL server, or off; "
            f"found {value[:100]!r}"
        )
    listen = plain.difference_update_query(["host", "hostaddr", "port"]).set(
        host=host, port=int(port) if port else None
    )
    return url, listen.render_as_string(hide_password=False)


def _number(text: str) -> int:
    return int(text) if text.isdigit() and len(text) < 6 else -1


def behind_pooler(connection) -> bool:
    """Whether `connection` reaches the server through a pooler: PgBouncer answers with a
    cancel key of its own, whose process id is not the server process's."""
    (pid,) = connection.execute("SELECT pg_backend_pid()").fetchone()
    return pid != connection.info.backend_pid


def _begin(conn) -> None:
    driver = conn.connection.driver_connection
    if conn.get_execution_options().get(WRITE_OPTION, False):
        driver.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        driver.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
    else:
        driver.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
