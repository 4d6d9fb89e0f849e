"""Processes as /proc shows them, for tests that look at what a process started and left.

Any process of the machine may be read here, so nothing assumes its name or command line is
UTF-8 (a browser's is not), and a process that ends while it is read is passed over.
"""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the process's name (state, parent, ...), or None."""
    try:
        raw = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    return raw.rsplit(b")", 1)[1].decode(errors="replace").split()


def state(pid: int) -> str | None:
    """The process's state letter ("Z" for a zombie), or None where it is gone."""
    fields = _stat(pid)
    return fields[0] if fields else None


def cpu_ticks(pid: int) -> int:
    """The process's CPU time so far (user and system), in clock ticks."""
    fields = _stat(pid)
    assert fields is not None, f"process {pid} is gone"
    return int(fields[11]) + int(fields[12])


def children(pid: int) -> list[int]:
    """The processes whose parent is PID."""
    return _by_parent().get(pid, [])


def descendants(pid: int) -> list[int]:
    """Every process PID started, and theirs."""
    by_parent = _by_parent()
    found, queue = [], [pid]
    while queue:
        for child in by_parent.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def command_line(pid: int) -> str | None:
    """The process's command line, its arguments joined by spaces, or None where it is gone."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    return raw.replace(b"\0", b" ").decode(errors="replace")


def _by_parent() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := _stat(entry.name)) is not None:
            found.setdefault(int(fields[1]), []).append(int(entry.name))
    return found
