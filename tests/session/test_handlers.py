"""The agent's tools are carried out by the handlers named in one table beside the catalog, and a
handler's refusal commits nothing of what it wrote first: the refused call leaves its
tool_finished event and nothing else, on every engine."""

from __future__ import annotations

from jupyter_plans import PlanStore
from jupyter_plans.plan.catalog import CATALOG
from jupyter_plans.plan.validation import Refused
from jupyter_plans.session import handlers
from jupyter_plans.session.steps import propose, set_mode, store_plan

STEPS = [{"id": "a", "description": "Load the data", "status": "pending"}]


def test_every_tool_of_the_catalog_has_its_handler():
    assert list(handlers.HANDLERS) == list(CATALOG)


def test_a_handler_that_wrote_then_refused_leaves_only_the_refusal(db, monkeypatch):
    store = PlanStore(db)
    session = store.session("s")
    session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    before = session.snapshot_data()
    cursor = before["cursor"]

    def writes_then_refuses(change, decision, turn_id, call_id):
        # Everything a handler can write: a plan, a proposal, the mode, a row of its own.
        plan = {**change.state.plan, "revision": change.state.revision + 1}
        store_plan(change, "record_decision", plan, "stored", turn_id, None)
        propose(change, "f" * 64, {"phases": []})
        set_mode(change, "plan")
        handlers.record_decision(change, decision, turn_id, call_id)
        raise Refused("refused after writing")

    monkeypatch.setitem(handlers.HANDLERS, "record_decision", writes_then_refuses)
    args = {"title": "Use the median", "rationale": "outliers", "sources": []}
    result = session.call_tool("record_decision", args, call_id="call-1")
    assert result.is_error and result.content == "refused after writing"

    events = session.event_data(after=cursor)
    assert [(e.seq, e.kind) for e in events] == [(cursor + 1, "tool_finished")]
    assert events[0].data["call_id"] == "call-1"
    assert session.snapshot_data() == {**before, "cursor": cursor + 1}
    assert session.head() == (cursor + 1, None)
    with PlanStore(db) as other:
        assert other.session("s").snapshot_data() == {**before, "cursor": cursor + 1}

    # The session goes on from the state before the refused call (the call id of a refusal
    # stays free).
    monkeypatch.undo()
    again = session.call_tool("record_decision", args, call_id="call-1")
    assert not again.is_error
    update = {"expected_revision": 1, "steps": STEPS}
    assert not session.call_tool("update_plan", update).is_error
    assert [d["title"] for d in session.snapshot_data()["decisions"]] == ["Use the median"]
    store.close()
