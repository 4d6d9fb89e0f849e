"""The store: one plan file (or database), its sessions' rows, and the transactions they write
in. `session.PlanStore` adds the sessions themselves on top."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PlanStoreError
from ..plan.ids import DEFAULT_SESSION
from . import migrations
from .compiled import StatementCache
from .connections import Connections
from .driver_errors import first_line
from .following.tracking import FileTracker
from .sqlite import WRITE_OPTION, SQLiteBackend
from .transaction import ATTEMPTS, Tx, reconnecting
from .urls import place_of

if TYPE_CHECKING:
    from .backend import Backend, PlanFile

_log = logging.getLogger("jupyter_plans")


ChangeCallback = Callable[[str, int], None]


def backend_for(url_or_path: str | os.PathLike) -> tuple[Backend, PlanFile | None]:
    """The engine of the store at a path or URL, and the same again when it is a plan file."""
    place = place_of(url_or_path)
    if isinstance(place, Path):
        plan_file = SQLiteBackend(place)
        return plan_file, plan_file
    from .postgres import PostgresBackend  # imported only for a PostgreSQL URL

    return PostgresBackend(place), None


class Store:
    """A durable home for plan sessions: a SQLite file beside the notebook, or a database URL."""

    def __init__(self, url_or_path: str | os.PathLike) -> None:
        backend, plan_file = backend_for(url_or_path)
        self._backend: Backend = backend
        self.dialect = self._backend.dialect
        # What a write sends with its commit, so other processes are told (PostgreSQL).
        self._notify = None
        if backend.notify is not None:
            self._notify = (backend.notify, backend.notify_session, backend.committed)
        # session id -> (seq of its plan_updated event, the plan): see session/events.py, plan_at.
        self.plan_cache: dict[str, tuple[int, dict]] = {}
        # session id -> (when it was made, its steps' checks folded up to a cursor): check_rows.py
        self.check_cache: dict[str, Any] = {}
        self._listeners: list[ChangeCallback] = []
        self._listeners_lock = threading.Lock()
        self._migrate()
        self._statements = StatementCache(self._backend.statement_dialect)
        self.insert_session = "INSERT_SESSION"  # a named statement; see statements.py
        # A plan file is looked at in every transaction (connections.py, on_file); the `write`
        # given to Tx says how, None where there is no file (PostgreSQL).
        self._reads_file: bool | None = None if plan_file is None else False
        self._writes_file: bool | None = None if plan_file is None else True
        self._tracker: FileTracker | None = None
        if plan_file is not None:
            self._tracker = FileTracker(plan_file, self._forget_cached, self._migrate)
        self.connections = Connections(backend, self._tracker, self.__repr__)

    def _forget_cached(self) -> None:
        """The plan file was replaced: what was read of the old one no longer holds."""
        self.plan_cache.clear()
        self.check_cache.clear()

    @property
    def engine(self):
        """The SQLAlchemy engine (for SQLite, made when first asked for)."""
        return self._backend.engine

    @property
    def path(self) -> Path | None:
        return self._backend.path

    def __repr__(self) -> str:
        return f"PlanStore({self._backend.where!r})"

    def _migrate(self) -> None:
        """Bring the schema up to date. A plan file's version is known from the look taken
        before opening it, so a current one costs nothing more; otherwise one read, and the
        write lock only when there is something to do."""
        if self._backend.schema_version == migrations.LATEST:
            return
        if self._backend.schema_version == 0 and self._backend.create_latest():
            return
        from sqlalchemy.exc import DBAPIError

        for attempt in range(ATTEMPTS):
            try:
                for write in (False, True):
                    with self._connection(write) as conn:
                        version = migrations.read_version(conn)
                        if version > migrations.LATEST:
                            raise PlanStoreError(
                                f"{self} has plan schema version {version}, newer than the "
                                f"{migrations.LATEST} this jupyter-plans knows; upgrade "
                                "jupyter-plans"
                            )
                        if not migrations.behind(conn, version):
                            return
                        if write:
                            migrations.upgrade(conn, version)
                return
            except (DBAPIError, self._backend.driver_error) as exc:
                # A connection lost while the store opens is retried, as one lost in a
                # transaction is; what is still wrong after that is said in one line.
                if attempt < ATTEMPTS - 1 and self._backend.transient(exc):
                    time.sleep(0.02 * 2**attempt)
                    continue
                self._backend.dispose()
                reason = first_line(getattr(exc, "orig", None) or exc)
                raise PlanStoreError(f"cannot open {self}: {reason}") from None
            except PlanStoreError:
                self._backend.dispose()
                raise

    # Transactions. One transaction per operation: it commits when the block ends and rolls
    # back if it raises; nothing is committed in a finally. Each thread holds one connection
    # (connections.py, the transactions' host).

    def write(self, session_id: str | None = None) -> Tx:
        """A transaction that holds the write lock from its first statement; other processes
        are told it changed `session_id` (None: the store as a whole)."""
        self.connections.check_open()
        if self._tracker is not None and self._tracker.backend.read_only:
            self._tracker.writable_again()
        backend = self._backend
        return Tx(
            self._statements,
            backend.begin_write,
            self.connections,
            self._writes_file,
            backend.pipelines,
            self._notify,  # None for a plan file: it tells by itself (changes.py)
            session_id,
        )

    def read(self) -> Tx:
        """A transaction that sees one consistent state and never blocks a writer."""
        self.connections.check_open()
        backend = self._backend
        return Tx(
            self._statements,
            backend.begin_read,
            self.connections,
            self._reads_file,
            backend.pipelines,
        )

    @property
    def generation(self) -> int:
        """How many times the store has opened another file at its path than it had open (the
        plan file was deleted or replaced); a watcher that sees it change shows everything
        again, since the new file's history is another one."""
        return 0 if self._tracker is None else self._tracker.generation

    @property
    def moves(self) -> int:
        """How many times the plan file moved with its notebook while the store had it open."""
        return 0 if self._tracker is None else self._tracker.moves

    def check_file(self) -> None:
        """Open what is at the path now if the plan file was deleted or replaced since the
        store last looked; raise PlanStoreError, in one line, if it is not a plan file.
        Every operation does this by itself; this lets a caller ask before it begins."""
        if self._tracker is not None and self._tracker.replaced():
            self.connections.follow(False)

    @contextmanager
    def _connection(self, write: bool) -> Iterator[Any]:
        """A SQLAlchemy connection in a transaction, for migrations."""
        with self.engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: write})
            with conn.begin():
                yield conn

    # Sessions.

    @reconnecting
    def current_session_id(self) -> str:
        with self.read() as tx:
            return tx.scalar("SELECT_CURRENT") or DEFAULT_SESSION

    @reconnecting
    def set_current_session(self, session_id: str) -> None:
        with self.write() as tx:
            tx.execute("UPSERT_CURRENT", {"value": session_id})
        self.notify(session_id, -1)

    @reconnecting
    def sessions(self, only: str | None = None) -> list[dict]:
        """Every session that has been written to and is not marked deleted (or the one named
        `only`, if so), oldest first, each with its `task`: the first words of the person's
        first message to it (its task, as a rule), else of its plan's explanation, else None."""
        from ..plan.text import first_words  # not loaded for the hooks, which never list

        with self.read() as tx:
            if only is None:
                rows = [row._asdict() for row in tx.all("SELECT_SESSIONS")]
                tasks = dict(tx.all("SELECT_FIRST_TASKS"))
            else:
                rows = [row._asdict() for row in tx.all("SELECT_ONE_SESSION", {"sid": only})]
                tasks = dict(tx.all("SELECT_FIRST_TASK", {"sid": only}))
            for row in rows:
                plan_seq, sid = row.pop("plan_seq"), row["session_id"]
                text = tasks.get(sid)
                if text is None and plan_seq is not None:
                    from ..plan.stored import decode_plan_event  # pydantic: not for the guard

                    data = tx.scalar("SELECT_EVENT_DATA", {"sid": sid, "seq": plan_seq})
                    text = decode_plan_event(data)["plan"].get("explanation")
                row["task"] = first_words(text)
        return rows

    # Change feed.

    def subscribe(self, callback: ChangeCallback) -> Callable[[], None]:
        """Call `callback(session_id, cursor)` after each commit made through this store.

        Returns a function that unsubscribes.
        """
        with self._listeners_lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def notify(self, session_id: str, cursor: int) -> None:
        if not self._listeners:
            return
        with self._listeners_lock:
            listeners = list(self._listeners)
        for callback in listeners:
            try:
                callback(session_id, cursor)
            except Exception:
                # The change is committed; a broken listener must not make it look failed.
                _log.exception("a plan change listener failed")

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None] | None:
        """Call `callback()` (on another thread) soon after another process may have committed:
        the file system tells of a plan file's changes, the server of PostgreSQL's. Returns
        what stops it; None where nothing tells (a network file system): poll instead."""
        return self._backend.on_change(callback)

    def change_token(self) -> int:
        """Cheap to read; changes when any process commits to the store."""
        return self._backend.change_token()

    def session_token(self, session_id: str) -> Any:
        """Costs no query; changes when any process may have committed to `session_id`. None
        where nothing tells that (read the session): a plan file, a PostgreSQL store not
        listening."""
        return self._backend.session_token(session_id)

    def close(self, why: str | None = None) -> None:
        """Close the store; WHY, when given, is what a later use is told to do instead."""
        self.connections.close(why)
        self._backend.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
