"""A step's check (DESIGN section 17): one Python expression compiled in eval mode, 1 to 240
UTF-8 bytes on one line, section 2's character rules. What is refused is refused in one line
that names the field, the limit and what was found, and nothing is stored but the call's
tool_finished event; update_plan, plan_submit and the person's edit agree."""

from __future__ import annotations

import pytest

from jupyter_plans import DecisionRefused

WIDE = "\U0001f600"  # four bytes in UTF-8


def plan(check, tool="update_plan"):
    step = {"id": "clean", "description": "Drop rows with no price", "check": check}
    args = {"steps": [{"id": "load", "description": "Load"}, step]}
    if tool == "plan_submit":
        return {"explanation": "why", "findings": [], "objectives": [], **args}
    return {"expected_revision": 0, **args}


ACCEPTED = [
    "df['price'].notna().all()",
    "len(df) == 12_408 and df.region.isna().sum() == 0",
    "abs(error) < 0.1 if fitted else False",
    "all(x > 0 for x in values)",
    "x" * 240,
    "'" + WIDE * 59 + "'",  # 238 bytes
    "f'{n}' != '' # a comment after the expression",
]

REFUSED = [
    ("x = 1", "is an assignment"),
    ("total += 1", "is an assignment"),
    ("(x := 1) > 0", "assigns with :="),
    ("import os", "is a statement (import)"),
    ("assert ok", "is a statement (assert)"),
    ("x > 0; y > 0", "is 2 statements"),
    ("x >", "does not parse as a Python expression"),
    (" x > 0", "does not parse as a Python expression"),
    ("(yield)", "does not parse as a Python expression ('yield' outside function"),
    ("x" * 241, "is 241 bytes; it must be 1 to 240"),
    ("'" + WIDE * 60 + "'", "is 242 bytes; it must be 1 to 240"),
    ("", "is 0 bytes; it must be 1 to 240"),
    ("x > 0\nand y", "contains the control character U+000A"),
    ("x > 0\t", "contains the control character U+0009"),
    ("'\u202e' == s", "contains the bidirectional control U+202E"),
]


@pytest.mark.parametrize("check", ACCEPTED)
@pytest.mark.parametrize("tool", ["update_plan", "plan_submit"])
def test_one_expression_of_at_most_240_bytes_is_a_check(session, check, tool):
    if tool == "plan_submit":
        session.on()
    result = session.call_tool(tool, plan(check, tool))
    assert not result.is_error, result.content
    assert session.snapshot().plan.steps[1].check == check


@pytest.mark.parametrize(("check", "said"), REFUSED)
@pytest.mark.parametrize("tool", ["update_plan", "plan_submit"])
def test_anything_else_is_refused_in_one_line_naming_the_field(session, check, said, tool):
    if tool == "plan_submit":
        session.on()
    cursor = session.snapshot().cursor
    result = session.call_tool(tool, plan(check, tool))
    assert result.is_error
    assert result.content.startswith("steps[1].check "), result.content
    assert said in result.content and "\n" not in result.content
    if "bytes" not in said and "U+" not in said:  # the grammar's refusals say the limit too
        assert "at most 240 bytes" in result.content and "found " in result.content
    assert [e.kind for e in session.events(after=cursor)] == ["tool_finished"]
    assert session.snapshot().plan is None


def test_the_check_of_a_phased_plan_is_named_where_it_is(session):
    args = {
        "expected_revision": 0,
        "phases": [{"title": "Clean", "steps": [{"id": "a", "description": "A", "check": "a b"}]}],
    }
    result = session.call_tool("update_plan", args)
    assert result.is_error and result.content.startswith("phases[0].steps[0].check does not")


def test_the_person_writing_a_check_is_held_to_the_same_bounds(session):
    assert not session.call_tool("update_plan", plan("len(df) > 0")).is_error
    edit = {"expected_revision": 1, "steps": plan("df = load()")["steps"]}
    with pytest.raises(DecisionRefused) as refused:
        session.edit_plan(edit)
    assert str(refused.value).startswith("edit refused: steps[1].check is an assignment")
    assert session.snapshot().plan.revision == 1


def test_a_check_sent_as_null_is_no_check(session):
    assert not session.call_tool("update_plan", plan(None)).is_error
    assert session.snapshot().plan.steps[1].check is None
    assert session.snapshot().checks == {}
