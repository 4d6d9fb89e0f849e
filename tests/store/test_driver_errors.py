"""A driver's error reaches the code above the store as one of our types, said once where the
transaction ends, on every engine: a write that reuses an accepted call's id is CallIdTaken,
another broken unique rule RecordConflict, a table the store lacks OlderSchema. Nothing of the
write is saved."""

from __future__ import annotations

import pytest

from jupyter_plans.errors import CallIdTaken, OlderSchema, PlanStoreError, RecordConflict

STEPS = [{"id": "a", "description": "Load the data", "status": "pending", "evidence": None}]
TURN = {"session_id": "s", "turn_id": "t1", "ordinal": 1, "cancelled": False}


def test_a_write_under_an_accepted_calls_id_is_call_id_taken(session):
    assert session.record_agent_plan("acp_plan", STEPS, call_id="acp-1") == 1
    cursor = session.cursor()
    other = [{**STEPS[0], "description": "Load the data again"}]
    with pytest.raises(CallIdTaken, match="the change was not saved"):
        session.record_agent_plan("acp_plan", other, call_id="acp-1")
    assert session.cursor() == cursor
    assert session.record_agent_plan("acp_plan", other, call_id="acp-2") == 2


def test_another_broken_unique_rule_is_a_record_conflict(store):
    with store.write() as tx:
        tx.execute("INSERT_TURN", TURN)
    with pytest.raises(RecordConflict) as raised:
        with store.write() as tx:
            tx.execute("INSERT_TURN", {**TURN, "ordinal": 2})
    assert not isinstance(raised.value, CallIdTaken)
    with store.read() as tx:
        assert tx.first("SELECT_TURN", {"sid": "s", "turn_id": "t1"}).ordinal == 1


def test_a_table_the_store_lacks_is_an_older_schema(store):
    with pytest.raises(OlderSchema):
        with store.read() as tx:
            tx.value("SELECT count(*) FROM plans_not_there")
    with pytest.raises(PlanStoreError) as raised:
        with store.read() as tx:
            tx.value("SELECT 1/0 FROM plans_not_there WHERE")
    assert type(raised.value) is PlanStoreError  # a plain error stays a plain one
