"""The plan file itself: how it is opened, configured, and which files are refused untouched."""

import hashlib
import json
import os
import sqlite3

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.store import migrations
from tests.helpers.older import as_version


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_new_file_is_created_with_wal_and_current_schema(tmp_path):
    path = tmp_path / "analysis.plans.sqlite"
    with PlanStore(path) as store:
        store.session("default").on()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT version FROM plans_schema_version").fetchall() == [
        (migrations.LATEST,)
    ]
    conn.close()


def test_connections_use_synchronous_full_and_a_busy_timeout(tmp_path):
    with PlanStore(tmp_path / "a.plans.sqlite") as store:
        conn = store.engine.raw_connection()
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
        conn.close()


def test_sqlite_url_and_path_open_the_same_file(tmp_path):
    path = tmp_path / "a.plans.sqlite"
    with PlanStore(path) as store:
        store.session("s").on()
    with PlanStore(f"sqlite:///{path}") as store:
        assert store.session("s").snapshot().mode == "plan"


def test_symlinked_plan_file_is_refused(tmp_path):
    real = tmp_path / "real.plans.sqlite"
    PlanStore(real).close()
    link = tmp_path / "link.plans.sqlite"
    link.symlink_to(real)
    before = _digest(real)
    with pytest.raises(PlanStoreError, match="symbolic link"):
        PlanStore(link)
    assert _digest(real) == before


def test_symlink_to_a_missing_file_is_refused_and_creates_nothing(tmp_path):
    link = tmp_path / "dangling.plans.sqlite"
    link.symlink_to(tmp_path / "elsewhere.sqlite")
    with pytest.raises(PlanStoreError, match="symbolic link"):
        PlanStore(link)
    assert not (tmp_path / "elsewhere.sqlite").exists()


def test_newer_schema_is_refused_and_the_file_untouched(tmp_path):
    path = tmp_path / "future.plans.sqlite"
    PlanStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE plans_schema_version SET version = ?", (migrations.LATEST + 1,))
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(PlanStoreError) as info:
        PlanStore(path)
    message = str(info.value)
    assert "\n" not in message
    assert f"version {migrations.LATEST + 1}" in message and "upgrade" in message
    assert _digest(path) == before


def test_a_file_that_is_not_sqlite_is_refused_and_untouched(tmp_path):
    path = tmp_path / "notes.plans.sqlite"
    path.write_bytes(b"These are my notes, not a database.\n" * 200)
    before = _digest(path)
    with pytest.raises(PlanStoreError, match="not a readable plan file"):
        PlanStore(path)
    assert _digest(path) == before
    assert sorted(os.listdir(tmp_path)) == ["notes.plans.sqlite"]


