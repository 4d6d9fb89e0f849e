"""One plan, every surface (DESIGN section 16), through a real `jupyter server` configured once,
with its setting (--JupyterPlansApp.database=...) or with only the environment, and a real
kernel it started: the kernel, the routes, the command line with --notebook and `where` all
find the same plan in the team's database (PostgreSQL, or a SQLite file of the team's own); a
rename through the contents API while the kernel writes loses no write and leaves none under
the old id; a copy and a delete keep every row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.following.session_moves import deleted
from tests.http import request
from tests.jupyter_process import SERVER_TOKEN as TOKEN
from tests.jupyter_process import jupyter, plans_only
from tests.server._kernel import WRITING, Kernel
from tests.waiting import wait_until

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
PROPOSAL = {
    "explanation": "why",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load the data"}],
}
LOAD = (
    "get_ipython().config.PlanMagics.auto_display = False\n"
    "%load_ext jupyter_plans\n"
    "import jupyter_plans\n"
)
CLEAN = ("JUPYTER_PLANS_DATABASE", "JUPYTER_PLANS_SESSION_ID", "JUPYTER_PLANS_SERVER_ROOT")


def team(engine: str, db: str, tmp_path: Path) -> tuple[str, str]:
    """(database, session template): PostgreSQL with a session per notebook path; a SQLite
    file of the team's own with a template of our own."""
    if engine == "sqlite":
        return str(tmp_path / "team" / "plans.sqlite"), "{user}:{notebook_path}"
    scheme, rest = db.split("://", 1)
    user, host = rest.split("@", 1)
    return f"{scheme}://{user}:s3cret-pw@{host}", "{notebook_path}"  # the test server trusts


def session_id(template: str, path: str) -> str:
    import getpass

    return template.replace("{user}", getpass.getuser()).replace("{notebook_path}", path)


@pytest.fixture(params=["setting", "environment"])
def served(request, engine, db, tmp_path):
    """A server of a fresh root, told where the team's plans are by its setting or only by the
    environment it starts in."""
    database, template = team(engine, db, tmp_path)
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "team").mkdir()
    options = [plans_only()]
    env = {name: "" for name in CLEAN}  # nothing inherited from the test's own
    if request.param == "setting":
        options += [f"--JupyterPlansApp.database={database}"]
        options += [f"--JupyterPlansApp.session_id={template}"]
    else:
        env |= {"JUPYTER_PLANS_DATABASE": database, "JUPYTER_PLANS_SESSION_ID": template}
    with jupyter("server", root, TOKEN, *options, log=tmp_path / "server.log", env=env) as (
        _process,
        base,
    ):
        yield {
            "base": base,
            "root": root,
            "database": database,
            "template": template,
            "from": request.param,
            "log": tmp_path / "server.log",
        }


def make(root: Path, name: str) -> str:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(json.dumps(NOTEBOOK))
    return name


