"""Session operations beyond the contract's examples: re-proposals, the person's edits and
tasks, the catalog by mode, and hostile input that must never escape as an exception."""

import pytest

from jupyter_plans import DecisionRefused
from jupyter_plans.plan.catalog import RESERVED_NAMES, json_schemas, offered


def _proposal(*steps):
    return {
        "explanation": "why",
        "findings": ["what is there"],
        "objectives": ["what for"],
        "steps": [{"id": i, "description": d} for i, d in steps],
    }


def test_a_reproposal_shows_what_changed_since_the_last_one(session):
    session.on()
    assert not session.call_tool("plan_submit", _proposal(("a", "Load"), ("b", "Clean"))).is_error
    assert session.proposal_changes() is None  # the first proposal has nothing to compare with
    session.revise("merge the loading into cleaning, and add a plot")
    resubmitted = _proposal(("b", "Clean the loaded data"), ("c", "Plot"))
    assert not session.call_tool("plan_submit", resubmitted).is_error
    changes = session.proposal_changes()
    assert [s["id"] for s in changes["added"]] == ["c"]
    assert [s["id"] for s in changes["removed"]] == ["a"]
    assert changes["reworded"] == [{"id": "b", "before": "Clean", "after": "Clean the loaded data"}]
    session.approve()
    assert session.proposal_changes() is None  # nothing waits any more


def test_plan_task_enters_plan_mode_and_queues_the_task_as_the_persons_words(session):
    session.queue_message("nightly refresh", source="automatic")
    snapshot = session.start_planning("Chart revenue by region")
    assert snapshot.mode == "plan"
    delivered = session.deliver()
    assert [(m.source, m.text) for m in delivered] == [
        ("automatic", "nightly refresh"),
        ("person", "Chart revenue by region"),
    ]
    assert session.deliver() == []
    kinds = [e.kind for e in session.events()]
    assert kinds == [
        "message_queued",
        "mode_changed",
        "message_queued",
        "message_delivered",
        "message_delivered",
    ]


def test_blank_task_is_refused_and_changes_nothing(session):
    with pytest.raises(DecisionRefused, match="blank"):
        session.start_planning("   ")
    assert session.snapshot().cursor == 0


def test_a_persons_edit_without_a_proposal_is_a_user_revision_the_agent_hears_of(session):
    steps = [{"id": "a", "description": "Load"}, {"id": "b", "description": "Clean"}]
    session.call_tool("update_plan", {"expected_revision": 0, "explanation": "x", "steps": steps})
    edited = [{"id": "b", "description": "Clean twice"}, {"id": "c", "description": "Plot"}]
    snapshot = session.edit_plan({"expected_revision": 1, "steps": edited})
    assert snapshot.plan.revision == 2
    assert snapshot.plan.explanation == "x"  # left out of the edit, so kept
    assert snapshot.pending_proposal_hash is None
    first, edit = [e for e in session.events() if e.kind == "plan_updated"]
    assert edit.data["name"] == "user_edit" and edit.data["call_id"] is None
    assert (first.data["author"], edit.data["author"]) == ("agent", "user")
    (notice,) = session.deliver()
    assert notice.source == "notice"
    for told in ("added step c", "removed step a", "reworded step b", "'Clean twice'"):
        assert told in notice.text


def test_a_stale_edit_is_refused_and_changes_nothing(session):
    session.call_tool("update_plan", {"expected_revision": 0, "steps": []})
    before = session.snapshot()
    with pytest.raises(DecisionRefused, match="expected_revision is 0 but the session is at"):
        session.edit_plan({"expected_revision": 0, "steps": [{"id": "a", "description": "x"}]})
    with pytest.raises(DecisionRefused, match=r"steps\[0\].description is blank"):
        session.edit_plan({"expected_revision": 1, "steps": [{"id": "a", "description": " "}]})
    assert session.snapshot() == before


def test_the_catalog_follows_the_mode(session):
    assert offered("default") == ["update_plan", "record_decision", "comment_reply"]
    assert offered("plan") == ["update_plan", "plan_submit", "record_decision", "comment_reply"]
    assert set(json_schemas()) == {
        "update_plan",
        "plan_submit",
        "record_decision",
        "finish_plan",
        "ask_user",
        "comment_reply",
    }
    assert offered("default", completed=True) == [
        "update_plan",
        "record_decision",
        "comment_reply",
        "finish_plan",
    ]
    for name in RESERVED_NAMES:
        assert name in (
            "update_plan",
            "plan_submit",
            "record_decision",
            "comment_reply",
        ) or name not in offered("plan")
    result = session.call_tool("rm_rf", {})
    assert result.is_error and "unknown tool 'rm_rf'" in result.content
    assert "update_plan, record_decision" in result.content


