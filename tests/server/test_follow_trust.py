"""The plan follows its notebook, and nothing else (DESIGN section 11), through a real `jupyter
server`, its contents API and a real kernel it started: a forged marker leads nowhere, nothing
that holds a plan name is touched, a rename to a name that is no notebook leaves the plan as it
is, back-to-back renames keep the plan beside its notebook, no request fails because of the
plan, and a plan file the server's routes made records its notebook."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.following import follow
from tests.helpers.trash import trash_folders
from tests.http import request
from tests.server._kernel import LOAD, Kernel, make_notebook, plan_of

CLI = [sys.executable, "-m", "jupyter_plans.cli"]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def titles(plan: Path) -> list[str]:
    with PlanStore(plan) as store:
        return [d.title for d in store.session("default").snapshot().decisions]


def decided(plan: Path, title: str) -> None:
    with PlanStore(plan) as store:
        store.session("default").call_tool("record_decision", {"title": title, "rationale": "r"})


def rename(server, old: str, new: str) -> int:
    status, body = request(server, "PATCH", f"/api/contents/{old}", {"path": new})
    assert status != 500, body
    return status


def log_lines(server) -> list[str]:
    return (server["root"].parent / "server.log").read_text(errors="replace").splitlines()


def listing(path: Path) -> list[str]:
    """The folder as the person sees it: no hidden files, no SQLite side files."""
    return sorted(
        p.name
        for p in path.iterdir()
        if not p.name.startswith(".") and not p.name.endswith(("-wal", "-shm"))
    )


def trash_listing(root: Path) -> set[str]:
    found = set()
    for trash in trash_folders(root):
        if trash.is_dir():
            found |= {p.name for p in trash.iterdir()}
    return found


@pytest.fixture
def folder(server):
    """A fresh folder of the server root, and its path relative to the root."""
    name = f"f-{uuid.uuid4().hex[:8]}"
    path = server["root"] / name
    path.mkdir()
    return path, name


def test_a_forged_marker_does_not_send_a_kernels_write_into_another_notebooks_plan(server, folder):
    path, rel = folder
    make_notebook(path, "draft.ipynb")
    decided(plan_of(path, "draft.ipynb"), "the victim's")
    assert rename(server, f"{rel}/draft.ipynb", f"{rel}/victim.ipynb") == 200
    victim = plan_of(path, "victim.ipynb")
    before = digest(victim)
    make_notebook(path, "mine.ipynb")
    kernel = Kernel(server, f"{rel}/mine.ipynb")
    try:
        kernel.run(LOAD + "s = jupyter_plans.current_session()\ns.on()")
        # Another process writes a marker naming the victim, with the token of its own move.
        connection = sqlite3.connect(victim)
        hops = connection.execute(
            "SELECT value FROM plans_settings WHERE key = 'moved_from'"
        ).fetchone()
        connection.close()
        token = json.loads(hops[0])[-1]["token"] if hops else "0" * 32
        forged = sqlite3.connect(plan_of(path, "mine.ipynb"))
        forged.executemany(
            "INSERT OR REPLACE INTO plans_settings VALUES (?, ?)",
            [("moved_to", str(victim)), ("move_token", token)],
        )
        forged.commit()
        forged.close()
        said = kernel.run(
            "try:\n"
            "    s.call_tool('update_plan', {'expected_revision': 0, 'steps': "
            "[{'id': 'x', 'description': 'Mine'}]})\n"
            "except Exception as e:\n"
            "    print(type(e).__name__, e)\n"
            "print(s.store.path.name, s.snapshot().mode)"
        )
    finally:
        kernel.close()
    lines = said.strip().splitlines()
    assert lines[0].startswith("PlanStoreError ")
    assert f"claims to have moved to {victim}" in lines[0]
    assert lines[1:] == ["mine.plans.sqlite plan"]
    assert digest(victim) == before and titles(victim) == ["the victim's"]


@pytest.mark.parametrize("new_name", ["x.txt", "x.py"])
def test_a_rename_to_a_name_that_is_no_notebook_leaves_the_plan_as_it_is(server, folder, new_name):
    path, rel = folder
    make_notebook(path, "x.ipynb")
    plan = plan_of(path, "x.ipynb")
    decided(plan, "kept")
    before, inode, trashed = digest(plan), plan.stat().st_ino, trash_listing(server["root"])
    assert rename(server, f"{rel}/x.ipynb", f"{rel}/{new_name}") == 200
    assert plan.exists() and digest(plan) == before and plan.stat().st_ino == inode
    assert listing(path) == sorted([new_name, "x.plans.sqlite"])
    assert trash_listing(server["root"]) == trashed and titles(plan) == ["kept"]


def _another_notebooks_plan(path: Path) -> None:
    make_notebook(path, "report.ipynb")
    decided(plan_of(path, "report.ipynb"), "the report's")
    shutil.copyfile(plan_of(path, "report.ipynb"), path / "analysis.plans.sqlite")  # by hand


def _foreign_sqlite(path: Path) -> None:
    connection = sqlite3.connect(path / "analysis.plans.sqlite")
    connection.execute("CREATE TABLE measurements (x REAL)")
    connection.commit()
    connection.close()


def _a_folder(path: Path) -> None:
    (path / "analysis.plans.sqlite").mkdir()
    (path / "analysis.plans.sqlite" / "notes.txt").write_text("a person's notes")


def _a_symlink(path: Path) -> None:
    (path / "elsewhere.txt").write_text("a person's file")
    (path / "analysis.plans.sqlite").symlink_to(path / "elsewhere.txt")


def _a_stale_plan(path: Path) -> None:
    make_notebook(path, "analysis.ipynb")
    decided(plan_of(path, "analysis.ipynb"), "an old analysis")
    (path / "analysis.ipynb").unlink()  # deleted outside Jupyter: its plan stayed


TAKEN = {
    "another notebook's plan": _another_notebooks_plan,
    "a foreign SQLite file": _foreign_sqlite,
    "a folder with a person's file": _a_folder,
    "a symbolic link": _a_symlink,
    "a plan left by a notebook gone since": _a_stale_plan,
}


def _state(path: Path) -> dict:
    """Every entry under the folder: a file's digest, a link's target, a folder's entries."""
    found = {}
    for entry in sorted(path.rglob("*")):
        key = str(entry.relative_to(path))
        if entry.is_symlink():
            found[key] = ("link", os.readlink(entry))
        elif entry.is_file():
            found[key] = ("file", digest(entry), entry.stat().st_ino)
        else:
            found[key] = ("folder",)
    return found


