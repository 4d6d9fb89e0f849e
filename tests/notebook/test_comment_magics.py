"""%plan comment, comments, resolve and reopen (DESIGN section 14) through a real IPython
InteractiveShell, %plan history, and the card's own comment actions."""

import pytest

from jupyter_plans.plan.who import local_person
from tests.helpers.shell import load, plan, press, submit

STEPS = [
    {"id": "load", "description": "Load the data"},
    {"id": "fit", "description": "Fit the model"},
]


def proposal(session):
    session.on()
    args = {"explanation": "why", "findings": [], "objectives": ["a model"], "steps": STEPS}
    result = session.call_tool("plan_submit", args, turn_id="t1")
    assert not result.is_error, result.content
    return session.snapshot().pending_proposal_hash


def test_a_comment_by_id_or_position_listed_resolved_and_reopened(ip, capsys):
    session = load(ip)
    proposal(session)
    out, err = plan(ip, "comment fit use the median, not the mean", capsys)
    assert (out, err) == (
        "Comment c1 on step fit is open: the agent reads it with its next turn.\n",
        "",
    )
    assert plan(ip, "COMMENT 1 mind the header row", capsys)[1] == ""
    assert plan(ip, "comment - keep it short", capsys)[0].startswith("Comment c3 on the plan")
    comments = session.snapshot().comments
    assert [(c.id, c.step_id, c.text) for c in comments] == [
        ("c1", "fit", "use the median, not the mean"),
        ("c2", "load", "mind the header row"),
        ("c3", None, "keep it short"),
    ]
    assert comments[0].by == {"name": local_person(), "via": "magic"}
    session.call_tool("comment_reply", {"comment_id": "c1", "reply": "Median it is"})
    out, _ = plan(ip, "comments", capsys)
    assert out.splitlines() == [
        f"c1 on step fit, by {local_person()}, addressed: use the median, not the mean",
        "    the agent replied: Median it is",
        f"c2 on step load, by {local_person()}, open: mind the header row",
        f"c3 on the plan, by {local_person()}, open: keep it short",
    ]
    assert plan(ip, "resolve c1", capsys) == ("Comment c1 resolved.\n", "")
    assert (
        plan(ip, "reopen c1", capsys)[0] == "Comment c1 reopened: it waits for the agent again.\n"
    )
    out, _ = plan(ip, "history 4", capsys)
    assert out.splitlines()[-2:] == [
        f"{session.cursor() - 1}. comment c1 resolved by {local_person()} with %plan",
        f"{session.cursor()}. comment c1 reopened by {local_person()} with %plan",
    ]
    assert (
        f"comment c2 on step load by {local_person()} with %plan: mind the header row"
        in (plan(ip, "history 20", capsys)[0])
    )


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("comment", "comment needs STEP and TEXT"),
        ("comment fit", "comment needs STEP and TEXT"),
        ("comment nope a thought", "step_id 'nope' is not a step"),
        ("comment 3 a thought", "STEP '3' is no step id, and the plan has 2 steps"),
        ("comments now", "comments takes nothing after it"),
        ("resolve", "resolve takes one comment id"),
        ("resolve c9", "there is no comment c9"),
        ("reopen first", "is not a comment id"),
    ],
)
def test_refused_comment_verbs_are_one_line_on_stderr_and_change_nothing(ip, capsys, line, match):
    session = load(ip)
    proposal(session)
    cursor = session.cursor()
    out, err = plan(ip, line, capsys)
    assert out == "" and err.startswith(f"%plan {line.split()[0]}: ") and match in err
    assert err.count("\n") == 1
    assert session.cursor() == cursor


def test_revise_without_notes_sends_the_open_comments(ip, capsys):
    session = load(ip)
    proposal(session)
    assert "revise needs NOTES" in plan(ip, "revise", capsys)[1]
    plan(ip, "comment fit use the median", capsys)
    out, err = plan(ip, "revise", capsys)
    assert err == "" and out.startswith("Your open comments went to the agent")
    (message,) = session.waiting_messages()
    assert message.text == f"On step fit: use the median, said {local_person()}"


def test_the_cards_comment_actions_name_the_page_user(ip):
    session = load(ip)
    submit(session)
    from jupyter_plans.notebook.widget import PlanCard

    card = PlanCard(session)
    press(card, action="comment", step_id="load", text="hi", by="ann")
    assert card.error is None
    (comment,) = card.snapshot["comments"]
    assert comment["by"] == {"name": "ann", "via": "card"} and comment["status"] == "open"
    press(card, action="resolve", comment_id="c1", by="ann")
    assert card.snapshot["comments"][0]["status"] == "resolved"
    press(card, action="reopen", comment_id="c1")
    assert card.snapshot["comments"][0]["status"] == "open"
    press(card, action="comment", step_id="load", text=" ")
    assert card.error == "text is blank; a comment says something (1 to 2000 characters)"
    assert len(card.snapshot["comments"]) == 1
    assert repr(card).splitlines()[1] == "Proposal " + (
        session.snapshot().pending_proposal_hash[:12] + " waits for your decision"
    )
    assert "1 open comments" in repr(card) and "hi" not in repr(card)