def test_another_programs_database_is_refused_and_untouched(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(PlanStoreError, match="another program"):
        PlanStore(path)
    assert _digest(path) == before


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(PlanStoreError, match="does not exist"):
        PlanStore(tmp_path / "no" / "such" / "a.plans.sqlite")


def test_unsupported_url_is_a_clear_error():
    with pytest.raises(PlanStoreError, match="unsupported database"):
        PlanStore("mysql://localhost/plans")


def test_a_database_url_never_shows_its_password(tmp_path):
    with pytest.raises(PlanStoreError) as info:
        PlanStore("mysql://ann:s3cret@localhost/plans")
    assert "s3cret" not in str(info.value) and "ann" in str(info.value)
    with pytest.raises(PlanStoreError) as info:
        PlanStore("postgresql+psycopg://ann:s3cret@127.0.0.1:1/plans")  # nothing listens
    assert "s3cret" not in str(info.value) and "cannot open" in str(info.value)


def test_current_session_defaults_and_can_change(db):
    with PlanStore(db) as store:
        assert store.current_session_id() == "default"
        assert store.session().session_id == "default"
        store.set_current_session("second")
        assert store.session().session_id == "second"
    with PlanStore(db) as store:
        assert store.current_session_id() == "second"


def test_sessions_lists_written_sessions(db):
    with PlanStore(db) as store:
        store.session("one").on()
        store.session("two").call_tool("record_decision", {"title": "t", "rationale": "r"})
        listed = {s["session_id"]: s for s in store.sessions()}
    assert set(listed) == {"one", "two"}
    assert listed["one"]["mode"] == "plan" and listed["two"]["cursor"] == 1


def test_change_token_moves_when_another_connection_commits(db):
    with PlanStore(db) as watcher, PlanStore(db) as writer:
        before = watcher.change_token()
        assert watcher.change_token() == before
        writer.session("s").on()
        assert watcher.change_token() != before


def test_subscribers_hear_commits_and_not_refused_verbs(db):
    from jupyter_plans import DecisionRefused

    heard = []
    with PlanStore(db) as store:
        unsubscribe = store.subscribe(lambda sid, cursor: heard.append((sid, cursor)))
        session = store.session("s")
        session.on()
        with pytest.raises(DecisionRefused):
            session.approve()
        session.on()  # already in plan mode: nothing changes, nothing is heard
        unsubscribe()
        session.off()
    assert heard == [("s", 1)]


def test_a_locked_file_gives_a_clear_error_and_loses_nothing(tmp_path, monkeypatch):
    from jupyter_plans.store import sqlite as sqlite_backend

    path = tmp_path / "a.plans.sqlite"
    with PlanStore(path) as store:
        session = store.session("s")
        session.on()
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock and never lets go
        monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_MS", 50)
        with PlanStore(path) as impatient:
            with pytest.raises(PlanStoreError, match="locked"):
                impatient.session("s").off()
        blocker.execute("ROLLBACK")
        blocker.close()
        assert session.snapshot().mode == "plan"
        session.off()
        assert session.snapshot().mode == "default"


def test_a_failing_listener_does_not_fail_the_change(db, caplog):
    with PlanStore(db) as store:
        heard = []
        store.subscribe(lambda sid, cursor: 1 / 0)
        store.subscribe(lambda sid, cursor: heard.append(cursor))
        snapshot = store.session("s").on()
    assert snapshot.mode == "plan" and heard == [1]
    assert "listener failed" in caplog.text


def test_a_store_of_schema_3_keeps_its_retries_after_the_call_id_index_is_narrowed(db):
    """Version 4 indexes only the call ids callers gave; a retry under an old id still
    returns the recorded result, and a call without an id adds no index entry."""
    from sqlalchemy import inspect

    args = {"expected_revision": 0, "steps": [{"id": "a", "description": "load"}]}
    with PlanStore(db) as store:
        first = store.session("s").call_tool("update_plan", args, call_id="c1")
    as_version(db, 3)
    with PlanStore(db) as store:
        session = store.session("s")
        assert session.call_tool("update_plan", args, call_id="c1") == first
        other = session.call_tool("update_plan", {**args, "expected_revision": 1}, call_id="c1")
        assert other.is_error and "'c1' was already used for a different call" in other.content
        assert not session.call_tool("update_plan", {**args, "expected_revision": 1}).is_error
        assert session.snapshot().plan.call_id is None and session.cursor() == 3
        with store.engine.connect() as conn:
            assert migrations.read_version(conn) == migrations.LATEST
            (index,) = [i for i in inspect(conn).get_indexes("plans_events") if i["unique"]]
            assert index["name"] == "plans_events_call"
            where = " ".join(map(str, index.get("dialect_options", {}).values()))
            assert "call_id IS NOT NULL" in where.replace("(", "").replace(")", "")


def test_a_call_recorded_before_digests_is_refused_when_reused_with_other_arguments(db):
    """A call id recorded under schema 4 (no digest) keeps its meaning after the migration:
    the same call returns its recorded result, any other call under it is refused."""
    plan = {"expected_revision": 0, "steps": [{"id": "a", "description": "load"}]}
    decision = {"title": "Use parquet", "rationale": "It is smaller.", "sources": ["notes"]}
    with PlanStore(db) as store:
        session = store.session("s")
        first = session.call_tool("update_plan", plan, call_id="c1")
        recorded = session.call_tool("record_decision", decision, call_id="d1")
    as_version(db, 4)  # no call_digest column: no digest of any call
    with PlanStore(db) as store:
        session = store.session("s")
        cursor = session.cursor()
        assert session.call_tool("update_plan", plan, call_id="c1") == first
        assert session.call_tool("update_plan", json.dumps(plan), call_id="c1") == first
        assert session.call_tool("record_decision", decision, call_id="d1") == recorded
        assert session.cursor() == cursor  # retries change nothing
        others = [
            ("update_plan", {**plan, "steps": [{"id": "a", "description": "drop"}]}, "c1"),
            ("update_plan", {**plan, "expected_revision": 1}, "c1"),
            ("update_plan", {**plan, "explanation": "Why."}, "c1"),
            ("plan_submit", plan, "c1"),
            ("record_decision", plan, "c1"),
            ("record_decision", {**decision, "title": "Use CSV"}, "d1"),
            ("record_decision", {**decision, "sources": []}, "d1"),
            ("update_plan", plan, "d1"),
            ("no_such_tool", {}, "d1"),
        ]
        for name, args, call_id in others:
            result = session.call_tool(name, args, call_id=call_id)
            assert result.is_error, (name, args, call_id)
            assert f"'{call_id}' was already used for a different call" in result.content
        assert session.snapshot().plan.revision == 1
        assert session.cursor() == cursor + len(others)  # one tool_finished event each
        assert session.call_tool("update_plan", plan, call_id="c1") == first


def test_a_call_recorded_before_digests_that_reopened_steps_is_still_its_own_retry(db):
    """A plan the call reopened is stored with the reopened statuses; its retry, with the
    statuses the call sent, is still the same call."""
    steps = [
        {"id": "a", "description": "load", "status": "completed", "evidence": "loaded"},
        {
            "id": "b",
            "description": "fit",
            "depends_on": ["a"],
            "status": "completed",
            "evidence": "fitted",
        },
    ]
    again = [{**steps[0], "status": "in_progress", "evidence": None}, steps[1]]
    with PlanStore(db) as store:
        session = store.session("s")
        session.call_tool("update_plan", {"expected_revision": 0, "steps": steps})
        reopening = {"expected_revision": 1, "steps": again}
        first = session.call_tool("update_plan", reopening, call_id="c2")
        assert "Reopened as pending" in first.content
    as_version(db, 4)  # no call_digest column: no digest of any call
    with PlanStore(db) as store:
        session = store.session("s")
        assert session.call_tool("update_plan", reopening, call_id="c2") == first
        other = {"expected_revision": 1, "steps": [again[0], {**again[1], "description": "x"}]}
        result = session.call_tool("update_plan", other, call_id="c2")
        assert result.is_error and "already used for a different call" in result.content


def test_a_finish_recorded_before_digests_is_refused_when_reused_with_another_review(db):
    plan = {
        "expected_revision": 0,
        "objectives": ["Load the data", "Fit the model"],
        "steps": [{"id": "a", "description": "load", "status": "completed", "evidence": "ok"}],
    }
    review = [
        {"objective": "Load the data", "outcome": "met", "evidence": "rows: 10"},
        {"objective": "Fit the model", "outcome": "met", "evidence": "r2: 0.9"},
    ]
    with PlanStore(db) as store:
        session = store.session("s")
        assert not session.call_tool("update_plan", plan).is_error
        first = session.call_tool("finish_plan", {"review": review}, call_id="f1")
        assert not first.is_error, first.content
    as_version(db, 4)  # no call_digest column: no digest of any call
    with PlanStore(db) as store:
        session = store.session("s")
        assert session.call_tool("finish_plan", {"review": review}, call_id="f1") == first
        other = [review[0], {**review[1], "evidence": "r2: 0.1"}]
        result = session.call_tool("finish_plan", {"review": other}, call_id="f1")
        assert result.is_error and "'f1' was already used for a different call" in result.content


def test_each_session_is_listed_with_its_task_in_a_few_words(db):
    """The panel's picker labels a session by its task: the person's first words to it, else
    its plan's explanation, cut at a word, on one line; a session with neither has none."""
    task = "Forecast  revenue by region\\nfor the next quarter, using the cleaned sales data"
    with PlanStore(db) as store:
        asked = store.session("asked")
        asked.queue_message(task.replace("\\n", "\n"), source="person")
        asked.queue_message("Split by week", source="person")  # later words do not relabel it
        explained = store.session("explained")
        plan = {"steps": [{"id": "a", "description": "load"}], "explanation": "Clean the data."}
        assert not explained.call_tool("update_plan", {**plan, "expected_revision": 0}).is_error
        store.session("quiet").on()
        listed = {s["session_id"]: s for s in store.sessions()}
    assert listed["asked"]["task"] == "Forecast revenue by region for the next quarter…"
    assert listed["explained"]["task"] == "Clean the data."
    assert listed["quiet"]["task"] is None
    assert all(s["created_at"] for s in listed.values())
    assert "plan_seq" not in listed["quiet"]