@pytest.mark.parametrize("taken", sorted(TAKEN))
def test_a_rename_onto_a_taken_plan_name_touches_nothing_and_the_next_load_says_so(
    server, folder, taken, ip, capsys, monkeypatch
):
    path, rel = folder
    TAKEN[taken](path)
    holder = path / "analysis.plans.sqlite"
    blocker = {k: v for k, v in _state(path).items() if k.startswith("analysis.plans.sqlite")}
    trashed = trash_listing(server["root"])
    make_notebook(path, "Untitled.ipynb")
    decided(plan_of(path, "Untitled.ipynb"), "mine")
    assert rename(server, f"{rel}/Untitled.ipynb", f"{rel}/analysis.ipynb") == 200
    after = _state(path)
    assert {k: v for k, v in after.items() if k.startswith("analysis.plans.sqlite")} == blocker
    assert trash_listing(server["root"]) == trashed
    # The plan stays where it is, the renamed notebook's now; the server said so in one line.
    assert titles(path / "Untitled.plans.sqlite") == ["mine"]
    assert follow.recorded_notebook(path / "Untitled.plans.sqlite") == "analysis.ipynb"
    told = [line for line in log_lines(server) if "Untitled.plans.sqlite stays" in line]
    assert told and str(path) in told[-1] and "jupyter-plans move" in told[-1]
    # The next load of the renamed notebook says where its plan is, with the command.
    monkeypatch.chdir(path)  # a kernel works in its notebook's folder
    monkeypatch.setitem(ip.user_ns, "__session__", str(path / "analysis.ipynb"))
    ip.run_line_magic("load_ext", "jupyter_plans")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "analysis.ipynb's plan is Untitled.plans.sqlite" in lines[0]
    assert lines[0].endswith("then run: jupyter-plans move Untitled.ipynb analysis.ipynb")
    ip.run_line_magic("unload_ext", "jupyter_plans")
    # A new notebook of the old name does not take the plan over.
    make_notebook(path, "Untitled.ipynb")
    monkeypatch.setitem(ip.user_ns, "__session__", str(path / "Untitled.ipynb"))
    ip.run_line_magic("load_ext", "jupyter_plans")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "is the plan of analysis.ipynb, which is still there" in lines[0]
    ip.run_line_magic("unload_ext", "jupyter_plans")
    (path / "Untitled.ipynb").unlink()
    # Once what held the name is moved away, the command takes the plan along.
    os.rename(holder, path / "kept-aside")
    moved = subprocess.run(
        [*CLI, "move", "Untitled.ipynb", "analysis.ipynb"],
        capture_output=True,
        text=True,
        cwd=path,
    )
    assert moved.returncode == 0, moved.stderr
    assert titles(path / "analysis.plans.sqlite") == ["mine"]
    assert not (path / "Untitled.plans.sqlite").exists()
    assert follow.recorded_notebook(path / "analysis.plans.sqlite") == "analysis.ipynb"


