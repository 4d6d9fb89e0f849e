"""DESIGN section 8: finish_plan, the final review of every objective, on both engines."""

import pytest

from jupyter_plans.agents.context import context_block
from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.plan.fold import fold
from jupyter_plans.plan.text import describe_event, render_text, status_line
from jupyter_plans.tools import Toolbox, offered
from tests.helpers.context import data_of
from tests.helpers.plans import DONE

OBJECTIVES = ["a weekly revenue chart", "a baseline model with its error"]
REVIEW = [
    {"objective": OBJECTIVES[0], "outcome": "drawn", "evidence": "figure 1, 26 weeks"},
    {"objective": OBJECTIVES[1], "outcome": "fitted", "evidence": "MAPE 8.1% on June"},
]


def plan(session, steps=DONE, objectives=OBJECTIVES, revision=None):
    revision = session.snapshot().plan.revision if revision is None else revision
    args = {"expected_revision": revision, "objectives": objectives, "steps": steps}
    result = session.call_tool("update_plan", args)
    assert not result.is_error, result.content
    return result


def finish(session, review=REVIEW, **kwargs):
    return session.call_tool("finish_plan", {"review": review}, **kwargs)


def names(box, dialect="mcp"):
    return [entry["name"] for entry in box.definitions(dialect)]


def test_offered_only_once_the_plan_has_steps_and_all_are_completed(session):
    box = Toolbox(session)
    assert "finish_plan" not in names(box)
    plan(session, steps=[{"id": "a", "description": "x"}], revision=0)
    assert names(box) == ["update_plan", "record_decision", "comment_reply"]
    plan(session, steps=[])
    assert "finish_plan" not in names(box)  # an empty plan has nothing to finish
    plan(session)
    assert names(box) == ["update_plan", "record_decision", "comment_reply", "finish_plan"]
    session.on()
    assert names(box, "anthropic") == [
        "update_plan",
        "plan_submit",
        "record_decision",
        "comment_reply",
        "finish_plan",
    ]
    assert offered("plan") == ["update_plan", "plan_submit", "record_decision", "comment_reply"]


def test_accepted_it_marks_the_plan_finished_and_the_card_shows_the_review(session):
    plan(session, revision=0)
    assert session.review() is None
    result = finish(session, list(reversed(REVIEW)), turn_id="t1", call_id="c1")
    assert not result.is_error, result.content
    assert "finished at revision 1" in result.content
    review = session.review()
    assert review.revision == 1
    # Stored in the plan's order of objectives, under the plan's own words.
    assert [item.model_dump() for item in review.review] == REVIEW
    last = session.events()[-1]
    assert last.kind == "plan_finished"
    assert last.data["review"] == REVIEW and last.data["revision"] == 1
    assert describe_event(last).endswith(
        "agent finish_plan: revision 1 finished, 2 objectives reviewed"
    )
    assert fold("s", session.events()) == session.snapshot()  # the snapshot keys are unchanged

    data = card_data(session, "a.ipynb")
    assert data["review"] == review.model_dump(mode="json")
    text = render_text(session.snapshot(), None, data["review"])
    assert text.splitlines()[1] == "Finished: the agent reviewed every objective"
    assert "  - a weekly revenue chart: drawn" in text
    assert "        evidence: figure 1, 26 weeks" in text
    assert "Final review" in card_html(data) and "finished" in card_html(data)
    line = status_line(session.snapshot(), None, finished=True)
    assert line.endswith("2 of 2 steps marked complete, finished with a review of every objective")
    assert data_of(context_block(session))["finished"] is True


def test_objectives_match_without_case_spacing_or_a_final_full_stop(session):
    plan(session, objectives=["A weekly revenue chart."], revision=0)
    loose = [{"objective": "a  weekly revenue CHART", "outcome": "drawn", "evidence": "fig 1"}]
    assert not finish(session, loose).is_error
    assert session.review().review[0].objective == "A weekly revenue chart."


