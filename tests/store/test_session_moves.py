"""A session follows its notebook in a shared database (DESIGN section 16), on every engine:
renamed in one transaction with every row that names it, followed by the session objects that
knew it (a writer racing the rename included), copied under a copy's id, marked deleted and
never dropped."""

import threading

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.following.session_moves import copy, deleted, mark_deleted, rename
from tests.engines import dump_tables
from tests.waiting import next_millisecond


def rows_of(db: str, session_id: str) -> dict:
    """Each table's rows that name `session_id`, as dicts."""
    from sqlalchemy import create_engine, inspect, text
    from sqlalchemy.engine import make_url

    url = make_url(db if "://" in db else f"sqlite:///{db}")
    engine = create_engine(url.difference_update_query(["plans_listen"]))
    found = {}
    try:
        with engine.connect() as conn:
            for name in sorted(inspect(conn).get_table_names()):
                if name.startswith("plans_") and name != "plans_session_moves":
                    rows = conn.execute(text(f"SELECT * FROM {name}")).mappings().all()
                    named = sorted(
                        (dict(r) for r in rows if r.get("session_id") == session_id), key=repr
                    )
                    if named:
                        found[name] = named
    finally:
        engine.dispose()
    return found


PROPOSAL = {
    "explanation": "why",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load the data"}],
}


def busy(session) -> None:
    """A session with a row in every table that names it."""
    session.on(by={"name": "ann", "via": "cli"})
    session.start_planning("chart the sales", by={"name": "ann", "via": "cli"})
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1", call_id="c1").is_error
    session.comment("load", "mind the outliers", by={"name": "ann", "via": "cli"})
    session.approve(session.snapshot().pending_proposal_hash, by={"name": "ann", "via": "cli"})
    session.call_tool("record_decision", {"title": "csv", "rationale": "r"}, turn_id="t1")
    session.cell_ran("cell-1", 1, True, "x = 1", step_id="load")
    with session.store.write() as tx:
        tx.execute("SEEN_INSERT", {"notebook": "a.ipynb", "sid": session.session_id, "b_cursor": 3})


def test_a_rename_takes_every_row_along_and_the_session_objects_follow(store, db):
    old = store.session("a.ipynb")
    busy(old)
    before = rows_of(db, "a.ipynb")
    assert set(before) >= {"plans_sessions", "plans_events", "plans_comments", "plans_cells"}
    assert rename(store, "a.ipynb", "b.ipynb", "/r/b.ipynb", ("a.ipynb", "b.ipynb")) == "moved"
    assert rows_of(db, "a.ipynb") == {}
    after = rows_of(db, "b.ipynb")
    for table, rows in before.items():
        moved = [{**r, "session_id": "b.ipynb"} for r in rows]
        if table == "plans_seen":
            moved = [{**r, "notebook": "b.ipynb"} for r in moved]
        assert after[table] == sorted(moved, key=repr), table
    # The object that knew the old id reads and writes the new one.
    assert old.snapshot().session_id == "b.ipynb"
    old.call_tool("record_decision", {"title": "after", "rationale": "r"})
    assert rows_of(db, "a.ipynb") == {}
    assert [d.title for d in store.session("b.ipynb").snapshot().decisions] == ["csv", "after"]
    assert old.moved_notebook == "/r/b.ipynb"


def test_a_notebook_made_later_under_the_old_name_starts_its_own_plan(store):
    busy(store.session("Untitled.ipynb"))
    rename(store, "Untitled.ipynb", "analysis.ipynb")
    next_millisecond()  # made later: not in the millisecond of the move
    fresh = store.session("Untitled.ipynb")
    assert fresh.snapshot().cursor == 0
    fresh.on()
    assert fresh.session_id == "Untitled.ipynb"
    assert store.session("analysis.ipynb").snapshot().plan is not None


def test_a_session_that_never_wrote_follows_a_rename_on_its_first_write(store):
    """The kernel of Untitled.ipynb loaded with no plan yet; the notebook is renamed; its first
    write is the renamed notebook's, not a new Untitled's."""
    waiting = store.session("Untitled.ipynb")
    assert waiting.snapshot().cursor == 0
    assert rename(store, "Untitled.ipynb", "analysis.ipynb") == "missing"
    waiting.on()
    assert waiting.session_id == "analysis.ipynb"
    assert store.session("analysis.ipynb").snapshot().mode == "plan"
    assert [s["session_id"] for s in store.sessions()] == ["analysis.ipynb"]


