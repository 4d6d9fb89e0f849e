"""The plan follows its notebook (DESIGN section 11) through a real `jupyter server` and a real
kernel it started: rename and move while an agent process writes, copy, delete, the hidden
side files, and what every surface sees afterwards."""

import json
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from tests.helpers.trash import remove_from_trash, trash_folders
from tests.http import request
from tests.server._agent_writer import AgentWriter
from tests.server._kernel import LOAD, NOTEBOOK, Kernel, make_notebook, plan_of
from tests.waiting import wait_until


def decisions(plan: Path) -> list[str]:
    with PlanStore(plan) as store:
        return [d.title for d in store.session("default").snapshot().decisions]


def integrity(plan: Path) -> str:
    connection = sqlite3.connect(plan)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


SHOW = (
    "s = jupyter_plans.current_session()\n"
    "print(s.store.path.name, s.cursor(), len(s.snapshot().decisions), "
    "get_ipython().magics_manager.registry['PlanMagics'].notebook.name)"
)


@pytest.fixture
def name():
    return f"Untitled-{uuid.uuid4().hex[:8]}.ipynb"


def test_a_rename_while_an_agent_writes_takes_every_write_along(server, name):
    root = server["root"]
    make_notebook(root, name)
    kernel = Kernel(server, name)
    try:
        kernel.run(LOAD + "jupyter_plans.current_session().on()")
        old_plan = plan_of(root, name)
        assert old_plan.exists()
        agent = AgentWriter(old_plan)
        try:
            wait_until(lambda: len(decisions(old_plan)) >= 20, "the agent's first 20 writes")
            new = "analysis-" + name.removeprefix("Untitled-")
            asked = time.perf_counter()
            status, body = request(server, "PATCH", f"/api/contents/{name}", {"path": new})
            took = time.perf_counter() - asked
            assert status == 200, body
            # The plan has followed before the answer came.
            new_plan = plan_of(root, new)
            assert new_plan.exists() and not old_plan.exists()
            written = len(decisions(new_plan))
            try:
                wait_until(  # the agent goes on writing, now to the renamed plan
                    lambda: len(decisions(new_plan)) >= written + 20,
                    "20 writes to the renamed plan",
                )
            except AssertionError:
                agent.say_where()
                raise
        finally:
            accepted = agent.stop()
        assert len(accepted) > 20
        leftovers = sorted(p.name for p in root.iterdir() if p.name.startswith(old_plan.name))
        assert leftovers == []  # no file at the old name for a new notebook to adopt
        kept = decisions(new_plan)
        assert set(accepted) <= set(kept)  # every accepted write, none lost
        print(f"rename took {took * 1000:.0f} ms with {len(accepted)} writes accepted around it")
        assert integrity(new_plan) == "ok"

        # The running kernel: its next write and read are the renamed plan's.
        shown = kernel.run("jupyter_plans.current_session().off()\n" + SHOW)
        with PlanStore(new_plan) as store:
            cursor = store.session("default").cursor()
        assert shown.split() == [new_plan.name, str(cursor), str(len(kept)), new]
        assert not old_plan.exists()

        # The server routes with the new path, and the CLI.
        status, body = request(server, "GET", f"/api/plans/snapshot?path={new}")
        assert status == 200 and body["cursor"] == cursor and len(body["decisions"]) == len(kept)
        cli = subprocess.run(
            [sys.executable, "-m", "jupyter_plans.cli", "snapshot", "--db", str(new_plan)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(cli.stdout)["cursor"] == cursor

        # A restarted kernel opens the plan under the new name (its session moved with it).
        kernel.restart()
        shown = kernel.run(LOAD + SHOW)
        assert shown.split() == [new_plan.name, str(cursor), str(len(kept)), new]
    finally:
        kernel.close()


def test_a_move_into_a_folder_and_back(server, name):
    root = server["root"]
    make_notebook(root, name)
    with PlanStore(plan_of(root, name)) as store:
        session = store.session("default")
        session.call_tool("record_decision", {"title": "before", "rationale": "r"})
        (root / "sub").mkdir(exist_ok=True)
        status, _ = request(server, "PATCH", f"/api/contents/{name}", {"path": f"sub/{name}"})
        assert status == 200
        assert plan_of(root / "sub", name).exists() and not plan_of(root, name).exists()
        # The open store follows: its next write lands in the moved file.
        session.call_tool("record_decision", {"title": "after", "rationale": "r"})
        assert store.path == plan_of(root / "sub", name)
    assert decisions(plan_of(root / "sub", name)) == ["before", "after"]
    status, _ = request(server, "PATCH", f"/api/contents/sub/{name}", {"path": name})
    assert status == 200 and decisions(plan_of(root, name)) == ["before", "after"]


def test_a_copy_gets_its_own_copy_of_the_plan(server, name):
    root = server["root"]
    make_notebook(root, name)
    with PlanStore(plan_of(root, name)) as store:
        store.session("default").call_tool("record_decision", {"title": "one", "rationale": "r"})
    status, body = request(server, "POST", "/api/contents", {"copy_from": name})
    assert status == 201, body
    copy = body["path"]
    assert copy != name and plan_of(root, copy).exists()
    assert decisions(plan_of(root, copy)) == ["one"]
    with PlanStore(plan_of(root, copy)) as store:  # independent from then on
        store.session("default").call_tool("record_decision", {"title": "two", "rationale": "r"})
    assert decisions(plan_of(root, name)) == ["one"]
    assert decisions(plan_of(root, copy)) == ["one", "two"]
    from jupyter_plans.store.following.follow import recorded_notebook

    assert recorded_notebook(plan_of(root, copy)) == copy


def test_a_delete_sends_the_plan_where_the_notebook_goes(server, name):
    root = server["root"]
    make_notebook(root, name)
    with PlanStore(plan_of(root, name)) as store:
        store.session("default").call_tool("record_decision", {"title": "kept", "rationale": "r"})
        status, _ = request(server, "DELETE", f"/api/contents/{name}")
        assert status == 204
        assert not (root / name).exists() and not plan_of(root, name).exists()
        assert [p for p in root.iterdir() if p.name.startswith(name[:-6])] == []
        # The open store does not make a new plan file for a deleted notebook.
        with pytest.raises(Exception, match="trash"):
            store.session("default").call_tool("record_decision", {"title": "x", "rationale": "r"})
        assert not plan_of(root, name).exists()
    # In the trash beside the notebook, with what was committed.
    trashed = [folder / name for folder in trash_folders(root) if (folder / name).exists()]
    assert trashed, "the notebook went to no trash this test knows"
    plan = trashed[0].with_name(plan_of(root, name).name)
    try:
        assert decisions(plan) == ["kept"]
    finally:  # the trash may be outside the test's folder (the top of its file system)
        remove_from_trash(trashed[0], plan)


def test_the_plan_files_side_files_are_hidden_from_the_file_browser(server, name):
    root = server["root"]
    make_notebook(root, name)
    with PlanStore(plan_of(root, name)) as store:
        store.session("default").on()
        assert Path(str(plan_of(root, name)) + "-wal").exists()
        status, body = request(server, "GET", "/api/contents/")
    names = {entry["name"] for entry in body["content"]}
    assert status == 200 and plan_of(root, name).name in names
    assert not {n for n in names if n.endswith(("-wal", "-shm"))}


def test_save_as_gives_the_copy_its_own_plan(server, name):
    """Save As in JupyterLab: the notebook is saved under the new name, then its kernel's
    session moves there; the old notebook stays, so the new one is a copy."""
    root = server["root"]
    make_notebook(root, name)
    kernel = Kernel(server, name)
    try:
        with PlanStore(plan_of(root, name)) as store:
            store.session("default").call_tool("record_decision", {"title": "a", "rationale": "r"})
        copy = "saved-as-" + name
        model = {"type": "notebook", "format": "json", "content": NOTEBOOK}
        status, _ = request(server, "PUT", f"/api/contents/{copy}", model)
        assert status == 201
        status, _ = request(
            server, "PATCH", f"/api/sessions/{kernel.session_id}", {"path": copy, "name": copy}
        )
        assert status == 200
        assert decisions(plan_of(root, copy)) == ["a"] and decisions(plan_of(root, name)) == ["a"]
        from jupyter_plans.store.following.follow import recorded_notebook

        assert recorded_notebook(plan_of(root, copy)) == copy
    finally:
        kernel.close()