def test_a_rename_back_to_the_name_of_its_left_plan_takes_it_back(server, folder):
    path, rel = folder
    _a_stale_plan(path)
    make_notebook(path, "Untitled.ipynb")
    decided(plan_of(path, "Untitled.ipynb"), "mine")
    assert rename(server, f"{rel}/Untitled.ipynb", f"{rel}/analysis.ipynb") == 200
    assert rename(server, f"{rel}/analysis.ipynb", f"{rel}/Untitled.ipynb") == 200
    assert titles(path / "Untitled.plans.sqlite") == ["mine"]
    assert follow.recorded_notebook(path / "Untitled.plans.sqlite") == "Untitled.ipynb"
    assert titles(path / "analysis.plans.sqlite") == ["an old analysis"]


@pytest.mark.parametrize(
    "new_name",
    ["\udcff-bytes.ipynb", "y" * 249 + ".ipynb"],
    ids=["a byte that is no UTF-8", "a plan name too long for the file system"],
)
def test_no_rename_fails_because_of_the_plan(server, folder, new_name):
    """Jupyter takes both names for the notebook (it then answers the first with a 500 of its
    own: it cannot write the name into the answer's Location); nothing of ours fails: the plan
    goes with the notebook, or stays, recording its notebook, with one line in the log."""
    path, rel = folder
    make_notebook(path, "x.ipynb")
    decided(plan_of(path, "x.ipynb"), "kept")
    before = len(log_lines(server))
    request(server, "PATCH", f"/api/contents/{rel}/x.ipynb", {"path": f"{rel}/{new_name}"})
    assert (path / new_name).exists() and not (path / "x.ipynb").exists()
    logged = "\n".join(log_lines(server)[before:])
    assert "jupyter_plans/" not in logged  # no traceback through our code
    new_plan = path / (new_name[: -len(".ipynb")] + ".plans.sqlite")
    if len(os.fsencode(new_plan.name)) <= 255:  # the plan went with the notebook
        assert titles(new_plan) == ["kept"] and not (path / "x.plans.sqlite").exists()
        assert follow.recorded_notebook(new_plan) == new_name
    else:  # it stays, recording its notebook, and the server said so in one line
        assert titles(path / "x.plans.sqlite") == ["kept"]
        assert follow.recorded_notebook(path / "x.plans.sqlite") == new_name
        assert "x.plans.sqlite stays where it is" in logged