def cli(served: dict, *args: str) -> subprocess.CompletedProcess:
    """The command line as a terminal of the server runs it, in the environment the server
    gives the terminals and kernels it starts."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    env |= {
        "JUPYTER_PLANS_DATABASE": served["database"],
        "JUPYTER_PLANS_SESSION_ID": served["template"],
        "JUPYTER_PLANS_SERVER_ROOT": str(served["root"]),
    }
    return subprocess.run(
        [sys.executable, "-m", "jupyter_plans.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_every_surface_finds_the_teams_plan(served):
    root, database = served["root"], served["database"]
    name = make(root, f"q3/sales-{uuid.uuid4().hex[:6]}.ipynb")
    sid = session_id(served["template"], name)
    kernel = Kernel(served, name)
    try:
        # The kernel the server started was given its settings, and finds the team's plan.
        told = kernel.run(
            "import os\n"
            "print(os.environ['JUPYTER_PLANS_DATABASE'] == "
            f"{database!r}, os.environ['JUPYTER_PLANS_SESSION_ID'])\n"
            + LOAD
            + "s = jupyter_plans.current_session()\n"
            f"s.on()\nprint(s.call_tool('plan_submit', {PROPOSAL!r}, turn_id='t1').is_error)\n"
            "print(s.session_id)"
        )
        assert told.split() == ["True", served["template"], "False", sid]
        assert sorted(p.name for p in (root / "q3").iterdir()) == [Path(name).name]

        # The panel's routes serve it, and decide on it.
        status, sessions = request(served, "GET", f"/api/plans/sessions?path={name}")
        assert status == 200 and sessions["current"] == sid
        assert [s["session_id"] for s in sessions["sessions"]] == [sid]
        status, snapshot = request(served, "GET", f"/api/plans/snapshot?path={name}")
        assert status == 200 and snapshot["session_id"] == sid and snapshot["mode"] == "plan"
        waiting = snapshot["pending_proposal_hash"]
        status, decided = request(
            served,
            "POST",
            f"/api/plans/decision?path={name}",
            {"action": "approve", "hash": waiting, "via": "panel"},
        )
        assert status == 200 and decided["approved_proposal_hash"] == waiting
        assert kernel.run("print(s.snapshot().approved_proposal_hash)").strip() == waiting

        # The command line with --notebook, as a terminal of this server runs it.
        found = cli(served, "where", str(root / name))
        assert found.returncode == 0, found.stderr
        assert found.stdout.splitlines()[1] == f"session: {sid} (environment)"
        assert "s3cret-pw" not in found.stdout
        shown = cli(served, "snapshot", "--notebook", str(root / name))
        assert json.loads(shown.stdout)["approved_proposal_hash"] == waiting
    finally:
        kernel.close()

    # A notebook with no session there: 404 naming the session and the database, made nowhere.
    other = make(root, "empty.ipynb")
    for method, route, body in (
        ("GET", "snapshot", None),
        ("GET", "card", None),
        ("GET", "events", None),
        ("POST", "decision", {"action": "on"}),
        ("POST", "comment", {"text": "hm"}),
    ):
        status, said = request(served, method, f"/api/plans/{route}?path={other}", body)
        assert status == 404, (route, said)
        assert session_id(served["template"], other) in said["message"]
        assert "s3cret-pw" not in said["message"] and "\n" not in said["message"]
    status, listed = request(served, "GET", f"/api/plans/sessions?path={other}")
    assert status == 200 and listed["sessions"] == []
    assert not list(root.glob("*.plans.sqlite")) and not list(root.rglob("*.plans.sqlite"))
    with PlanStore(database) as store:
        assert [s["session_id"] for s in store.sessions()] == [sid]


def test_the_event_stream_is_woken_by_another_process(served):
    root = served["root"]
    name = make(root, "stream.ipynb")
    sid = session_id(served["template"], name)
    with PlanStore(served["database"]) as store:
        store.session(sid).on()
    url = f"{served['base']}/api/plans/events?path={name}&after=1"
    stream = urllib.request.Request(url, headers={"Accept": "text/event-stream"})
    stream.add_header("Authorization", f"token {TOKEN}")
    got: list[str] = []
    with urllib.request.urlopen(stream, timeout=30) as response:

        def read() -> None:
            for line in response:
                got.append(line.decode())
                if line.startswith(b"data:"):
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        done = cli(served, "plan", "--notebook", str(root / name), "off")
        assert done.returncode == 0, done.stderr
        reader.join(timeout=20)
    data = [json.loads(line[5:]) for line in got if line.startswith("data:")]
    assert [(e["seq"], e["kind"]) for e in data] == [(2, "mode_changed")]


def test_a_rename_while_the_kernel_writes(served):
    root = served["root"]
    old = make(root, f"Untitled-{uuid.uuid4().hex[:6]}.ipynb")
    new = "sub/" + old.replace("Untitled", "analysis")
    (root / "sub").mkdir()
    old_sid, new_sid = (session_id(served["template"], n) for n in (old, new))
    kernel = Kernel(served, old)
    try:
        kernel.run(LOAD + WRITING)
        count = "print(len(_accepted))"
        wait_until(lambda: int(kernel.run(count)) >= 20, "the kernel's first 20 writes")
        # No limit on how soon (a loaded machine's rename waited more than 10 s, not yet
        # explained: docs/development.md, Under load); it prints how long it took.
        asked = time.monotonic()
        status, body = request(served, "PATCH", f"/api/contents/{old}", {"path": new}, timeout=120)
        assert status == 200, body
        print(f"the rename answered in {time.monotonic() - asked:.2f} s")
        at_rename = int(kernel.run(count))
        wait_until(lambda: int(kernel.run(count)) >= at_rename + 20, "20 writes after it")
        said = kernel.run(
            "_stop.set(); _writer.join()\n"
            "print(_session.session_id)\n"
            "print(' '.join(_accepted))\n"
            "print(get_ipython().magics_manager.registry['PlanMagics'].notebook.name)"
        ).splitlines()
        assert said[0] == new_sid and said[2] == Path(new).name
        accepted = said[1].split()
        with PlanStore(served["database"]) as store:
            kept = [d.title for d in store.session(new_sid).snapshot().decisions]
            assert kept == accepted  # every accepted write, in order, none lost
            assert store.session(old_sid).snapshot().cursor == 0  # none under the old id
            assert [s["session_id"] for s in store.sessions()] == [new_sid]
            cursor = store.session(new_sid).cursor()
        print(f"{len(accepted)} writes by the kernel, {at_rename} before the rename")

        # The panel with the new path, a --notebook agent, and a restarted kernel see it too.
        status, snapshot = request(served, "GET", f"/api/plans/snapshot?path={new}")
        assert status == 200 and snapshot["session_id"] == new_sid
        assert snapshot["cursor"] == cursor
        shown = json.loads(cli(served, "snapshot", "--notebook", str(root / new)).stdout)
        assert (shown["session_id"], shown["cursor"]) == (new_sid, cursor)
        assert cli(served, "where", str(root / old)).returncode == 1
        kernel.restart()
        again = kernel.run(
            LOAD + "s = jupyter_plans.current_session()\nprint(s.session_id, s.cursor())"
        )
        assert again.split() == [new_sid, str(cursor)]
    finally:
        kernel.close()


def test_a_taken_id_a_copy_and_a_delete(served):
    root, database = served["root"], served["database"]
    first, second = make(root, "one.ipynb"), make(root, "two.ipynb")
    sids = {n: session_id(served["template"], n) for n in (first, second, "one-Copy1.ipynb")}
    with PlanStore(database) as store:
        store.session(sids[first]).on()
        store.session(sids[second]).off()
    # Renamed onto a notebook name whose session exists: Jupyter refuses a file that exists,
    # so the taken id is another notebook's that was deleted without Jupyter.
    (root / second).unlink()
    status, _ = request(served, "PATCH", f"/api/contents/{first}", {"path": second})
    assert status == 200
    with PlanStore(database) as store:
        modes = {s["session_id"]: s["mode"] for s in store.sessions()}
    assert modes == {sids[first]: "plan", sids[second]: "default"}  # both as they were
    assert "keeps its id" in served["log"].read_text()
    request(served, "PATCH", f"/api/contents/{second}", {"path": first})
    # A copy copies the session under the copy's id; a delete marks it and drops nothing.
    status, made = request(served, "POST", "/api/contents", {"copy_from": first})
    assert status == 201 and made["path"] == "one-Copy1.ipynb"
    status, _ = request(served, "DELETE", f"/api/contents/{first}")
    assert status == 204
    with PlanStore(database) as store:
        listed = [s["session_id"] for s in store.sessions()]
        assert sids[first] not in listed and sids["one-Copy1.ipynb"] in listed
        assert [s["session_id"] for s in deleted(store)] == [sids[first]]
        assert store.session(sids[first]).snapshot().mode == "plan"  # its rows are all there
        assert store.session(sids["one-Copy1.ipynb"]).snapshot().mode == "plan"
