"""The plan follows its notebook outside Jupyter (DESIGN section 11): `jupyter-plans move`, a
plan file's record of its notebook, what %load_ext says of a plan left behind, and stores that
have the file open while it moves."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.store.following import follow
from tests.server._agent_writer import AgentWriter
from tests.waiting import wait_until

REPO = Path(__file__).parents[2]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jupyter_plans.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def notebook(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    return path


def with_plan(nb: Path, *titles: str) -> Path:
    plan = nb.with_name(nb.stem + ".plans.sqlite")
    with PlanStore(plan) as store:
        follow.claim(store, nb)
        for title in titles:
            store.session("default").call_tool(
                "record_decision", {"title": title, "rationale": "r"}
            )
    return plan


def titles(plan: Path) -> list[str]:
    with PlanStore(plan) as store:
        return [d.title for d in store.session("default").snapshot().decisions]


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_move_takes_every_write_of_an_agent_writing_as_fast_as_it_can(tmp_path):
    old = notebook(tmp_path, "Untitled.ipynb")
    plan = with_plan(old, "first")
    agent = AgentWriter(plan)
    try:
        wait_until(lambda: len(titles(plan)) >= 20, "the agent's first 20 writes")
        moved = cli("move", "Untitled.ipynb", "analysis.ipynb", cwd=tmp_path)
        assert moved.returncode == 0, moved.stderr
        assert "analysis.plans.sqlite" in moved.stdout
        new_plan = tmp_path / "analysis.plans.sqlite"
        written = len(titles(new_plan))
        wait_until(  # the agent goes on writing, now to the moved plan
            lambda: len(titles(new_plan)) >= written + 10, "10 writes to the moved plan"
        )
    finally:
        accepted = agent.stop()
    new_plan = tmp_path / "analysis.plans.sqlite"
    assert files(tmp_path)[:2] == ["analysis.ipynb", "analysis.plans.sqlite"]
    assert not [name for name in files(tmp_path) if name.startswith("Untitled")]
    assert set(accepted) <= set(titles(new_plan)) and len(accepted) > 20
    connection = sqlite3.connect(new_plan)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
    assert follow.recorded_notebook(new_plan) == "analysis.ipynb"


def test_move_refuses_in_one_line_and_moves_nothing(tmp_path):
    a = notebook(tmp_path, "a.ipynb")
    with_plan(a, "kept")
    notebook(tmp_path, "b.ipynb")
    before = files(tmp_path)
    for args, said in [
        (("a.ipynb", "b.ipynb"), "b.ipynb exists already: nothing was moved"),
        (("a.ipynb", "c.txt"), "move takes two notebooks (.ipynb)"),
        (("gone.ipynb", "d.ipynb"), "gone.ipynb is not a notebook here: nothing was moved"),
        (("a.ipynb", "nowhere/a.ipynb"), "the folder nowhere does not exist"),
    ]:
        result = cli("move", *args, cwd=tmp_path)
        assert result.returncode == 1 and result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and said in result.stderr, result.stderr
    with_plan(notebook(tmp_path, "x.ipynb"))
    (tmp_path / "x.ipynb").unlink()  # x's plan is left; a's may not be moved onto it
    before = files(tmp_path)
    result = cli("move", "a.ipynb", "x.ipynb", cwd=tmp_path)
    assert result.returncode == 1 and "x.plans.sqlite exists already" in result.stderr
    assert files(tmp_path) == before and titles(tmp_path / "a.plans.sqlite") == ["kept"]


def test_move_into_a_folder_and_of_a_notebook_moved_by_hand(tmp_path):
    a = notebook(tmp_path, "a.ipynb")
    with_plan(a, "one")
    (tmp_path / "sub").mkdir()
    assert cli("move", "a.ipynb", "sub", cwd=tmp_path).returncode == 0
    assert files(tmp_path / "sub") == ["a.ipynb", "a.plans.sqlite"]
    os.rename(tmp_path / "sub" / "a.ipynb", tmp_path / "b.ipynb")  # by hand: the plan stays
    result = cli("move", "sub/a.ipynb", "b.ipynb", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("Moved its plan file")
    assert titles(tmp_path / "b.plans.sqlite") == ["one"] and files(tmp_path / "sub") == []
    assert follow.recorded_notebook(tmp_path / "b.plans.sqlite") == "b.ipynb"


def test_load_ext_names_the_command_for_a_plan_left_by_a_renamed_notebook(
    ip, tmp_path, capsys, monkeypatch
):
    with_plan(notebook(tmp_path, "Untitled.ipynb"), "kept")
    os.rename(tmp_path / "Untitled.ipynb", tmp_path / "analysis.ipynb")  # outside Jupyter
    monkeypatch.setitem(ip.user_ns, "__session__", str(tmp_path / "analysis.ipynb"))
    ip.run_line_magic("load_ext", "jupyter_plans")
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1
    assert "Untitled.plans.sqlite" in said[0] and "Untitled.ipynb, which is gone" in said[0]
    assert said[0].endswith("jupyter-plans move Untitled.ipynb analysis.ipynb")
    # Nothing adopted by itself: the notebook's plan is its own, the left one untouched.
    import jupyter_plans

    assert jupyter_plans.current_session().snapshot().decisions == []
    assert titles(tmp_path / "Untitled.plans.sqlite") == ["kept"]


def test_a_plan_file_of_another_notebook_still_there_is_never_adopted(
    ip, tmp_path, capsys, monkeypatch
):
    a = notebook(tmp_path, "a.ipynb")
    plan = with_plan(a, "a's")
    b = notebook(tmp_path, "b.ipynb")
    (tmp_path / "b.plans.sqlite").write_bytes(plan.read_bytes())  # copied by hand
    monkeypatch.setitem(ip.user_ns, "__session__", str(b))
    ip.run_line_magic("load_ext", "jupyter_plans")
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "b.plans.sqlite is the plan of a.ipynb" in said[0]
    with pytest.raises(PlanStoreError, match="the plan of a.ipynb, which is still there"):
        follow.move(b, tmp_path / "c.ipynb")
    assert follow.orphans(tmp_path / "d.ipynb") == []  # a's plan is no orphan


def test_a_store_follows_a_renamed_folder_and_gives_up_cleanly_on_a_lost_chain(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    plan = with_plan(notebook(folder, "a.ipynb"), "one")
    store = PlanStore(plan)
    session = store.session("default")
    assert session.cursor() == 1
    os.rename(folder, tmp_path / "renamed")
    follow.mark_moved_folder(tmp_path / "renamed")
    session.call_tool("record_decision", {"title": "two", "rationale": "r"})
    assert store.path == tmp_path / "renamed" / "a.plans.sqlite"
    assert titles(store.path) == ["one", "two"] and not folder.exists()
    # Two renames while the store did nothing: it refuses to write rather than guess.
    renamed = tmp_path / "renamed"
    follow.move(renamed / "a.ipynb", renamed / "b.ipynb")
    follow.move(renamed / "b.ipynb", renamed / "c.ipynb")
    with pytest.raises(PlanStoreError, match="which has moved again since"):
        session.call_tool("record_decision", {"title": "three", "rationale": "r"})
    assert files(renamed) == ["a.ipynb", "c.plans.sqlite"]
    assert titles(renamed / "c.plans.sqlite") == ["one", "two"]
    store.close()


def test_seen_cursors_follow_the_rename(tmp_path):
    from jupyter_plans.notebook.resume import last_seen, remember_seen

    old = notebook(tmp_path, "Untitled.ipynb")
    plan = with_plan(old, "one")
    with PlanStore(plan) as store:
        remember_seen(store.session("default"), "Untitled.ipynb", 1)
    os.rename(old, tmp_path / "analysis.ipynb")
    follow.move(old, tmp_path / "analysis.ipynb")
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        assert last_seen(store.session("default"), "analysis.ipynb") == 1
    assert json.loads((tmp_path / "analysis.ipynb").read_text())["nbformat"] == 4


def test_a_thread_that_never_had_the_file_open_follows_the_move_too(tmp_path):
    """A server answers on a pool of threads: one that opens its first connection after the
    move finds the old path empty, and learns where the plan went from the store."""
    import threading

    old = notebook(tmp_path, "Untitled.ipynb")
    plan = with_plan(old, "one")
    store = PlanStore(plan)
    assert store.session("default").cursor() == 1
    os.rename(old, tmp_path / "analysis.ipynb")
    follow.move(old, tmp_path / "analysis.ipynb")
    store.check_file()  # what the server asks before it answers
    failures = []

    def write() -> None:
        try:
            store.session("default").call_tool(
                "record_decision", {"title": "two", "rationale": "r"}
            )
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert failures == [] and store.path == tmp_path / "analysis.plans.sqlite"
    assert titles(store.path) == ["one", "two"]
    assert not [name for name in files(tmp_path) if name.startswith("Untitled")]
    store.close()


def test_a_copy_of_a_renamed_folder_keeps_its_own_plan(tmp_path):
    """A renamed folder's plan files name their new place; a copy of that folder carries the
    mark, and its plan is still its own: writes to the copy stay in the copy."""
    import shutil

    folder = tmp_path / "project"
    folder.mkdir()
    with_plan(notebook(folder, "a.ipynb"), "one")
    os.rename(folder, tmp_path / "renamed")
    follow.mark_moved_folder(tmp_path / "renamed")
    shutil.copytree(tmp_path / "renamed", tmp_path / "copy")
    with PlanStore(tmp_path / "copy" / "a.plans.sqlite") as store:
        store.session("default").call_tool("record_decision", {"title": "two", "rationale": "r"})
        assert store.path == tmp_path / "copy" / "a.plans.sqlite"
    assert titles(tmp_path / "copy" / "a.plans.sqlite") == ["one", "two"]
    assert titles(tmp_path / "renamed" / "a.plans.sqlite") == ["one"]


def test_a_plan_file_cannot_send_a_store_elsewhere_or_name_a_strange_notebook(tmp_path):
    """What another program writes in a plan file is only followed to a plan file's path, and
    read as a notebook's name only when it is one."""
    import sqlite3

    plan = with_plan(notebook(tmp_path, "a.ipynb"), "one")
    store = PlanStore(plan)
    store.session("default").cursor()
    connection = sqlite3.connect(plan)
    connection.execute(
        "INSERT INTO plans_settings (key, value) VALUES ('moved_to', ?)", (str(tmp_path / "x.txt"),)
    )
    connection.execute("UPDATE plans_settings SET value = ? WHERE key = 'notebook'", ("\x1b[2J",))
    connection.commit()
    connection.close()
    store.session("default").call_tool("record_decision", {"title": "two", "rationale": "r"})
    assert store.path == plan and not (tmp_path / "x.txt").exists()
    assert follow.recorded_notebook(plan) is None
    store.close()