def test_tool_schemas_describe_every_field():
    schema = json_schemas()["update_plan"]
    assert "$defs" not in schema and "$ref" not in str(schema)  # inlined for every endpoint
    step = schema["properties"]["steps"]["anyOf"][0]["items"]["properties"]
    fields = {"id", "description", "status", "acceptance", "depends_on", "evidence", "check"}
    assert set(step) == fields
    assert all(field.get("description") for field in step.values())
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["expected_revision"]


def test_decisions_are_kept_apart_and_in_order(session):
    for title in ("Use parquet", "Drop 2019"):
        result = session.call_tool(
            "record_decision", {"title": title, "rationale": "because", "sources": None}
        )
        assert not result.is_error
    assert [d.title for d in session.snapshot().decisions] == ["Use parquet", "Drop 2019"]
    assert session.snapshot().plan is None  # a decision is not progress


def _deep(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    "args, named",
    [
        ({"expected_revision": 0, "steps": [{"id": "a", "description": "x\ud800"}]}, "surrogate"),
        ({"expected_revision": 0, "steps": [{"id": "a", "description": "a\tb"}]}, "U+0009"),
        ([1, 2], "JSON object"),
        ({"expected_revision": True, "steps": []}, "expected_revision must be an integer"),
        ({"expected_revision": "0", "steps": []}, "expected_revision must be an integer"),
        ({"expected_revision": 0, "steps": [{"id": "a", "description": "x", "x": 1}]}, "x"),
        ({"expected_revision": 0, "steps": [], "deep": _deep(5000)}, ""),
    ],
)
def test_malformed_input_gets_a_one_line_reason(session, args, named):
    result = session.call_tool("update_plan", args)
    assert result.is_error and "\n" not in result.content and named in result.content
    assert session.snapshot().plan is None


def test_arguments_may_come_as_json_text(session):
    accepted = session.call_tool("update_plan", '{"expected_revision": 0, "steps": []}')
    assert not accepted.is_error and session.snapshot().plan.revision == 1
    refused = session.call_tool("update_plan", '{"expected_revision": 1, "steps": [')
    assert refused.is_error and refused.content.startswith("the arguments are not valid JSON")


# ask_user: one question to the person, answered by the person's next message.


def test_ask_user_in_plan_mode_is_answered_by_the_persons_next_message(session):
    refused = session.call_tool("ask_user", {"question": "Which year?"})
    assert refused.is_error and "only in plan mode" in refused.content
    session.on()
    asked = session.call_tool("ask_user", {"question": "Which year?"}, turn_id="t1")
    assert not asked.is_error and "End your turn" in asked.content
    assert session.open_question().question == "Which year?"
    again = session.call_tool("ask_user", {"question": "And which month?"}, turn_id="t1")
    assert again.is_error and "earlier question is still open" in again.content
    session.answer("2024 only")
    assert session.open_question() is None
    (message,) = session.deliver()
    assert (message.source, message.text) == ("person", "2024 only")
    closed = [e.data for e in session.events() if e.kind == "question_closed"]
    assert closed == [{"asked_seq": 3, "action": "answered", "message_id": message.message_id}]
    with pytest.raises(DecisionRefused, match="no open question"):
        session.answer("more")


def test_leaving_plan_mode_drops_the_question_and_a_proposal_blocks_asking(session):
    session.on()
    session.call_tool("ask_user", {"question": "Which year?"}, turn_id="t1")
    session.off()
    assert session.open_question() is None
    assert session.events()[-1].data["action"] == "dropped"
    session.on()
    proposal = {"explanation": "e", "findings": [], "objectives": [], "steps": []}
    assert not session.call_tool("plan_submit", proposal).is_error
    waiting = session.call_tool("ask_user", {"question": "Well?"})
    assert waiting.is_error and "proposal waits" in waiting.content


def test_a_question_is_bounded_like_every_text(session):
    session.on()
    long = session.call_tool("ask_user", {"question": "é" * 251})
    assert long.is_error and "question" in long.content and "500" in long.content
    blank = session.call_tool("ask_user", {"question": "  "})
    assert blank.is_error and "blank" in blank.content
    assert session.open_question() is None
