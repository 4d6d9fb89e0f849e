"""PostgreSQL engine for teams: psycopg 3, READ COMMITTED writers that lock the session row.

The driver runs in autocommit and the transactions are ours, as on SQLite: writers open
READ COMMITTED transactions whose first statement locks the session row (`FOR UPDATE`) and
whose update checks the cursor it read; readers open REPEATABLE READ, READ ONLY
transactions, so a snapshot's several reads see one state. Migrations take a transaction
advisory lock, so two processes opening a new database do not both create it.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import URL

from ..errors import ConnectionLost, PlanStoreError
from .transaction import WRITE_OPTION, _line

LISTEN_WAIT_SECONDS = 1.0  # the most a store's first look waits for its listener to begin
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
        self.url = url
        # Transactions are ours and end before a connection goes back to the pool, so the pool
        # resets nothing (its reset on a dead connection printed a traceback to stderr).
        self.engine: Engine = create_engine(url, pool_pre_ping=True, pool_reset_on_return=None)
        event.listen(self.engine, "connect", _configure_connection)
        event.listen(self.engine, "begin", _begin)
        self._token_lock = threading.Lock()
        self._token_conn = None
        self._notices = None
        self._conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        # Sent with each write's COMMIT: other processes' cards are told of it at once.
        from .pg_notices import NOTIFY

        self.notify = NOTIFY

    schema_version = None  # unknown until the migration check reads it

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
                raise PlanStoreError(f"cannot connect to {self._where}: {_line(exc)}") from None
            raise ConnectionLost(f"cannot connect to {self._where}: {_line(exc)}") from None
        return handle, handle.driver_connection

    @property
    def _where(self) -> str:
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
        """This process's listener for the database's change notices (pg_notices.py)."""
        if self._notices is None:
            from .pg_notices import notices_for

            self._notices = notices_for(self._conninfo)
            self._notices.wait_listening(LISTEN_WAIT_SECONDS)
        return self._notices

    def committed(self) -> None:
        """A write of this process committed: the notices' count moves at once, for every
        store of the database in this process."""
        from .pg_notices import committed_here

        committed_here(self._conninfo)

    def change_token(self) -> int:
        """A value that changes whenever any process commits a change to the store: the count
        of the server's notices while this process listens (no query), else read."""
        told = self.notices.token()
        if told is not None:
            return told
        with self._token_lock:
            for attempt in (1, 2):
                try:
                    if self._token_conn is None or self._token_conn.closed:
                        self._token_conn = self.engine.raw_connection().driver_connection
                    with self._token_conn.cursor() as cursor:
                        cursor.execute(_CHANGE_TOKEN)
                        return hash(cursor.fetchone())
                except self.driver_error:
                    self._close_token_connection()
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    def _close_token_connection(self) -> None:
        if self._token_conn is not None:
            try:
                self._token_conn.close()
            except self.driver_error:
                pass
            self._token_conn = None

    def dispose(self) -> None:
        if self._notices is not None:
            from .pg_notices import release

            self._notices = None
            release(self._conninfo)
        with self._token_lock:
            self._close_token_connection()
        self.engine.dispose()


def _configure_connection(dbapi_connection, _record) -> None:
    dbapi_connection.autocommit = True


def _begin(conn) -> None:
    driver = conn.connection.driver_connection
    if conn.get_execution_options().get(WRITE_OPTION, False):
        driver.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        driver.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
    else:
        driver.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
