"""How a store keeps to its plan file while other programs delete, replace or move it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import PlanStoreError
from ..preflight import read_only_reason
from . import marker

if TYPE_CHECKING:
    from ..backend import PlanFile


class FileTracker:
    """The plan file a store has open, looked at in every transaction: its path must still name
    the file the transaction's connection has open.

    A replaced plan file. Another program (or a person) may delete the plan file, or put
    another in its place (os.replace), while this store has it open: SQLite would go on
    reading and writing the old file, which nobody else sees any more. So every transaction
    looks (one lstat) that the path still names the file its connection has open, and if
    not, the store lets go of that file and opens what is at the path now.

    What it asks of the store: `forget_plans` (plans parsed from the old file's events) and
    `migrate` (a file opened again is brought up to date); what it keeps of each thread's
    connection is in the thread's `local` the store passes in.
    """

    def __init__(
        self, backend: PlanFile, forget_plans: Callable[[], None], migrate: Callable[[], None]
    ) -> None:
        self.backend = backend
        self._forget_plans, self._migrate = forget_plans, migrate
        self.path_text = backend.path_text
        self.generation = 0  # how many times the store opened another file at its path
        self.moves = 0  # how many times the plan file moved with its notebook, while open
        self._lock = threading.Lock()
        self._gone: str | None = None  # why the plan file is gone: its notebook's trash, ...
        backend.opened = backend.identity()

    def on_file(self, local: Any, write: bool, cursor: Any = None) -> bool:
        """Whether this thread's connection (`local`) has the file at the path open, and (for
        a write) the file was not moved since; for a read while there is no file, whether it
        reads the empty database. `cursor`, in the transaction just begun, reads where the
        file went."""
        identity = local.identity
        try:
            found = os.lstat(self.path_text)
        except (FileNotFoundError, NotADirectoryError):
            found = None
        if found is None and identity is None:
            return not write
        here = (
            found is not None
            and identity is not None
            and (found.st_dev, found.st_ino) == tuple(identity)
        )
        if cursor is not None and identity is not None and write and here:
            # A move commits its marker before it removes the old file: a writer that got the
            # lock in between must not write to it. Only another connection commits a marker,
            # and SQLite says (data_version) whether one has committed since this one looked.
            version = cursor.execute(self.backend.others_commits).fetchone()[0]
            local.version = version
            if version == getattr(local, "looked_at", None):
                return True
            local.looked_at = version
        if cursor is not None and identity is not None and (write or not here):
            # A renamed folder's mark is read only once the path is gone (a copy carries it).
            went = marker.read(cursor, None if here else identity)
            if went is not None:
                local.moved = went
                return False
        return here

    def went(self, local: Any) -> marker.Marker | None:
        """Where the file this thread's connection (`local`) had open went, if it says; asked
        before the store lets go of that connection."""
        went, local.moved = getattr(local, "moved", None), None
        backend = self.backend
        if went is None and backend.opened is not None and backend.identity() != backend.opened:
            went = backend.went()  # this thread had no connection on the file that went
        return went

    def follow(self, went: marker.Marker | None, write: bool) -> None:
        """Open what is at the path now, in place of the file a thread's connection had open
        (the store let go of it; `went`, where it says it went): for a write, a plan file (made
        as a new store is, where there is none); for a read of no file, nothing (reads see an
        empty store). A file that is not a plan file is refused in one line, and so is a write
        this process cannot make there. A plan file that moved with its notebook is opened
        where it went, once that move is verified (marker.py); a claim of a move that is not
        is refused in one line. Other threads' connections are let go of when they next begin
        (their generation is an earlier one)."""
        backend = self.backend
        with self._lock:
            if went is not None:
                where = self._where(went, write)
                if where is not None:
                    self._open_again(look=True, at=where[0], since=where[1])
                    return
            found = backend.identity()
            if self._gone and found is None:
                # Reads see nothing; a write makes no new plan file at a name the notebook left.
                if backend.opened is not None:
                    self._open_again(look=False)
                if write:
                    raise PlanStoreError(self._gone)
                return
            self._gone = None
            # Nothing to do if another thread has opened it already.
            if found != backend.opened or (found is None and write):
                self._open_again(look=found is not None or write)
        if write and backend.read_only:
            raise PlanStoreError(backend.read_only)

    def _where(self, went: marker.Marker, write: bool) -> tuple[Path, float] | None:
        """Under the follow lock: where to follow the file's marker `went` (the plan file, and
        from when its own moves count); None when not, with why in `_gone` for the file gone
        from its path. A write to a file still at its path that claims a move it did not make
        is refused here, in one line that says what it claims."""
        backend = self.backend
        path = backend.path_text
        if went.renamed:
            return (Path(went.target), backend.since[0]) if went.target != path else None
        here = backend.opened is not None and backend.identity() == backend.opened
        if here and not write:
            return None
        if went == backend.marker_at_open:
            problem = (
                f"{went.claim(path)}, and said so when it was first opened here: the plan does "
                "not follow it, and nothing was written"
            )
        elif went.target == "":
            if not here:
                self._gone = (
                    f"{path} went to the trash with its notebook; restore the notebook from the "
                    "trash to go on with its plan"
                )
                return None
            problem = f"{went.claim(path)}, yet it is still at its path; nothing was written"
        else:
            try:
                return marker.verify(went, backend.opened, backend.since, path)
            except ValueError:
                pass
            if not here and not os.path.lexists(went.target):
                self._gone = (
                    f"{path} moved with its notebook to {went.target}, which has moved again "
                    "since; restart the kernel (or the agent) to open the notebook's plan"
                )
                return None
            problem = (
                f"{went.claim(path)}, but no plan file there records that move: the plan does "
                "not follow it, and nothing was written"
            )
        if here:
            raise PlanStoreError(problem)
        self._gone = problem
        return None

    def _open_again(self, look: bool, at: Path | None = None, since: float = 0.0) -> None:
        """Under the lock: let go of the file the store had open and, if `look`, open what is
        at the path now (or at `at`, where the plan file moved, whose moves count from
        `since`). The same file opened again keeps what its first look saw."""
        backend = self.backend
        before = (backend.opened, backend.marker_at_open, backend.since)
        self.generation += 1
        self._forget_plans()  # plans parsed from the old file's events
        backend.let_go()
        if at is not None:
            backend.repoint(at)
            self.path_text = backend.path_text
            self.moves += 1
        if look:
            backend.look()
            self._migrate()
            backend.opened = backend.identity()
            if at is not None:  # its moves count from the move that made it
                backend.marker_at_open = None
                backend.since = (since, backend.since[1])
            elif backend.opened is not None and backend.opened == before[0]:
                backend.marker_at_open, backend.since = before[1], before[2]

    def replaced(self) -> bool:
        """Whether the file at the path is not the one the store has open (deleted, replaced)."""
        return self.backend.identity() != self.backend.opened

    def writable_again(self) -> None:
        """Refuse, in one line, a write to a plan file this process cannot write; once the file
        (or its folder) has been made writable, open it again, for writing."""
        backend = self.backend
        with self._lock:
            if backend.read_only and read_only_reason(backend.path) is None:
                self._open_again(look=True)
        if backend.read_only:
            raise PlanStoreError(backend.read_only)
