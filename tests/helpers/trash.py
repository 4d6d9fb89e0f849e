"""Where a deleted notebook goes: the trash folders the server's send2trash may use for a path
(the freedesktop.org trash: the home's, or that of the top of the path's own file system)."""

from __future__ import annotations

import os
from pathlib import Path


def trash_folders(path: Path) -> list[Path]:
    """The `files` folders of every trash a file at `path` may be sent to."""
    top = Path(os.path.abspath(path))
    while not os.path.ismount(top):
        top = top.parent
    uid = os.getuid()
    return [
        Path.home() / ".local/share/Trash/files",
        top / f".Trash-{uid}" / "files",
        top / ".Trash" / str(uid) / "files",
    ]


def remove_from_trash(*trashed: Path) -> None:
    """Empty these files from their trash: each, its SQLite side files and its `.trashinfo`."""
    for path in trashed:
        info = path.parent.parent / "info" / f"{path.name}.trashinfo"
        for each in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), info):
            each.unlink(missing_ok=True)