def test_a_taken_id_leaves_both_as_they_are(store, db):
    busy(store.session("a.ipynb"))
    store.session("b.ipynb").on()
    before = dump_tables(db)
    assert rename(store, "a.ipynb", "b.ipynb") == "taken"
    assert dump_tables(db) == before


def test_two_renames_in_a_row_and_back(store):
    session = store.session("a.ipynb")
    busy(session)
    rename(store, "a.ipynb", "b.ipynb")
    rename(store, "b.ipynb", "a.ipynb")
    assert session.snapshot().session_id == "a.ipynb"
    rename(store, "a.ipynb", "c.ipynb")
    session.off()
    assert session.session_id == "c.ipynb"
    assert [s["session_id"] for s in store.sessions()] == ["c.ipynb"]


def test_a_copy_is_its_own_from_then_on(store):
    busy(store.session("a.ipynb"))
    assert copy(store, "a.ipynb", "a-Copy1.ipynb") == "copied"
    original, duplicate = store.session("a.ipynb"), store.session("a-Copy1.ipynb")
    assert duplicate.snapshot().model_dump() == {
        **original.snapshot().model_dump(),
        "session_id": "a-Copy1.ipynb",
    }
    duplicate.on()
    assert original.snapshot().mode == "default" and duplicate.snapshot().mode == "plan"
    assert copy(store, "a.ipynb", "a-Copy1.ipynb") == "taken"
    assert copy(store, "none.ipynb", "x.ipynb") == "missing"


def test_a_delete_marks_the_session_and_drops_nothing(store, db):
    busy(store.session("a.ipynb"))
    store.session("b.ipynb").on()
    before = rows_of(db, "a.ipynb")
    assert mark_deleted(store, "a.ipynb")
    assert [s["session_id"] for s in store.sessions()] == ["b.ipynb"]
    assert [s["session_id"] for s in deleted(store)] == ["a.ipynb"]
    after = rows_of(db, "a.ipynb")
    assert {t: len(r) for t, r in after.items()} == {t: len(r) for t, r in before.items()}
    # Its history reads as it was; written to again, it is a notebook's again.
    assert store.session("a.ipynb").snapshot().plan is not None
    store.session("a.ipynb").off()
    assert deleted(store) == []


@pytest.mark.parametrize("rounds", [3])
def test_a_rename_while_another_connection_writes_loses_nothing(db, rounds):
    """A writer with a session object of its own, on its own connection, writes on while the
    notebook is renamed back and forth: every accepted write is in the session, none under
    an old id."""
    with PlanStore(db) as writer_store, PlanStore(db) as server_store:
        session = writer_store.session("n0.ipynb")
        session.on()
        accepted, stop = [], threading.Event()

        def write() -> None:
            n = 0
            while not stop.is_set():
                n += 1
                title = f"w{n}"
                result = session.call_tool("record_decision", {"title": title, "rationale": "r"})
                if not result.is_error:
                    accepted.append(title)

        def five_more() -> None:
            # Counted from now: where the writer outpaces this thread (a loaded machine), the
            # writes of a count reached before a rename were all made before it, and the
            # session object would have had no write to learn of the move by.
            mark = len(accepted)
            while len(accepted) < mark + 5:
                stop.wait(0.01)

        writer = threading.Thread(target=write)
        writer.start()
        try:
            for n in range(rounds):
                five_more()
                assert rename(server_store, f"n{n}.ipynb", f"n{n + 1}.ipynb") == "moved"
            five_more()
        finally:
            stop.set()
            writer.join()
        final = f"n{rounds}.ipynb"
        assert session.session_id == final
        kept = [d.title for d in server_store.session(final).snapshot().decisions]
        assert kept == accepted
        assert [s["session_id"] for s in server_store.sessions()] == [final]


def test_the_hooks_guard_follows_a_renamed_session(store, db):
    """A bridged agent's hook names the session by the id it had when the agent started: after
    the notebook's rename it still finds plan mode (and never the default of no session)."""
    from jupyter_plans.store.readonly import open_read_only

    store.session("a.ipynb").on()
    rename(store, "a.ipynb", "b.ipynb")
    rename(store, "b.ipynb", "c.ipynb")
    with open_read_only(db) as guard:
        assert guard.gate("a.ipynb") == ("plan", None)
    next_millisecond()
    store.session("a.ipynb").off()  # a notebook made again under the old name: its own
    with open_read_only(db) as guard:
        assert guard.gate("a.ipynb") == ("default", None)
        assert guard.gate("c.ipynb") == ("plan", None)
