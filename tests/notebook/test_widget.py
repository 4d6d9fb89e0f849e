"""The card widget: its synced state, its buttons' messages, and its saved forms."""

import json

import pytest
from IPython.core.formatters import format_display_data

from jupyter_plans.card.view import MIME_TYPE
from jupyter_plans.notebook.widget import PlanCard
from tests.helpers.shell import press

PROPOSAL = {
    "explanation": "Tidy first",
    "findings": ["dates are text"],
    "objectives": ["a chart"],
    "steps": [
        {"id": "load", "description": "<img src=x onerror=alert(1)>"},
        {"id": "plot", "description": "Plot it", "depends_on": ["load"]},
    ],
}


@pytest.fixture
def proposed(session):
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    return session


def test_the_card_syncs_the_snapshot_and_the_changes(proposed):
    card = PlanCard(proposed, "analysis.ipynb")
    assert card.snapshot == proposed.snapshot().model_dump(mode="json")
    assert card.notebook == "analysis.ipynb" and card.changes is None and card.error is None
    proposed.revise("split it")
    again = dict(PROPOSAL, steps=[*PROPOSAL["steps"], {"id": "save", "description": "Save"}])
    proposed.call_tool("plan_submit", again, turn_id="t2")
    card.refresh()
    assert card.snapshot["pending_proposal_hash"] == proposed.snapshot().pending_proposal_hash
    assert [s["id"] for s in card.changes["added"]] == ["save"]
    assert card.changes["since_revision"] == 1
    assert set(card.keys) >= {"snapshot", "notebook", "changes", "error"}


def test_approve_from_the_card_is_the_same_decision_as_the_magic(proposed):
    card = PlanCard(proposed)
    digest = card.snapshot["pending_proposal_hash"]
    press(card, action="approve", hash=digest)
    assert card.error is None
    assert card.snapshot["mode"] == "default"
    assert card.snapshot["approved_proposal_hash"] == digest
    kinds = [e.kind for e in proposed.events()][-3:]
    assert kinds == ["decision", "mode_changed", "message_queued"]


def test_a_refused_button_shows_one_line_and_changes_nothing(proposed):
    card = PlanCard(proposed)
    before = proposed.snapshot()
    press(card, action="approve", hash=before.pending_proposal_hash.upper())
    assert card.error and "\n" not in card.error
    assert proposed.snapshot() == before
    press(card, action="revise", notes="   ")
    assert card.error == "revise needs NOTES: say what should change"
    press(card, action="launch")
    assert "unknown action" in card.error
    press(card, action="revise", notes="keep the outliers")
    assert card.error is None and card.snapshot["pending_proposal_hash"] is None


def test_leave_and_edit_from_the_card(proposed):
    card = PlanCard(proposed)
    phases = [
        {"title": None, "steps": [{"id": "plot", "description": "Plot revenue", "depends_on": []}]}
    ]
    press(card, action="edit", change={"expected_revision": 1, "phases": phases})
    assert card.error is None
    assert card.snapshot["plan"]["revision"] == 2
    assert card.snapshot["pending_proposal_hash"] != proposed.events()[1].data.get("hash")
    press(card, action="edit", change={"expected_revision": 1, "phases": phases})
    assert "expected_revision is 1 but the session is at revision 2" in card.error
    press(card, action="off")
    assert card.snapshot["mode"] == "default" and card.error is None


def test_saved_forms_text_mime_and_escaped_html(proposed):
    card = PlanCard(proposed, "analysis.ipynb")
    bundle, _ = format_display_data(card)  # as IPython displays it
    text = bundle["text/plain"]
    assert text == repr(card)
    assert text.startswith("Plan (plan mode), revision 1: 0 of 2 steps marked complete")
    assert "Proposal " + card.snapshot["pending_proposal_hash"][:12] in text
    assert "analysis" not in text  # no notebook name, path or id in the text form
    assert bundle[MIME_TYPE]["snapshot"] == card.snapshot
    json.dumps(bundle[MIME_TYPE])  # a notebook can save it
    html = bundle["text/html"]
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_two_cards_of_one_session_stay_in_step(proposed, store):
    from jupyter_plans.notebook.watch import CardWatcher

    watcher = CardWatcher(store, 0.2)
    first, second = PlanCard(proposed), PlanCard(store.session("s"))
    watcher.add(first)
    watcher.add(second)
    press(first, action="approve", hash=first.snapshot["pending_proposal_hash"])
    assert second.snapshot == first.snapshot  # the commit refreshed every card at once
    watcher.stop()


