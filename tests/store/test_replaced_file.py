"""A plan file deleted or replaced while a store has it open (DESIGN section 9): the store
opens what is at the path now, and never commits into the file that is no longer there."""

import hashlib
import http.client
import os
import shutil
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.errors import PlanStoreError
from tests.helpers.kernel import run
from tests.http import next_event, request
from tests.jupyter_process import SERVER_TOKEN as TOKEN

SIDES = ("-wal", "-shm")


def plan_file(path, description):
    """A plan file at `path` whose session "default" has one accepted update_plan."""
    with PlanStore(path) as store:
        steps = [{"id": "a", "description": description}]
        result = store.session("default").call_tool(
            "update_plan", {"expected_revision": 0, "steps": steps}
        )
        assert not result.is_error, result.content
    return path


def put_in_place(source, path):
    """Replace `path` by a copy of `source`, as an editor or a sync tool saves a file."""
    shutil.copy(source, path.with_name(path.name + ".tmp"))
    os.replace(path.with_name(path.name + ".tmp"), path)


def described(snapshot):
    plan = snapshot["plan"] if isinstance(snapshot, dict) else snapshot.model_dump()["plan"]
    return None if plan is None else plan["steps"][0]["description"]


def on_disk(path):
    """The default session at `path`, read by a store opened now."""
    with PlanStore(path) as store:
        return store.session("default").snapshot()


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def side_files(path):
    return [side for side in SIDES if path.with_name(path.name + side).exists()]


def replace_by_copy(path, tmp_path):
    put_in_place(plan_file(tmp_path / "other.plans.sqlite", "the new file"), path)


def replace_by_a_new_store(path, _tmp_path):
    path.unlink()
    plan_file(path, "the new file")


# The Python API.


@pytest.mark.parametrize("replace", [replace_by_copy, replace_by_a_new_store])
def test_a_store_follows_a_replaced_file_and_writes_only_there(tmp_path, replace):
    path = plan_file(tmp_path / "a.plans.sqlite", "the old file")
    old = tmp_path / "old-inode"
    os.link(path, old)  # the old file stays reachable, to see that nothing lands in it
    with PlanStore(path) as store, ThreadPoolExecutor(1) as other_thread:
        session = store.session("default")
        # Commits in the old file's -wal, which SQLite finds by the path's name.
        session.on()
        session.off()
        assert described(session.snapshot()) == "the old file"
        # Another thread of the store has its own connection to the old file.
        assert described(other_thread.submit(session.snapshot).result()) == "the old file"
        token = store.change_token()
        replace(path, tmp_path)
        before = digest(old)

        assert store.change_token() != token
        assert described(session.snapshot()) == "the new file"
        assert described(other_thread.submit(session.snapshot).result()) == "the new file"
        assert [e.seq for e in session.events()] == [1]
        session.on()
        assert on_disk(path).mode == "plan" and described(on_disk(path)) == "the new file"
        other_thread.submit(session.off).result()
        assert on_disk(path).mode == "default" and on_disk(path).cursor == 3
    assert digest(old) == before
    with PlanStore(old) as old_store:
        assert old_store.session("default").snapshot().mode == "default"
        assert described(old_store.session("default").snapshot()) == "the old file"


def test_a_deleted_file_reads_as_an_empty_session_and_a_write_makes_it_again(tmp_path):
    path = plan_file(tmp_path / "a.plans.sqlite", "the old file")
    with PlanStore(path) as store:
        session = store.session("default")
        assert session.snapshot().cursor == 1
        store.set_current_session("default")
        path.unlink()

        snapshot = session.snapshot()
        assert (snapshot.cursor, snapshot.mode, snapshot.plan) == (0, "default", None)
        assert session.events() == [] and store.sessions() == []
        assert store.current_session_id() == "default"
        assert store.session().session_id == "default"
        assert not path.exists() and side_files(path) == []  # reading made no file

        session.on()
        assert path.exists()
        assert on_disk(path).mode == "plan" and on_disk(path).cursor == 1
        assert session.snapshot().mode == "plan"


@pytest.mark.parametrize("kind", ["text", "sqlite"])
def test_a_replacing_file_that_is_no_plan_file_is_refused_and_left_as_it_is(tmp_path, kind):
    path = plan_file(tmp_path / "a.plans.sqlite", "the old file")
    foreign = tmp_path / "foreign"
    if kind == "text":
        foreign.write_text("my notes, not a plan\n")
    else:
        conn = sqlite3.connect(foreign)
        conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)")
        conn.execute("INSERT INTO accounts (owner) VALUES ('someone')")
        conn.commit()
        conn.close()
    with PlanStore(path) as store:
        session = store.session("default")
        assert described(session.snapshot()) == "the old file"
        put_in_place(foreign, path)
        before = digest(path)
        for attempt in (session.snapshot, session.on, store.sessions):
            with pytest.raises(PlanStoreError) as refused:
                attempt()
            assert "\n" not in str(refused.value) and str(path) in str(refused.value)
        assert digest(path) == before and side_files(path) == []
        # Once a plan file is there again, the store opens it.
        put_in_place(plan_file(tmp_path / "other.plans.sqlite", "the new file"), path)
        assert described(session.snapshot()) == "the new file"


def test_threads_writing_as_the_file_is_replaced_open_the_new_one_once(tmp_path):
    path = plan_file(tmp_path / "a.plans.sqlite", "the old file")
    with PlanStore(path) as store:
        session = store.session("default")
        session.snapshot()
        replace_by_copy(path, tmp_path)
        decision = {"title": "keep the data", "rationale": "it is all there is"}

        def record(_):
            return session.call_tool("record_decision", decision).is_error

        with ThreadPoolExecutor(4) as threads:
            assert not any(threads.map(record, range(40)))
        snapshot = on_disk(path)
        assert snapshot.cursor == 41 and described(snapshot) == "the new file"
        assert store.generation == 1


