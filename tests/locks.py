"""The POSIX locks a process holds on a file, as Linux's /proc/locks lists them.

An SQLite connection in WAL mode holds a shared lock on its database file for as long as it
is open; closing any other descriptor of the file in the same process drops it (DESIGN
section 9, Locks), and then the next process to close its last connection deletes a WAL
this one still writes into.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from tests.http import request


def inode(path: Path | str) -> int:
    return os.stat(path).st_ino


def held(pid: int, file_inode: int) -> list[str]:
    """The locks process `pid` holds on the file of inode `file_inode` (a file moved or
    deleted since is still named by its inode)."""
    found = []
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields:  # a request waiting for a lock, not one held
            continue
        if len(fields) >= 8 and fields[4] == str(pid) and fields[5].endswith(f":{file_inode}"):
            found.append(" ".join(fields[1:]))
    return found


def needs_proc_locks() -> None:
    if not Path("/proc/locks").exists():
        pytest.skip("no /proc/locks: the locks a process holds are read from Linux's /proc")


# The scenarios that lost accepted writes while a process's lock could be dropped, each run for
# a number of rounds: a few in the fast lane, 100 in tests/reliability.

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def command_line_decision(plan: Path, title: str) -> None:
    """A decision written by `jupyter-plans call`, a process that opens the file and exits."""
    args = json.dumps({"title": title, "rationale": "r"})
    command = [*COMMAND, "call", "--db", str(plan), "record_decision", args]
    subprocess.run(command, check=True, capture_output=True)


def decision_titles(plan: Path, session: str = "default") -> list[str]:
    with PlanStore(plan) as store:
        return [d.title for d in store.session(session).snapshot().decisions]


def writers_beside_two_stores(plan: Path, rounds: int) -> tuple[list[str], list[str]]:
    """One process with two stores on `plan` (user code beside %load_ext, a notebook's own
    cells), a store opened and closed again in it, and a command-line writer that starts and
    exits between its writes, for `rounds` rounds; (the titles accepted, the titles the file
    holds once every process closed it)."""
    accepted = []
    first, second = PlanStore(plan), PlanStore(plan)
    try:
        for number in range(rounds):
            for which, store in (("first", first), ("second", second)):
                title = f"round {number}, {which} store"
                result = store.session("default").call_tool(
                    "record_decision", {"title": title, "rationale": "r"}
                )
                assert not result.is_error, result.content
                accepted.append(title)
            command_line_decision(plan, f"round {number}, command line")
            accepted.append(f"round {number}, command line")
            PlanStore(plan).close()  # as a card made again, or a cell that opens the plan
    finally:
        second.close()
        first.close()
    return accepted, decision_titles(plan)


def duplicates_under_writers(server: dict, notebook: str, rounds: int) -> dict[str, list]:
    """Through a real Jupyter server that has `notebook`'s plan open: each round, the person's
    `on` or `off` through the decision route, a command-line writer, and a Duplicate of the
    notebook (the server copies the open plan file). What was accepted, and what the plan file
    holds once the server let go of it: {"answered": [...], "kept": [...]} for the route's
    mode changes (the statuses of the route's answers, the modes the file records), and
    {"accepted": [...], "kept_titles": [...]} for the writer's decisions."""
    plan = server["root"] / notebook.replace(".ipynb", ".plans.sqlite")
    statuses, titles = [], []
    for number in range(rounds):
        action = "on" if number % 2 == 0 else "off"
        status, body = request(
            server, "POST", f"/api/plans/decision?path={notebook}", {"action": action}
        )
        statuses.append((status, body.get("mode") if isinstance(body, dict) else body))
        title = f"round {number}, command line"
        command_line_decision(plan, title)
        titles.append(title)
        status, body = request(server, "POST", "/api/contents", {"copy_from": notebook}, timeout=30)
        assert status == 201, body
        copy = body["path"]
        assert request(server, "DELETE", f"/api/contents/{copy}")[0] == 204
    with PlanStore(plan) as store:
        events = store.session("default").events()
    changes = [
        e
        for e in events
        if e.kind == "mode_changed" and (e.data.get("by") or {}).get("via") == "server"
    ]
    return {
        "answered": statuses,
        "kept": [e.data["mode"] for e in changes],
        "accepted": titles,
        "kept_titles": decision_titles(plan),
    }
