"""Locks (DESIGN section 9): a process that holds an SQLite connection to a plan file never opens
that file by any other means, so every look at it (a second store, a copy, a move, the hook,
the doctor, what a notebook and the server check before opening it) leaves the process's lock
in place, and no accepted write is lost when other processes come and go.

The lock is read from /proc/locks: a connection in WAL mode holds a shared lock on its file
while it is open, and closing any other descriptor of the file in the same process drops it.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.hooks.command import main as hook_main
from jupyter_plans.store.following import follow
from jupyter_plans.store.locate import plan_file
from jupyter_plans.store.readonly import open_read_only
from tests.locks import (
    decision_titles,
    held,
    inode,
    needs_proc_locks,
    writers_beside_two_stores,
)

WRITE = {"tool_name": "Write", "tool_input": {"file_path": "x.py", "content": "x"}}


def _notebook(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("{}")
    return path


def _decide(session, title: str) -> None:
    result = session.call_tool("record_decision", {"title": title, "rationale": "r"})
    assert not result.is_error, result.content


def _hook(monkeypatch, capsys, *argv: str) -> str:
    """The hook's command, run in this process (as the ACP bridge's guard or a host that
    imports it would), fed a Write on stdin; what it printed."""
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(WRITE).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    hook_main(list(argv))
    return capsys.readouterr().out


def test_every_look_at_an_open_plan_file_leaves_this_process_its_lock(
    tmp_path, monkeypatch, capsys
):
    needs_proc_locks()
    monkeypatch.chdir(tmp_path)
    notebook = _notebook(tmp_path, "analysis.ipynb")
    plan = plan_file(notebook)
    store = follow.open_for(notebook, str(plan), PlanStore, "test")
    session = store.session("default")
    session.on()
    _decide(session, "first")
    pid, file = os.getpid(), inode(plan)
    assert held(pid, file), "an open store holds a lock on its plan file"

    def still_held(what: str) -> None:
        assert held(pid, file), f"{what} dropped this process's lock on the open plan file"

    with PlanStore(plan) as second:
        _decide(second.session("default"), "from a second store")
    still_held("a second store on the same file, opened, written to and closed")

    with open_read_only(plan) as read_only:
        assert read_only.gate("default")[0] == "plan"
    still_held("the hooks' read-only store")

    answer = _hook(monkeypatch, capsys, "PreToolUse", "--notebook", str(notebook))
    assert '"deny"' in answer  # plan mode holds
    still_held("the hook")

    hook_main(["doctor", "--notebook", str(notebook)])
    capsys.readouterr()
    still_held("hook doctor")

    other = _notebook(tmp_path, "other.ipynb")
    assert follow.before_open(notebook, str(plan)) is None
    assert follow.before_open(other, str(plan_file(other))) is None  # looks at its neighbours
    assert follow.orphans(other) == []
    assert follow.recorded_notebook(plan) == notebook.name
    still_held("what a notebook and the server look at before they open a plan")

    copy = _notebook(tmp_path, "analysis-Copy1.ipynb")
    assert follow.copy(notebook, copy) == plan_file(copy)
    still_held("a copy of the open file (the server's Duplicate)")
    _decide(session, "after the copy")

    moved = _notebook(tmp_path, "renamed.ipynb")
    assert follow.move(notebook, moved) == plan_file(moved)
    still_held("a move of the open file")  # the old file's lock, until the store lets go
    _decide(session, "after the move")  # the store follows the file to its new name
    assert held(pid, inode(plan_file(moved))), "the store holds a lock on the moved file"
    store.close()
    assert decision_titles(plan_file(moved)) == [
        "first",
        "from a second store",
        "after the copy",
        "after the move",
    ]


def test_two_stores_in_one_process_and_command_line_writers_lose_no_accepted_write(tmp_path):
    accepted, kept = writers_beside_two_stores(tmp_path / "a.plans.sqlite", rounds=5)
    lost = [title for title in accepted if title not in kept]
    assert lost == [], f"{len(lost)} of {len(accepted)} accepted writes lost: {lost[:5]}"


@pytest.fixture(autouse=True)
def _no_notebook_environment(monkeypatch):
    for name in ("JPY_SESSION_NAME", "JUPYTERHUB_USER"):
        monkeypatch.delenv(name, raising=False)
