"""Two bridges started at the same point whose agents name their sessions alike make the same
call ids: the second one's write is not lost, it takes an id of its own (the store says the
first id is taken as CallIdTaken)."""

from __future__ import annotations

import asyncio

from jupyter_plans import PlanStore
from jupyter_plans.agents.acp.plans import BridgedSession

STEPS = [{"id": "a", "description": "Load the data", "status": "pending", "evidence": None}]


def test_a_second_bridge_making_the_same_id_writes_under_one_of_its_own(tmp_path):
    with PlanStore(tmp_path / "a.plans.sqlite") as store:
        session = store.session()
        first, second = BridgedSession(session), BridgedSession(session)
        try:
            asyncio.run(first.record_plan("agent-session", STEPS, [], None))
            again = [{**STEPS[0], "description": "Load the data again"}]
            asyncio.run(second.record_plan("agent-session", again, [], None))
        finally:
            first.close()
            second.close()
        written = [e.data for e in session.event_data() if e.kind == "plan_updated"]
    assert [data["plan"]["revision"] for data in written] == [1, 2]
    taken, own = (data["call_id"] for data in written)
    assert taken == first.new_call_id("agent-session").rsplit("-", 1)[0] + "-1"
    assert own.startswith(taken + "-") and len(own) == len(taken) + 9