# The server extension.


def test_the_server_follows_a_replaced_file(server, tmp_path):
    root = server["root"]
    (root / "replaced.ipynb").write_text("{}")
    path = plan_file(root / "replaced.plans.sqlite", "the old file")
    snapshot = "/api/plans/snapshot?path=replaced.ipynb"
    status, body = request(server, "GET", snapshot)
    assert status == 200 and described(body) == "the old file"

    replace_by_copy(path, tmp_path)
    status, body = request(server, "GET", snapshot)
    assert status == 200 and described(body) == "the new file"
    decision = "/api/plans/decision?path=replaced.ipynb"
    status, body = request(server, "POST", decision, {"action": "on"})
    assert status == 200 and body["mode"] == "plan" and described(body) == "the new file"
    assert on_disk(path).mode == "plan" and described(on_disk(path)) == "the new file"


def test_the_server_reads_a_deleted_file_as_empty_and_a_decision_makes_it_again(server):
    root = server["root"]
    (root / "deleted.ipynb").write_text("{}")
    path = plan_file(root / "deleted.plans.sqlite", "the old file")
    status, body = request(server, "GET", "/api/plans/snapshot?path=deleted.ipynb")
    assert status == 200 and described(body) == "the old file"

    path.unlink()
    status, body = request(server, "GET", "/api/plans/snapshot?path=deleted.ipynb")
    assert status == 200 and (body["cursor"], body["mode"], body["plan"]) == (0, "default", None)
    status, body = request(server, "GET", "/api/plans/sessions?path=deleted.ipynb")
    assert status == 200 and body == {"current": "default", "sessions": []}
    assert not path.exists()
    status, body = request(
        server, "POST", "/api/plans/decision?path=deleted.ipynb", {"action": "on"}
    )
    assert status == 200 and body["mode"] == "plan"
    assert on_disk(path).mode == "plan" and on_disk(path).cursor == 1


def test_the_server_refuses_a_replacing_file_that_is_no_plan_file(server):
    root = server["root"]
    (root / "foreign.ipynb").write_text("{}")
    path = plan_file(root / "foreign.plans.sqlite", "the old file")
    assert request(server, "GET", "/api/plans/snapshot?path=foreign.ipynb")[0] == 200
    path.with_name("notes.tmp").write_text("my notes, not a plan\n")
    os.replace(path.with_name("notes.tmp"), path)
    for method, route, body in (
        ("GET", "snapshot?", None),
        ("GET", "snapshot?session=default&", None),
        ("GET", "events?session=default&", None),
        ("GET", "sessions?", None),
        ("POST", "decision?session=default&", {"action": "on"}),
    ):
        status, answer = request(server, method, f"/api/plans/{route}path=foreign.ipynb", body)
        assert status == 403 and "\n" not in answer["message"], (route, status, answer)
    assert path.read_text() == "my notes, not a plan\n" and side_files(path) == []


def test_the_event_stream_starts_again_with_the_history_of_a_replacing_file(server, tmp_path):
    root = server["root"]
    (root / "streamed.ipynb").write_text("{}")
    path = plan_file(root / "streamed.plans.sqlite", "the old file")
    with PlanStore(path) as store:
        store.session("default").on()
    connection = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=10)
    headers = {"Accept": "text/event-stream", "Authorization": f"token {TOKEN}"}
    connection.request("GET", "/api/plans/events?path=streamed.ipynb", headers=headers)
    response = connection.getresponse()
    assert [next_event(response)[0] for _ in range(2)] == [1, 2]

    replace_by_copy(path, tmp_path)  # one event: fewer than the stream has sent
    seq, event = next_event(response)
    assert seq == 1 and event["kind"] == "plan_updated"
    assert event["data"]["plan"]["steps"][0]["description"] == "the new file"
    connection.close()


# A kernel's store, and its live card.

SETUP = """
__session__ = {notebook!r}
%load_ext jupyter_plans
import jupyter_plans
display(get_ipython().magics_manager.registry["PlanMagics"].card())
"""


def card_shows(client, description, deadline):
    """Wait, without running a cell, until a card's synced snapshot shows `description`."""
    while time.monotonic() < deadline:
        try:
            msg = client.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:
            break
        data = msg["content"].get("data", {})
        if msg["msg_type"] == "comm_msg" and data.get("method") == "update":
            snapshot = data.get("state", {}).get("snapshot")
            if snapshot is not None and described(snapshot) == description:
                return snapshot
    raise AssertionError(f"no card came to show {description!r}")


def test_a_kernel_and_its_card_follow_a_replaced_file(kernel, tmp_path):
    path = tmp_path / "live.plans.sqlite"
    run(kernel, SETUP.format(notebook=str(tmp_path / "live.ipynb")))
    plan_file(path, "the old file")
    card_shows(kernel, "the old file", time.monotonic() + 10)

    # The new file has as many events as the old one: the card must not go by the cursor.
    replace_by_copy(path, tmp_path)
    snapshot = card_shows(kernel, "the new file", time.monotonic() + 10)
    assert snapshot["cursor"] == 1

    run(kernel, "%plan on")
    assert on_disk(path).mode == "plan" and described(on_disk(path)) == "the new file"
    shown = run(kernel, "print(jupyter_plans.current_session().snapshot().mode)")
    assert any(m["content"].get("text") == "plan\n" for m in shown)
