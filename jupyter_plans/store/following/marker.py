"""Where a plan file says it went, and whether to believe it (DESIGN section 11).

A move (store/follow.py) commits in the old file a marker, `moved_to` (the new file's absolute
path) with `move_token`, a random token; the new file records the same move among its
`moved_from` hops: the token, which file it was copied from (device and inode) and when. A
store follows a marker only to a file that records that very move of the file the store has
open, made after the store opened it: a marker another program wrote (naming another
notebook's plan, a path that is not there, the trash) leads nowhere, and neither does one that
was in the file when the store first opened it (a file cloned, or downloaded, as it was).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import stat
from pathlib import Path
from typing import NamedTuple

from ..compiled import run_sqlite
from ..keys import HOPS_KEY, MOVED_KEY, RENAMED_KEY, TOKEN_KEY
from ..locate import SUFFIX
from ..opener import glance
from ..preflight import FileIdentity, file_identity

# When a store opened its file: (time.time() just before it looked, the file's ctime then).
Since = tuple[float, float]

MAX_HOPS = 16  # a file keeps the newest moves that made it
# How far a file system's clock (a file's ctime, which the kernel takes from a coarse clock) may
# lag behind time.time(): a file changed this long before a move's hop was surely there then.
CLOCK_SLACK_SECONDS = 0.05


class Marker(NamedTuple):
    """What a plan file says of where it went: `target` is the path ("" for the trash);
    `renamed` when it is the file's own new path after its folder was renamed."""

    target: str
    token: str | None = None
    renamed: bool = False

    def claim(self, name: str) -> str:
        """The file's claim, in words, for a refusal."""
        if self.target == "":
            return f"{name} claims to have gone to the trash with its notebook"
        return f"{name} claims to have moved to {self.target}"


class Hop(NamedTuple):
    """One move that made a plan file: its token, the file it was copied from, and when."""

    token: str
    source: FileIdentity
    at: float


def read(cursor, identity: FileIdentity | None = None) -> Marker | None:
    """The marker of the file a connection has open: a move's (followed only once verified), or,
    given the file's identity, the path its folder's rename gave it, but only while that path
    names this very file (a copy of the file names the original). None if neither, or if what
    the file says is no plan file's path. Read to the end: no lock stays."""
    found = {key: _text(value) for key, value in _settings(cursor).items()}
    went = found.get(MOVED_KEY)
    if isinstance(went, str) and (went == "" or _plan_path(went)):
        token = found.get(TOKEN_KEY)
        return Marker(went, token if isinstance(token, str) else None)
    renamed = found.get(RENAMED_KEY)
    if identity is not None and _plan_path(renamed) and _names(renamed, identity):
        return Marker(renamed, renamed=True)
    return None


def _names(path: str, identity: FileIdentity) -> bool:
    """Whether `path` names the file `identity` (a path no file system takes names none)."""
    try:
        return file_identity(path) == tuple(identity)
    except (OSError, ValueError):
        return False


def stored_path(path: Path) -> str | bytes:
    """A path as a marker holds it: text, or the file system's bytes where it is no text."""
    text = str(path)
    try:
        text.encode()
    except UnicodeEncodeError:
        return os.fsencode(text)
    return text


def _text(value: object) -> object:
    return os.fsdecode(value) if isinstance(value, bytes) else value


def hops_of(cursor) -> list[Hop]:
    """The moves that made the file a connection has open, oldest first; [] for none."""
    return parse_hops(_settings(cursor).get(HOPS_KEY))


def parse_hops(text: object) -> list[Hop]:
    try:
        items = json.loads(text) if isinstance(text, str) else []
    except ValueError:
        return []
    hops = []
    for item in items if isinstance(items, list) else []:
        try:
            token, source, at = item["token"], item["from"], item["at"]
            hop = Hop(str(token), (int(source[0]), int(source[1])), float(at))
        except (KeyError, TypeError, ValueError, IndexError):
            continue
        if math.isfinite(hop.at):
            hops.append(hop)
    return hops


def with_hop(hops: list[Hop], hop: Hop) -> str:
    """The `moved_from` value of a file that `hop` made from a file made by `hops`."""
    kept = [*hops, hop][-MAX_HOPS:]
    return json.dumps([{"token": h.token, "from": list(h.source), "at": h.at} for h in kept])


def made_by(hops: list[Hop], marker: Marker, source: FileIdentity, since: Since) -> Hop | None:
    """The hop among `hops` that is the move `marker` names, of the file `source`; None when
    the file was not made by that move.

    The token may have been copied from another file by whoever wrote the marker, so the hop
    must also be a copy of `source` itself, made while `source` was that file: after the
    store opened it, or (for a store that opened it while the move held its lock) after it
    last changed. A device and inode number are reused once a file is gone, and another plan
    file made from an earlier file of that number is older than both."""
    opened_at, changed_at = since
    for hop in hops:
        if (
            marker.token is not None
            and hop.token == marker.token
            and hop.source == tuple(source)
            and (hop.at >= opened_at or hop.at > changed_at + CLOCK_SLACK_SECONDS)
        ):
            return hop
    return None


def verify(marker: Marker, source: FileIdentity, since: Since, also: str) -> tuple[Path, float]:
    """The plan file `marker` (read in the file `source`, which the store opened at `since`)
    leads to, and when its own moves count from: the marker's target, or else `also` (the
    store's own path: a notebook renamed away and back), when that file records the move.
    ValueError when neither does."""
    for candidate in dict.fromkeys((marker.target, also)):
        found = _hops_at(candidate)
        if found is None:
            continue
        identity, hops = found
        if identity == tuple(source):
            continue  # the very file that claims to have moved
        hop = made_by(hops, marker, source, since)
        if hop is not None:
            return Path(candidate), hops[-1].at
    raise ValueError(marker.target)


def _hops_at(path: str) -> tuple[FileIdentity, list[Hop]] | None:
    """The identity of the plan file at `path` and the moves that made it; None when there is
    no regular file there, or it is no readable plan file."""
    try:
        found = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(found.st_mode) or not path.endswith(SUFFIX):
        return None
    connection = glance(path)
    if connection is None:
        return None
    try:
        return (found.st_dev, found.st_ino), hops_of(connection)
    finally:
        connection.close()


def _settings(cursor) -> dict:
    try:
        return dict(run_sqlite(cursor, "SELECT_MOVE_SETTINGS").fetchall())
    except sqlite3.Error:
        return {}  # no plan tables (a new file)


def _plan_path(text: object) -> bool:
    """Whether a path read from a plan file may be looked at: an absolute plan file's path."""
    return isinstance(text, str) and os.path.isabs(text) and text.endswith(SUFFIX)