def test_a_plan_left_behind_is_named_at_each_load_until_the_name_holds_another_plan(
    tmp_path, monkeypatch
):
    """The plan of a notebook renamed onto a taken plan name stays, and says so: while what held
    the name holds it, a load is refused with the command; once the name is free, a load says
    it with the command and adopts nothing; a plan file made there since is the notebook's."""
    monkeypatch.chdir(tmp_path)  # a kernel works in its notebook's folder
    untitled = notebook(tmp_path, "Untitled.ipynb")
    with_plan(untitled, "mine")
    (tmp_path / "analysis.plans.sqlite").write_text("a person's notes, oddly named")
    os.rename(untitled, tmp_path / "analysis.ipynb")
    with pytest.raises(PlanStoreError, match="is taken"):
        follow.move(untitled, tmp_path / "analysis.ipynb")
    assert follow.stay(untitled, tmp_path / "analysis.ipynb") == tmp_path / "Untitled.plans.sqlite"
    analysis = tmp_path / "analysis.ipynb"
    plan = str(tmp_path / "analysis.plans.sqlite")
    with pytest.raises(PlanStoreError, match="jupyter-plans move") as refused:
        follow.before_open(analysis, plan)
    assert str(refused.value).startswith("analysis.ipynb's plan is Untitled.plans.sqlite")
    assert (tmp_path / "analysis.plans.sqlite").read_text() == "a person's notes, oddly named"
    os.rename(tmp_path / "analysis.plans.sqlite", tmp_path / "notes.txt")
    said = follow.before_open(analysis, plan)
    assert said.startswith("analysis.ipynb has no plan file, but Untitled.plans.sqlite")
    assert said.endswith("take it along with: jupyter-plans move Untitled.ipynb analysis.ipynb")
    with_plan(analysis, "a new start")  # the person went on without it
    assert follow.before_open(analysis, plan) is None
    assert titles(tmp_path / "Untitled.plans.sqlite") == ["mine"]
