"""Each thread's connection to a store, and the host of its transactions.

A store holds one connection per thread: to its database, or to the plan file it opened (while
there is none, to an empty database in memory; see sqlite.py). This is what Tx asks of the
store it runs in (transaction.TransactionHost): a cursor, whether its connection was lost, and,
on a plan file, whether the connection still has the file at the path open and to open what
is there now if not (tracking.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import PlanStoreError
from .transaction import FOLLOWS

if TYPE_CHECKING:
    from .backend import Backend
    from .following.tracking import FileTracker
    from .transaction import Tx


class Connections:
    """The connections of one store, one a thread (transaction.TransactionHost).

    `name()` says the store in a refusal; `tracker` is the plan file's (None for a database).
    """

    def __init__(
        self, backend: Backend, tracker: FileTracker | None, name: Callable[[], str]
    ) -> None:
        self._backend, self._tracker, self._name = backend, tracker, name
        self.driver_error: type[Exception] = backend.driver_error  # Tx says them as ours
        self.translate = backend.translate  # a driver's error as ours (driver_errors.py)
        self._local = threading.local()
        self._held: list[Any] = []
        self._held_lock = threading.Lock()
        self.closed = False
        self._closed_why: str | None = None  # what the person should do, once closed

    def __repr__(self) -> str:
        return self._name()

    @property
    def generation(self) -> int:
        """How many times the store opened another file at its path than it had open."""
        return 0 if self._tracker is None else self._tracker.generation

    def check_open(self) -> None:
        if self.closed:
            why = f": {self._closed_why}" if self._closed_why else ""
            raise PlanStoreError(f"{self._name()} is closed{why}")

    def cursor(self) -> Any:
        """This thread's cursor, on a connection that is open (opened now if need be)."""
        local = self._local
        cursor = getattr(local, "cursor", None)
        if cursor is None or local.generation != self.generation or local.fresh:
            cursor = self._connect()
        elif not self._backend.take(cursor.connection):
            cursor = self._connect()  # closed while idle (store/pg_idle.py)
        return cursor

    def _connect(self) -> Any:
        """This thread's connection: to the database, or to the plan file the store opened
        (while there is none, to an empty database in memory)."""
        local = self._local
        self._let_go(local)  # one of an earlier generation has another file open
        for _attempt in range(FOLLOWS + 1):
            self.check_open()
            generation, identity, fresh = self.generation, None, False
            if self._tracker is None:
                handle, driver = self._backend.connect()
            else:
                opened = self._tracker.backend.open()
                if opened is None:  # the path names another file since: look at that one
                    self.follow(False)
                    continue
                handle, identity = opened
                driver = handle
                # A file this process cannot write is read through a new connection each
                # time: an immutable view of it (see opener.reading_uri) would not see its
                # owner's later commits.
                fresh = identity is not None and self._tracker.backend.read_only is not None
            with self._held_lock:
                self._held.append((handle, driver))
            local.cursor = driver.cursor()
            local.generation, local.identity = generation, identity
            local.fresh = fresh
            local.written = None  # a new connection knows nothing it wrote
            local.looked_at = None  # nor whether the file moved (see on_file)
            return local.cursor
        raise PlanStoreError(
            f"cannot open {self._name()}: the file at its path keeps being replaced"
        )

    def _let_go(self, local: Any) -> None:
        """Close this thread's connection, if it has one."""
        cursor = getattr(local, "cursor", None)
        if cursor is None:
            return
        connection = cursor.connection
        local.cursor = local.written = None
        with self._held_lock:
            gone = [h for h, driver in self._held if driver is connection]
            self._held = [(h, d) for h, d in self._held if d is not connection]
        for handle in gone:
            self._backend.forget(handle)

    def lost(self, cursor: Any) -> bool:
        """Whether the cursor's connection is gone; if so this thread lets go of it."""
        if not self._backend.connection_lost(cursor.connection):
            return False
        self._let_go(self._local)
        return True

    # The plan file, kept to while it is replaced, deleted or moved (tracking.py).

    def on_file(self, write: bool, cursor: Any = None) -> bool:
        """Whether this thread's connection has the file at the path open."""
        return self._tracker.on_file(self._local, write, cursor)

    def follow(self, write: bool) -> None:
        """Open what is at the path now, this thread's connection let go of."""
        went = self._tracker.went(self._local)
        self._let_go(self._local)
        self._tracker.follow(went, write)

    def written_states(self, tx: Tx) -> dict[str, Any]:
        """In a write transaction: what this thread's connection last committed to each
        session row, kept only while no other connection has committed since (SQLite tells,
        by `PRAGMA data_version`). The writer takes its entry and puts back what it commits.

        On PostgreSQL a fresh empty dict: there a writer locks the row by reading it.
        """
        check = self._backend.others_commits
        if check is None:
            return {}
        local = self._local
        # Read at BEGIN (see on_file), once a transaction.
        version, local.version = getattr(local, "version", None), None
        if version is None:
            version = tx.value(check)
        written = getattr(local, "written", None)
        if written is None or written[0] != version:
            written = local.written = (version, {})
        return written[1]

    def forget_written(self) -> None:
        """This thread's connection forgets what it last wrote to each session row (see
        written_states): a rename of a session changed the rows under it."""
        self._local.written = None

    def close(self, why: str | None = None) -> None:
        """Close every connection; WHY, when given, is what a later use is told to do."""
        self.closed, self._closed_why = True, why
        with self._held_lock:
            held, self._held = self._held, []
        for handle, _driver in held:
            handle.close()
