"""Another process's commit to a plan file, noticed as it happens: the operating system's file
notifications (inotify on Linux), through watchfiles, on the file's folder.

A card or an event stream that is told still reads the store's change token before anything
else, so a notification is only a hint to look now; their poll stays, slower, for where the
system sends none (a network file system) and for PostgreSQL.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

_log = logging.getLogger("jupyter_plans")

# Changes closer together than this are one notice: a commit writes the -wal and -shm files.
# The watching thread also wakes this often while idle (measured: 10 ms cost an idle kernel
# 0.45% of a core, 25 ms under 0.1%); a notice comes one to two steps after the commit.
STEP_MS = 20
# File systems whose changes made on another machine send no notice here: a poll does the work.
NETWORK_FILE_SYSTEMS = {
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "lustre",
    "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.rclone", "davfs", "fuse.davfs2",
}  # fmt: skip
SIDE_SUFFIXES = ("", "-wal", "-journal")  # a commit changes one of these (WAL, or rollback)
FOLDER_GONE_SECONDS = 1.0  # how often a deleted folder is looked for again


class _Folder:
    """One watching thread for a folder, telling each plan file's listeners of its changes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.listeners: dict[str, list[Callable[[], None]]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"jupyter-plans watch {folder}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:  # the poll alone keeps the cards current
            return
        folder = str(self.folder)
        while not self._stop.is_set():
            if not self.folder.is_dir():  # deleted: watched again once it is made again
                self._stop.wait(FOLDER_GONE_SECONDS)
                continue
            try:
                for changes in watch(
                    self.folder,
                    watch_filter=lambda _change, path: (
                        path == folder or Path(path).name in self._names()
                    ),
                    step=STEP_MS,
                    debounce=50,
                    recursive=False,
                    stop_event=self._stop,
                    raise_interrupt=False,
                ):
                    if any(path == folder for _change, path in changes):
                        break  # the folder itself went (or was moved): its watch is dead
                    self._tell_of(changes)
            except Exception as exc:  # no inotify, too many watches: the poll goes on
                _log.debug("jupyter_plans: not watching %s: %s", self.folder, exc, exc_info=True)
                return

    def _tell_of(self, changes: set) -> None:
        told = {Path(path).name for _change, path in changes}
        for name, callbacks in list(self.listeners.items()):
            if told & {name + suffix for suffix in SIDE_SUFFIXES}:
                for callback in list(callbacks):
                    _tell(callback)

    def _names(self) -> set[str]:
        return {name + suffix for name in list(self.listeners) for suffix in SIDE_SUFFIXES}

    def stop(self) -> None:
        self._stop.set()

    @property
    def alive(self) -> bool:
        """False once its thread ended: the folder went away (deleted, perhaps made again)."""
        return self._thread.is_alive()


def _tell(callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception:  # one listener gone (a closed event loop) must not stop the others
        _log.debug("jupyter_plans: a change listener failed", exc_info=True)


_folders: dict[Path, _Folder] = {}
_lock = threading.Lock()


def file_system_type(folder: Path) -> str | None:
    """The type of the file system `folder` is on, from /proc/self/mounts (Linux); None
    where that cannot be read."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    folder = folder.resolve()
    best, kind = -1, None
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(fields[1].replace("\\040", " "))
        if (folder == point or point in folder.parents) and len(point.parts) > best:
            best, kind = len(point.parts), fields[2]
    return kind


def on_change(plan_file: Path, callback: Callable[[], None]) -> Callable[[], None] | None:
    """Call `callback()` (on a watching thread) soon after `plan_file` may have changed.

    Returns the function that stops it; None when the file system sends no notice of other
    machines' changes (a network file system), where the caller's poll does the work.
    """
    plan_file = Path(plan_file).absolute()
    folder, name = plan_file.parent, plan_file.name
    if file_system_type(folder) in NETWORK_FILE_SYSTEMS:
        return None
    with _lock:
        watched = _folders.get(folder)
        if watched is None or not watched.alive:
            # A folder deleted and made again: its old watcher ended; a new one takes over
            # the listeners it had.
            fresh = _Folder(folder)
            if watched is not None:
                fresh.listeners = watched.listeners
            watched = _folders[folder] = fresh
        watched.listeners.setdefault(name, []).append(callback)

    def stop() -> None:
        with _lock:
            current = _folders.get(folder)
            if current is None:
                return
            callbacks = current.listeners.get(name, [])
            if callback in callbacks:
                callbacks.remove(callback)
            if not callbacks:
                current.listeners.pop(name, None)
            if not current.listeners:
                del _folders[folder]
                current.stop()

    return stop
