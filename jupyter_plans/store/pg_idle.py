"""PostgreSQL connections let go of once idle: a process that has not used its plan store for
IDLE_SECONDS holds no connection of the server's but its listening one (pg_notices.py).

Each thread keeps its connection from one transaction to the next, so a write costs no connect;
a thread that stops using it never gives it back by itself, so one thread of the process closes
those unused for IDLE_SECONDS, between transactions. A thread whose connection was closed so
finds it out as its next transaction begins (`take`) and opens another: one connect.
"""

from __future__ import annotations

import threading
import time
from typing import Any

IDLE_SECONDS = 5.0


class IdleConnections:
    """The connections this process holds between transactions, and when each was last taken."""

    def __init__(self, seconds: float = IDLE_SECONDS) -> None:
        self.seconds = seconds
        self.closed = 0  # how many it closed for idling, for the tests and the benchmark
        self._taken: dict[Any, float] = {}  # a psycopg connection -> when a transaction took it
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def hold(self, connection: Any) -> None:
        """Time `connection`, just opened and about to be used."""
        with self._changed:
            self._taken[connection] = time.monotonic()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="jupyter-plans idle connections", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def take(self, connection: Any) -> bool:
        """A transaction is about to begin on `connection`: False when it was closed for idling
        (open another)."""
        with self._changed:
            if connection not in self._taken:
                return False
            self._taken[connection] = time.monotonic()
            return True

    def forget(self, connection: Any) -> None:
        """`connection` is closed by its owner, or is about to be."""
        with self._changed:
            self._taken.pop(connection, None)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._taken:  # nothing held: nothing to wake for
                    self._changed.wait()
                now = time.monotonic()
                due = min(self._taken.values()) + self.seconds
                if now < due:
                    self._changed.wait(due - now)
                    continue
                idle = self._idle(now)
            for connection in idle:
                try:
                    connection.close()
                except Exception:  # noqa: BLE001 - closing a connection the server already ended
                    pass
                self.closed += 1

    def _idle(self, now: float) -> list:
        """Those untaken for `seconds` and between transactions; they are no longer timed (their
        owners find them gone). One still in a transaction after so long is looked at again."""
        from psycopg.pq import TransactionStatus

        idle = []
        for connection, taken in list(self._taken.items()):
            if now - taken < self.seconds:
                continue
            if connection.closed:
                del self._taken[connection]
            elif connection.info.transaction_status == TransactionStatus.IDLE:
                del self._taken[connection]
                idle.append(connection)
            else:
                self._taken[connection] = now
        return idle


IDLE = IdleConnections()  # one for the process: one thread, waiting only while something is held
