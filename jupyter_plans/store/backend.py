"""What a store asks of its engine: `Backend`, which every engine is (sqlite.py, postgres.py),
and `PlanFile`, what a plan file is besides (sqlite.py): a file at a path that another program
may replace, delete or move, and that moves with its notebook."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..errors import PlanStoreError
    from .following import marker
    from .preflight import FileIdentity


class Backend(Protocol):
    """One database's connections, the SQL that begins its transactions, and how another
    process's commits are told."""

    @property
    def dialect(self) -> str: ...  # "sqlite" or "postgresql"

    @property
    def begin_write(self) -> str: ...  # BEGIN for a writer (the write lock from its start)

    @property
    def begin_read(self) -> str: ...  # BEGIN for a reader (one state, never blocking a writer)

    @property
    def others_commits(self) -> str | None:
        """In a transaction, changes when another connection committed since; None where a
        writer locks the session row by reading it (PostgreSQL)."""

    @property
    def pipelines(self) -> bool: ...  # whether a pipeline spares statements' round trips

    @property
    def driver_error(self) -> type[Exception]: ...  # the base of the driver's errors

    @property
    def notify(self) -> str | None:
        """Sent with a write's COMMIT, so other processes are told of it (PostgreSQL); None
        where the file system tells (a plan file)."""

    @property
    def notify_session(self) -> str | None: ...  # the same, naming the session (sent first)

    @property
    def schema_version(self) -> int | None: ...  # known before opening (a plan file), else None

    @property
    def statement_dialect(self) -> Any: ...  # what statements are compiled for (compiled.py)

    @property
    def engine(self) -> Any: ...  # a SQLAlchemy engine, for migrations

    @property
    def path(self) -> Path | None: ...  # the plan file's path; None for a database server

    @property
    def where(self) -> str: ...  # the path or URL as a person is shown it (no password)

    def create_latest(self) -> bool: ...  # a new database made at the latest schema, if new

    def connect(self) -> tuple[Any, Any]: ...  # (what to close, the driver connection)

    def take(self, connection: Any) -> bool: ...  # False: closed while idle, connect again

    def forget(self, handle: Any) -> None: ...

    def connection_lost(self, connection: Any) -> bool: ...

    def transient(self, error: BaseException) -> bool: ...  # worth trying again after a pause

    def translate(self, error: Exception, words: str) -> PlanStoreError: ...  # driver_errors.py

    def committed(self, session_id: str | None) -> None: ...  # this process's write committed

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None] | None: ...

    def change_token(self) -> int: ...

    def session_token(self, session_id: str) -> Any: ...

    def dispose(self) -> None: ...


class PlanFile(Backend, Protocol):
    """A plan file: the one the store opened, which may be replaced, deleted or moved under it
    (tracking.py keeps the store on it)."""

    @property
    def path_text(self) -> str: ...

    @property
    def read_only(self) -> str | None: ...  # why this process cannot write the file, if so

    opened: FileIdentity | None  # the file the store opened; None while there is none
    marker_at_open: marker.Marker | None  # what the file said of a move when first looked at
    since: marker.Since  # from when the file's own moves count

    def look(self) -> None: ...  # look at the path before opening what is there

    def open(self) -> tuple[Any, FileIdentity | None] | None: ...

    def identity(self) -> FileIdentity | None: ...  # of the file at the path now

    def went(self) -> marker.Marker | None: ...  # where the opened file says it went

    def let_go(self) -> None: ...  # forget the opened file: it was deleted or replaced

    def repoint(self, path: Path) -> None: ...  # the plan file moved there with its notebook