def test_a_plan_without_objectives_finishes_with_an_empty_review(session):
    plan(session, objectives=[], revision=0)
    assert not finish(session, []).is_error
    assert session.review().review == []


@pytest.mark.parametrize(
    ("review", "message"),
    [
        (
            REVIEW[:1],
            "review addresses 1 of the plan's 2 objectives; missing: objectives[1] "
            "'a baseline model with its error'; give each an outcome and its evidence",
        ),
        (
            [],
            "review addresses 0 of the plan's 2 objectives; missing: objectives[0] "
            "'a weekly revenue chart', objectives[1] 'a baseline model with its error'",
        ),
        (
            [*REVIEW, {"objective": "world peace", "outcome": "no", "evidence": "none"}],
            "review[2].objective is 'world peace', which is not an objective of the plan; "
            "the objectives are: 'a weekly revenue chart'; 'a baseline model with its error'",
        ),
        (
            [REVIEW[0], REVIEW[0], REVIEW[1]],
            "review[1].objective 'a weekly revenue chart' is already reviewed by review[0]",
        ),
        ([{**REVIEW[0], "evidence": " "}, REVIEW[1]], "review[0].evidence is blank"),
        ([{**REVIEW[0], "outcome": ""}, REVIEW[1]], "review[0].outcome is blank"),
        (
            [{**REVIEW[0], "outcome": "é" * 251}, REVIEW[1]],
            "review[0].outcome is 502 bytes; the limit is 500",
        ),
        (
            [{**REVIEW[0], "evidence": "x" * 501}, REVIEW[1]],
            "review[0].evidence is 501 bytes; the limit is 500",
        ),
        (
            [{**REVIEW[0], "objective": "a\nb"}, REVIEW[1]],
            "review[0].objective contains the control character U+000A",
        ),
        ([{"objective": "x", "outcome": "y"}], "review[0].evidence is required"),
        (
            [{**REVIEW[0], "score": 1}],
            "review[0].score is not a field of this tool; the fields are objective, outcome, "
            "evidence",
        ),
        ([REVIEW[0]] * 21, "review has 21 items; the limit is 20"),
    ],
)
def test_refused_naming_what_is_wrong_and_nothing_changes(session, review, message):
    plan(session, revision=0)
    before, cursor = session.snapshot(), session.cursor()
    result = finish(session, review, call_id="c1")
    assert result.is_error and message in result.content, result.content
    assert "\n" not in result.content
    assert session.review() is None and session.snapshot().plan == before.plan
    (event,) = session.events(after=cursor)
    assert event.kind == "tool_finished" and event.data["name"] == "finish_plan"
    # A refused call is not recorded under its call id: it may be retried.
    assert not finish(session, call_id="c1").is_error


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        (
            None,
            "finish_plan is offered once the plan has steps and every one is completed; "
            "the plan has no steps",
        ),
        ([], "the plan has no steps"),
        (
            [DONE[0], {"id": "fit", "description": "Fit", "status": "in_progress"}],
            "finish_plan is offered once every step is completed; 1 of 2 steps are not: fit",
        ),
    ],
)
def test_refused_until_every_step_is_completed(session, steps, message):
    if steps is not None:
        plan(session, steps=steps, revision=0)
    result = finish(session)
    assert result.is_error and message in result.content, result.content
    assert session.review() is None


def test_a_retry_returns_the_recorded_result_and_a_late_call_is_refused(session):
    plan(session, revision=0)
    first = finish(session, call_id="c1", turn_id="t1")
    cursor = session.cursor()
    assert finish(session, call_id="c1") == first  # the same call again
    assert session.cursor() == cursor
    other = finish(session, [], call_id="c1")  # another call under the same id
    assert other.is_error and "used for a different call" in other.content
    assert session.cursor() == cursor + 1
    session.off()  # cancels the newest turn
    late = finish(session, call_id="c2", turn_id="t1")
    assert late.is_error and "late" in late.content


