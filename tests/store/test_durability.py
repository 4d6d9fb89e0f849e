"""Every change is one transaction: a failure leaves nothing, two writers lose nothing."""

import json
import subprocess
import sys
import textwrap

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.plan.fold import fold
from jupyter_plans.session import transaction as session_module
from tests.engines import dump_tables


def _plan(revision, *ids, status="pending"):
    return {
        "expected_revision": revision,
        "steps": [{"id": i, "description": f"step {i}", "status": status} for i in ids],
    }


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s.call_tool("update_plan", _plan(1, "a", "b"), call_id="next"),
        lambda s: s.call_tool("record_decision", {"title": "t", "rationale": "r"}),
        lambda s: s.on(),
        lambda s: s.queue_message("more work"),
    ],
    ids=["update_plan", "record_decision", "on", "queue_message"],
)
def test_error_between_plan_write_and_event_write_leaves_store_as_it_was(
    db, monkeypatch, operation
):
    path = db
    store = PlanStore(path)
    session = store.session("s")
    assert not session.call_tool("update_plan", _plan(0, "a"), call_id="first").is_error
    before_dump, before_snapshot = dump_tables(path), session.snapshot()
    heard = []
    store.subscribe(lambda sid, cursor: heard.append(cursor))
    written = []

    def fail_after_state_written(change):
        written.append(change.state.cursor)
        raise OSError("disk unplugged")

    monkeypatch.setattr(session_module, "_append_events", fail_after_state_written)
    with pytest.raises(OSError, match="disk unplugged"):
        operation(session)
    assert written, "the failure was injected after the plan row was written"
    monkeypatch.undo()
    assert session.snapshot() == before_snapshot
    assert dump_tables(path) == before_dump
    assert heard == []
    # The store still works, and the call id of the failed call was not recorded.
    assert not session.call_tool("update_plan", _plan(1, "a", "b"), call_id="next").is_error
    assert session.snapshot().plan.revision == 2
    store.close()


_WRITER = textwrap.dedent(
    """
    import sys
    from jupyter_plans import PlanStore
    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    session = PlanStore(path).session("shared")
    stale = 0
    for i in range(count):
        while True:
            snap = session.snapshot()
            revision = snap.plan.revision if snap.plan else 0
            steps = [s.model_dump() for s in snap.plan.steps] if snap.plan else []
            steps = [s for s in steps if s["id"] != name] + [
                {"id": name, "description": f"{name} update {i}"}
            ]
            result = session.call_tool(
                "update_plan",
                {"expected_revision": revision, "steps": steps},
                call_id=f"{name}-{i}",
            )
            if not result.is_error:
                break
            assert "expected_revision" in result.content, result.content
            stale += 1
    print(stale)
    """
)


def test_two_processes_on_one_store_lose_no_update(db):
    path = db
    PlanStore(path).close()
    count = 150
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), name, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    outputs = [w.communicate(timeout=300) for w in writers]
    for writer, (_out, err) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, err
    stale = sum(int(out) for out, _ in outputs)
    session = PlanStore(path).session("shared")
    events = session.events()
    accepted = [e.data["call_id"] for e in events if e.kind == "plan_updated"]
    expected = {f"{name}-{i}" for name in ("alpha", "beta") for i in range(count)}
    assert sorted(accepted) == sorted(expected), "every update present exactly once"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert session.snapshot().plan.revision == 2 * count
    assert fold("shared", events) == session.snapshot()
    print(f"2 processes x {count} updates: {2 * count} accepted, {stale} stale retries")


def test_a_retry_after_a_commit_that_reached_the_disk_is_idempotent(db):
    path = db
    session = PlanStore(path).session("s")
    first = session.call_tool("update_plan", _plan(0, "a"), call_id="c1", turn_id="t1")
    # The writer never saw the result; a new process retries the same call.
    retry = (
        PlanStore(path)
        .session("s")
        .call_tool("update_plan", _plan(0, "a"), call_id="c1", turn_id="t1")
    )
    assert retry == first
    assert [e.kind for e in session.events()] == ["plan_updated"]
    (row,) = dump_tables(path)["plans_events"]
    assert json.dumps(first.model_dump(), separators=(",", ":")) in row


def test_a_plan_is_stored_without_its_defaults_and_read_back_whole(session):
    """The stored text of a plan leaves out nulls, empty lists and `pending`; reading it (or
    the whole text an earlier version stored) gives every field back, in order."""
    from jupyter_plans.plan.stored import decode_plan_event

    steps = [
        {"id": "load", "description": "Load", "status": "completed"},
        {"id": "fit", "description": "Fit", "depends_on": ["load"], "acceptance": "r2 > 0.5"},
    ]
    result = session.call_tool("update_plan", {"expected_revision": 0, "steps": steps})
    assert not result.is_error
    (event,) = session.events()
    with session.store.read() as tx:
        stored = tx.scalar("SELECT_EVENT_DATA", {"sid": session.session_id, "seq": event.seq})
    assert "null" not in stored and "[]" not in stored and "pending" not in stored
    assert '"acceptance":"r2 > 0.5"' in stored and '"steps"' in stored
    assert stored.count('"steps"') == 1  # the phase's; the plan's own list is not stored
    whole = {**event.data, "plan": {k: v for k, v in event.data["plan"].items() if k != "steps"}}
    earlier = json.dumps(whole)  # as stored before defaults were left out
    for text in (stored, earlier):
        read = decode_plan_event(text)
        assert json.dumps(read) == json.dumps(event.data)  # the same keys, in the same order
    assert event.data["plan"]["steps"][1] == {
        "id": "fit",
        "description": "Fit",
        "status": "pending",
        "acceptance": "r2 > 0.5",
        "depends_on": ["load"],
        "evidence": None,
        "check": None,
    }
    assert fold(session.session_id, session.events()) == session.snapshot()


def test_a_writer_reads_the_session_again_once_another_connection_committed(tmp_path):
    """On SQLite a writer spares the read of the session row when no other connection has
    committed since its own last commit. Another store, another thread and another process
    each commit in between here: every stale revision must still be refused."""
    import threading

    path = tmp_path / "a.plans.sqlite"
    with PlanStore(path) as one, PlanStore(path) as other:
        mine, theirs = one.session("s"), other.session("s")

        def update(session, revision):
            return session.call_tool("update_plan", _plan(revision, f"r{revision}"))

        assert not update(mine, 0).is_error and not update(mine, 1).is_error  # from its own
        assert not update(theirs, 2).is_error  # another store on the file: revision 3
        stale = update(mine, 2)
        assert stale.is_error and "the session is at revision 3" in stale.content
        assert not update(mine, 3).is_error

        thread = threading.Thread(target=lambda: update(mine, 4))  # its own connection
        thread.start()
        thread.join()
        stale = update(mine, 4)
        assert stale.is_error and "the session is at revision 5" in stale.content

        code = (
            "import sys\nfrom jupyter_plans import PlanStore\n"
            "with PlanStore(sys.argv[1]) as store:\n    store.session('s').on()\n"
        )
        subprocess.run([sys.executable, "-c", code, str(path)], check=True)
        # plan_submit is offered only in plan mode, which the other process started.
        proposal = {"explanation": "why", "findings": [], "objectives": ["a chart"]}
        submitted = mine.call_tool("plan_submit", {**proposal, **_plan(5, "load")})
        assert not submitted.is_error, submitted.content
        assert [e.seq for e in theirs.events()] == list(range(1, len(theirs.events()) + 1))
        assert fold("s", theirs.events()) == theirs.snapshot() == mine.snapshot()
