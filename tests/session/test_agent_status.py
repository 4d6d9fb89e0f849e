"""What the card says of the agent (DESIGN section 10, "the card and the chat tell the same
truth"): the bridged agent's status kept in the session (`agent_mode` in the snapshot, folded
from the events), and in plan mode what the agent is doing: researching, waiting for the
person's next message in the chat, or no agent engaged yet. Every engine."""

from __future__ import annotations

from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.plan.fold import fold
from jupyter_plans.plan.text import describe_event

WORKING = {
    "agent": "Claude Code",
    "mode": "plan",
    "mode_words": "Plan: Create a plan before making changes",
    "edits": "plans, changes nothing",
    "asks": True,
    "working": True,
}
AUTO = {**WORKING, "mode": "auto", "edits": "edits no longer ask", "asks": False}
GONE = {"agent": None, "mode": None, "working": False}
PROPOSAL = {
    "explanation": "Tidy",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "a", "description": "Load it"}],
}


def activity(session) -> str | None:
    return card_data(session, "a.ipynb")["activity"]


def test_the_snapshot_keeps_the_mode_the_bridged_agent_announced_and_folds_to_it(session):
    assert session.snapshot().agent_mode is None  # no bridge
    session.record_agent_status(WORKING)
    assert session.snapshot().agent_mode == "plan"
    session.record_agent_status(AUTO)
    snapshot = session.snapshot()
    assert snapshot.agent_mode == "auto"
    assert fold("s", session.events()) == snapshot
    assert card_data(session, "a.ipynb")["agent"]["edits"] == "edits no longer ask"
    session.record_agent_status(GONE)  # the bridge ended
    assert session.snapshot().agent_mode is None
    assert card_data(session, "a.ipynb")["agent"] is None
    assert fold("s", session.events()) == session.snapshot()


def test_out_of_plan_mode_the_card_shows_the_agents_own_mode(session):
    session.record_agent_status({**AUTO, "working": False})
    html = card_html(card_data(session, "a.ipynb"))
    assert "auto: edits no longer ask" in html and "default mode" not in html
    session.on()
    assert "PLAN MODE" in card_html(card_data(session, "a.ipynb"))


def test_in_plan_mode_the_card_says_what_the_agent_is_doing(session):
    assert activity(session) is None  # not in plan mode
    session.on()
    assert activity(session) == "none"  # no agent engaged yet
    session.start_planning("Plan the cleaning")  # the person's task waits for an agent
    assert activity(session) == "none"
    session.record_agent_status(WORKING)
    assert activity(session) == "working"
    session.record_agent_status({**WORKING, "working": False})
    assert activity(session) == "chat"  # its turn is over: it waits for the chat
    html = card_html(card_data(session, "a.ipynb"))
    assert "Claude Code waits for your next message in the chat." in html
    session.record_agent_status(GONE)
    assert activity(session) == "none"  # the bridge is gone: nobody works on the plan


def test_an_agent_without_a_bridge_is_at_work_once_it_acted_in_plan_mode(session):
    session.on()
    assert activity(session) == "none"
    assert not session.call_tool("update_plan", {**PROPOSAL, "expected_revision": 0}).is_error
    assert activity(session) == "working"
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    assert activity(session) is None  # a proposal waits
    session.revise("Use the median")
    assert activity(session) == "working"  # an agent without a bridge: nothing tells more
    session.off()
    session.on()  # plan mode again: no agent engaged since
    assert activity(session) == "none"


def test_history_says_what_the_bridged_agent_did(session):
    session.record_agent_status(AUTO)
    session.record_agent_status(GONE)
    first, gone = session.events()
    assert describe_event(first) == (
        "1. Claude Code in mode auto (edits no longer ask) works on a prompt"
    )
    assert describe_event(gone) == "2. no agent is bridged any more"


def test_a_store_of_schema_6_is_upgraded_and_keeps_its_plan(engine, db):
    from jupyter_plans import PlanStore
    from jupyter_plans.store import migrations
    from tests.helpers.older import as_version

    with PlanStore(db) as store:
        store.session("s").on()
    as_version(db, 6)
    with PlanStore(db) as store:
        with store.engine.connect() as conn:
            assert migrations.read_version(conn) == migrations.LATEST
        session = store.session("s")
        assert (session.snapshot().mode, session.snapshot().agent_mode) == ("plan", None)
        session.record_agent_status(WORKING)
        assert session.snapshot().agent_mode == "plan"