def test_the_card_shown_last_is_live_and_the_earlier_keeps_what_it_showed(proposed, store):
    from jupyter_plans.notebook.watch import CardWatcher

    watcher = CardWatcher(store, 0.2)
    first, second, elsewhere = PlanCard(proposed), PlanCard(proposed), PlanCard(store.session("o"))
    for card in (first, second, elsewhere):
        watcher.add(card)
    format_display_data(first)
    format_display_data(second)
    format_display_data(elsewhere)  # another session's card takes over nothing of this one
    assert first.superseded_by == second.model_id
    assert second.superseded_by is None and elsewhere.superseded_by is None
    digest = first.snapshot["pending_proposal_hash"]
    # The superseded card's buttons no longer act: the proposal still waits.
    press(first, action="approve", hash=digest)
    assert "superseded" in first.error
    assert proposed.snapshot().pending_proposal_hash == digest
    press(second, action="approve", hash=digest)
    assert second.error is None and second.snapshot["mode"] == "default"
    # The earlier card is the story: it still shows the proposal waiting, as when it was shown.
    assert first.snapshot["pending_proposal_hash"] == digest and first.snapshot["mode"] == "plan"
    watcher.stop()


def test_the_notes_of_a_request_for_changes_stay_with_the_proposal_that_answers_them(proposed):
    card = PlanCard(proposed)
    assert card.notes is None
    press(card, action="revise", notes="split <b>the</b> load step")
    assert card.error is None and card.notes == "split <b>the</b> load step"
    bundle, _ = format_display_data(card)  # as IPython displays it
    assert bundle[MIME_TYPE]["notes"] == "split <b>the</b> load step"
    assert "split &lt;b&gt;the&lt;/b&gt; load step" in bundle["text/html"]
    proposed.call_tool("update_plan", {"expected_revision": 1, "steps": PROPOSAL["steps"]})
    card.refresh()
    assert card.notes == "split <b>the</b> load step"  # the agent works on them: still in view
    proposed.call_tool("plan_submit", PROPOSAL, turn_id="t2")
    card.refresh()
    # The next proposal answers them: they stay beside it, until the person decides on it.
    assert card.snapshot["pending_proposal_hash"] and card.notes == "split <b>the</b> load step"
    proposed.approve(card.snapshot["pending_proposal_hash"])
    card.refresh()
    assert card.notes is None


# The agent's question (ask_user): shown on the card, answered from it.

QUESTION = "Hold out <img src=x onerror=alert(1)> the last month, or the last 30 days?"


@pytest.fixture
def asked(session):
    session.on()
    assert not session.call_tool("ask_user", {"question": QUESTION}, turn_id="t1").is_error
    return session


def test_the_card_syncs_the_open_question(asked):
    card = PlanCard(asked)
    assert card.question == QUESTION
    assert "question" in card.keys
    asked.answer("the last month")
    card.refresh()
    assert card.question is None


def test_answer_from_the_card_is_the_persons_message_and_closes_the_question(asked):
    card = PlanCard(asked)
    press(card, action="answer", text="the last full month")
    assert card.error is None and card.question is None
    assert asked.open_question() is None
    (message,) = asked.deliver()
    assert (message.source, message.text) == ("person", "the last full month")
    (closed,) = [e.data for e in asked.events() if e.kind == "question_closed"]
    assert closed["action"] == "answered" and closed["message_id"] == message.message_id


def test_a_refused_answer_shows_one_line_and_changes_nothing(asked):
    card = PlanCard(asked)
    cursor = asked.cursor()
    press(card, action="answer", text="   ")
    assert "blank" in card.error and "\n" not in card.error
    assert card.question == QUESTION and asked.cursor() == cursor
    press(card, action="answer")
    assert "blank" in card.error and asked.cursor() == cursor
    asked.off()  # drops the question
    card.refresh()
    cursor = asked.cursor()
    press(card, action="answer", text="too late")
    assert card.error == "nothing to answer: the agent has no open question"
    assert card.question is None and asked.cursor() == cursor


def test_saved_forms_show_the_question_as_text_and_escaped_html(asked):
    card = PlanCard(asked, "analysis.ipynb")
    bundle, _ = format_display_data(card)  # as IPython displays it
    assert bundle["text/plain"] == f"Plan (plan mode): no plan yet\nThe agent asks: {QUESTION}"
    assert bundle[MIME_TYPE]["question"] == QUESTION
    html = bundle["text/html"]
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "The agent asks" in html
    asked.answer("the last month")
    card.refresh()
    bundle, _ = format_display_data(card)  # as IPython displays it
    assert "asks" not in bundle["text/plain"] and "asks" not in bundle["text/html"]
    assert bundle[MIME_TYPE]["question"] is None
