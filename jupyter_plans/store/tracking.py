"""How a store keeps to its plan file while other programs delete, replace or move it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import PlanStoreError
from .preflight import moved_to
from .sqlite import read_only_reason


class FollowsFile:
    """The part of Store that looks, in every transaction, that its path still names the file
    its connection has open (see Store for the attributes it uses)."""

    # A replaced plan file. Another program (or a person) may delete the plan file, or put
    # another in its place (os.replace), while this store has it open: SQLite would go on
    # reading and writing the old file, which nobody else sees any more. So every transaction
    # looks (one lstat) that the path still names the file its connection has open, and if
    # not, the store lets go of that file and opens what is at the path now.

    def _on_file(self, write: bool, cursor: Any = None) -> bool:
        """Whether this thread's connection has the file at the path open, and (for a write)
        the file was not moved since; for a read while there is no file, whether it reads the
        empty database. `cursor`, in the transaction just begun, reads where the file went."""
        identity = self._local.identity
        try:
            found = os.lstat(self._path_text)
        except (FileNotFoundError, NotADirectoryError):
            found = None
        if found is None and identity is None:
            return not write
        here = (
            found is not None
            and identity is not None
            and (found.st_dev, found.st_ino) == tuple(identity)
        )
        local = self._local
        if cursor is not None and identity is not None and write and here:
            # A move commits its marker before it removes the old file: a writer that got the
            # lock in between must not write to it. Only another connection commits a marker,
            # and SQLite says (data_version) whether one has committed since this one looked.
            version = cursor.execute(self._backend.others_commits).fetchone()[0]
            local.version = version
            if version == getattr(local, "looked_at", None):
                return True
            local.looked_at = version
        if cursor is not None and identity is not None and (write or not here):
            # A renamed folder's mark is read only once the path is gone (a copy carries it).
            went = moved_to(cursor, None if here else identity)
            if went is not None:
                local.moved = went
                return False
        return here

    def _follow(self, write: bool) -> None:
        """Open what is at the path now, in place of the file this thread's connection had
        open: for a write, a plan file (made as a new store is, where there is none); for a
        read of no file, nothing (reads see an empty store). A file that is not a plan file
        is refused in one line, and so is a write this process cannot make there. A plan file
        that moved with its notebook is opened where it went. Other threads' connections are
        let go of when they next begin (their generation is an earlier one)."""
        backend = self._backend
        went = getattr(self._local, "moved", None)
        self._local.moved = None
        if went is None and backend.opened is not None and backend.identity() != backend.opened:
            went = backend.went()  # this thread had no connection on the file that went
        self._let_go(self._local)
        with self._follow_lock:
            if went == "":
                self._gone = (
                    f"{backend.path} went to the trash with its notebook; restore the notebook "
                    "from the trash to go on with its plan"
                )
            elif went is not None and os.path.lexists(went) and went != backend.path_text:
                self._open_again(look=True, at=Path(went))
                return
            elif went is not None and went != backend.path_text:
                self._gone = (
                    f"{backend.path} moved with its notebook to {went}, which has moved again "
                    "since; restart the kernel (or the agent) to open the notebook's plan"
                )
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

    def _open_again(self, look: bool, at: Path | None = None) -> None:
        """Under the follow lock: let go of the file the store had open and, if `look`, open
        what is at the path now (or at `at`, where the plan file moved)."""
        backend = self._backend
        self._generation += 1
        self.plan_cache.clear()  # plans parsed from the old file's events
        backend.let_go()
        if at is not None:
            backend.repoint(at)
            self._path_text = backend.path_text
            self.moves += 1
        if look:
            backend.look()
            self._migrate()
            backend.opened = backend.identity()

    @property
    def generation(self) -> int:
        """How many times the store has opened another file at its path than it had open (the
        plan file was deleted or replaced); a watcher that sees it change shows everything
        again, since the new file's history is another one."""
        return self._generation

    def check_file(self) -> None:
        """Open what is at the path now if the plan file was deleted or replaced since the
        store last looked; raise PlanStoreError, in one line, if it is not a plan file.
        Every operation does this by itself; this lets a caller ask before it begins."""
        if self._file and self._backend.identity() != self._backend.opened:
            self._follow(False)

    def _refuse_read_only(self) -> None:
        """Refuse, in one line, a write to a plan file this process cannot write; once the file
        (or its folder) has been made writable, open it again, for writing."""
        backend = self._backend
        with self._follow_lock:
            if backend.read_only and read_only_reason(backend.path) is None:
                self._open_again(look=True)
        if backend.read_only:
            raise PlanStoreError(backend.read_only)
