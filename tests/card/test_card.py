"""The card's data and its static HTML and text forms, for the agent's open question."""

from jupyter_plans.card.html import card_html
from jupyter_plans.card.view import card_data
from jupyter_plans.plan.text import describe_event, render_text

HOSTILE = "<img src=x onerror=alert(1)>"
PROPOSAL = {
    "explanation": "Tidy first",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load it"}],
}


def ask(session, question):
    assert not session.call_tool("ask_user", {"question": question}, turn_id="t1").is_error


def test_card_data_holds_the_open_question_only_while_it_is_open(session):
    assert card_data(session, None)["question"] is None
    session.on()
    ask(session, "Which year?")
    assert card_data(session, "a.ipynb")["question"] == "Which year?"
    session.answer("2024")
    assert card_data(session, "a.ipynb")["question"] is None


def test_card_html_escapes_the_question_with_and_without_a_plan(session):
    session.on()
    ask(session, f"Is {HOSTILE} right?")
    html = card_html(card_data(session, None))
    assert "<img" not in html and f"Is {HOSTILE.replace('<', '&lt;').replace('>', '&gt;')}" in html
    assert "No plan yet" in html
    session.answer("yes")
    assert not session.call_tool("update_plan", dict(PROPOSAL, expected_revision=0)).is_error
    ask(session, HOSTILE)
    html = card_html(card_data(session, None))
    assert "<img" not in html and "<strong>The agent asks</strong>: &lt;img" in html
    assert "Tidy first" in html


def test_text_form_shows_the_question_deterministically(session):
    session.on()
    assert not session.call_tool("update_plan", dict(PROPOSAL, expected_revision=0)).is_error
    ask(session, "Which year?")
    text = render_text(session.snapshot(), card_data(session, None)["question"])
    assert text.splitlines()[:2] == [
        "Plan (plan mode), revision 1: 0 of 1 steps marked complete",
        "The agent asks: Which year?",
    ]
    assert render_text(session.snapshot()) == render_text(session.snapshot(), None)
    assert "asks" not in render_text(session.snapshot())


def test_history_words_for_questions(session):
    session.on()
    ask(session, "Which year?")
    session.answer("2024")
    ask(session, "Which month?")
    session.off()
    lines = [describe_event(e) for e in session.events() if e.kind.startswith("question")]
    asked, answered, asked_again, dropped = lines
    assert asked.endswith(". agent asked you: Which year?")
    assert answered.endswith(". you answered the agent's question (message 1)")
    assert asked_again.endswith(". agent asked you: Which month?")
    assert dropped.endswith(". the agent's question was dropped unanswered")


def test_card_data_counts_the_sessions_of_its_file_so_the_header_names_one_among_others(session):
    """The header names the session only where the plan file holds others: the count takes in
    a session made current before its first write (as `%plan new` leaves it)."""
    assert card_data(session, "a.ipynb")["sessions"] == 1
    session.on()
    assert card_data(session, "a.ipynb")["sessions"] == 1
    fresh = session.store.session("session-2")  # not written to yet
    assert card_data(fresh, "a.ipynb")["sessions"] == 2
    fresh.on()
    assert card_data(session, "a.ipynb")["sessions"] == 2