def test_back_to_back_renames_keep_the_plan_beside_its_notebook(server, folder):
    """a -> b -> a, as JupyterLab does it: each rename, then the kernel's session moved to the
    new path, the second of those arriving after the rename back."""
    path, rel = folder
    make_notebook(path, "a.ipynb")
    kernel = Kernel(server, f"{rel}/a.ipynb")
    try:
        kernel.run(LOAD + "s = jupyter_plans.current_session()\ns.on()")
        for turn in range(3):
            assert rename(server, f"{rel}/a.ipynb", f"{rel}/b.ipynb") == 200
            assert rename(server, f"{rel}/b.ipynb", f"{rel}/a.ipynb") == 200
            for late in ("b.ipynb", "a.ipynb"):
                status, body = request(
                    server,
                    "PATCH",
                    f"/api/sessions/{kernel.session_id}",
                    {"path": f"{rel}/{late}", "name": late},
                )
                assert status == 200, body
            shown = kernel.run(
                f"s.call_tool('record_decision', {{'title': 't{turn}', 'rationale': 'r'}})\n"
                "print(s.store.path.name)"
            )
            assert shown.strip() == "a.plans.sqlite"
            assert listing(path) == ["a.ipynb", "a.plans.sqlite"]
        kernel.restart()
        shown = kernel.run(LOAD + "print(jupyter_plans.current_session().store.path.name)")
        assert shown.strip() == "a.plans.sqlite"
    finally:
        kernel.close()
    assert titles(plan_of(path, "a.ipynb")) == ["t0", "t1", "t2"]


def test_a_rename_back_sent_as_soon_as_the_first_lands_keeps_the_plan_beside_its_notebook(
    server, folder
):
    """a -> b -> a, the second rename sent the moment b.ipynb exists, while the first request
    is still taking the plan along: ten times in a row, the plan ends beside a.ipynb."""
    path, rel = folder
    make_notebook(path, "a.ipynb")
    beside = []
    for turn in range(10):
        decided(plan_of(path, "a.ipynb"), f"t{turn}")
        first = threading.Thread(target=rename, args=(server, f"{rel}/a.ipynb", f"{rel}/b.ipynb"))
        first.start()
        try:
            while not (path / "b.ipynb").exists():
                assert first.is_alive() or (path / "b.ipynb").exists(), "the first rename failed"
            assert rename(server, f"{rel}/b.ipynb", f"{rel}/a.ipynb") == 200
        finally:
            first.join()
        beside.append(listing(path) == ["a.ipynb", "a.plans.sqlite"])
        if not beside[-1]:
            break
    assert beside == [True] * 10, f"the plan was not beside a.ipynb after round {len(beside)}"
    assert titles(plan_of(path, "a.ipynb")) == [f"t{turn}" for turn in range(10)]


def test_a_plan_file_the_server_made_records_its_notebook(server, folder, ip, capsys, monkeypatch):
    """The Plan panel before any kernel: the decision route makes the plan file, which records
    its notebook, so a rename outside Jupyter is noticed at the next load."""
    path, rel = folder
    make_notebook(path, "fresh.ipynb")
    status, body = request(
        server, "POST", f"/api/plans/decision?path={rel}/fresh.ipynb", {"action": "on"}
    )
    assert status == 200, body
    assert follow.recorded_notebook(plan_of(path, "fresh.ipynb")) == "fresh.ipynb"
    os.rename(path / "fresh.ipynb", path / "renamed.ipynb")  # outside Jupyter
    monkeypatch.chdir(path)  # a kernel works in its notebook's folder
    monkeypatch.setitem(ip.user_ns, "__session__", str(path / "renamed.ipynb"))
    ip.run_line_magic("load_ext", "jupyter_plans")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "fresh.plans.sqlite beside it is the plan of fresh.ipynb" in lines[0]
    assert lines[0].endswith("jupyter-plans move fresh.ipynb renamed.ipynb")