@pytest.mark.parametrize("change", ["update_plan", "plan_submit", "user_edit"])
def test_a_later_change_to_the_plan_reopens_it(session, change):
    plan(session, revision=0)
    assert not finish(session).is_error
    cursor = session.cursor()
    steps = [{"id": step["id"], "description": step["description"]} for step in DONE]
    if change == "update_plan":
        result = session.call_tool(
            "update_plan", {"expected_revision": 1, "objectives": OBJECTIVES, "steps": DONE}
        )
        assert "This change reopens the finished plan" in result.content
        kinds = ["plan_reopened", "plan_updated"]
    elif change == "plan_submit":
        session.on()
        body = {"explanation": "again", "findings": [], "objectives": OBJECTIVES, "steps": steps}
        assert not session.call_tool("plan_submit", body).is_error
        kinds = ["mode_changed", "plan_reopened", "plan_updated", "proposal_submitted"]
    else:
        session.edit_plan({"expected_revision": 1, "steps": DONE[:1]})
        kinds = ["plan_reopened", "plan_updated", "message_queued"]
        assert "reopens the finished plan" in session.waiting_messages()[-1].text
    new = session.events(after=cursor)
    assert [event.kind for event in new] == kinds
    reopened = next(event for event in new if event.kind == "plan_reopened")
    assert reopened.data == {"revision": 2, "name": change}
    assert describe_event(reopened).endswith("the finished plan was reopened by revision 2")
    assert session.review() is None
    assert card_data(session, None)["review"] is None
    assert data_of(context_block(session))["finished"] is False
    assert fold("s", session.events()) == session.snapshot()


def test_finishing_again_replaces_the_review_and_a_decision_does_not_reopen(session):
    plan(session, revision=0)
    assert not finish(session).is_error
    decision = {"title": "Keep June", "rationale": "the last full month"}
    assert not session.call_tool("record_decision", decision).is_error
    assert session.review() is not None
    better = [{**REVIEW[0], "outcome": "drawn, with holidays marked"}, REVIEW[1]]
    result = finish(session, better)
    assert "replaces the earlier review" in result.content
    assert session.review().review[0].outcome == "drawn, with holidays marked"


def test_a_store_of_schema_2_is_upgraded_and_keeps_its_plan(engine, db):
    from jupyter_plans import PlanStore
    from jupyter_plans.store import migrations
    from tests.helpers.older import as_version

    with PlanStore(db) as store:
        plan(store.session("s"), revision=0)
    as_version(db, 2)
    with PlanStore(db) as store:
        with store.engine.connect() as conn:
            assert migrations.read_version(conn) == migrations.LATEST
        session = store.session("s")
        assert session.snapshot().plan.revision == 1 and session.review() is None
        assert not finish(session).is_error
        assert session.review().revision == 1


def test_the_static_forms_show_hostile_review_text_as_text(session):
    hostile = "<img src=x onerror=alert(1)>"
    plan(session, objectives=[hostile], revision=0)
    review = [{"objective": hostile, "outcome": f"**{hostile}**", "evidence": hostile}]
    assert not finish(session, review).is_error
    html = card_html(card_data(session, None))
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    text = render_text(session.snapshot(), None, session.review())
    assert f"  - {hostile}: **{hostile}**" in text


def test_the_data_forms_the_card_reads_equal_the_models_json(session):
    """The card reads the snapshot, review, question and events without the models; each
    must be exactly the models' JSON."""

    def same():
        assert session.snapshot_data() == session.snapshot().model_dump(mode="json")
        review = session.review()
        assert session.review_data() == (review.model_dump(mode="json") if review else None)
        question = session.open_question()
        assert session.open_question_text() == (question.question if question else None)
        events = [tuple(event.model_dump(mode="json").values()) for event in session.events()]
        assert [tuple(event) for event in session.event_data()] == events

    same()  # a session nothing happened in yet
    plan(session, revision=0)
    decision = {"title": "Keep June", "rationale": "the last full month", "sources": ["x.csv"]}
    assert not session.call_tool("record_decision", decision).is_error
    assert not finish(session).is_error
    same()
    session.on()
    assert not session.call_tool("ask_user", {"question": "Which month?"}).is_error
    same()
