"""Trust at the edges of a call (DESIGN section 2): a reused call id never drops a call, what a
person reads is what the hash binds, and nothing an integration passes grows an event."""

import json

import pytest

from jupyter_plans import DecisionRefused, PlanStore
from jupyter_plans.errors import PlanStoreError
from jupyter_plans.tools import Toolbox

STEPS = [{"id": "load", "description": "Load the data"}]
OTHER_STEPS = [{"id": "chart", "description": "Chart it"}]
PROPOSAL = {"explanation": "why", "findings": [], "objectives": ["a chart"], "steps": STEPS}


def rows(session):
    return [(e.kind, e.data) for e in session.events()]


# A reused call id.


def test_a_repeat_with_equal_arguments_returns_the_recorded_result(session):
    args = {"expected_revision": 0, "explanation": "first", "steps": STEPS}
    first = session.call_tool("update_plan", args, call_id="c1")
    # The same JSON value: keys in another order, or sent as JSON text.
    reordered = {"steps": [dict(reversed(STEPS[0].items()))], "explanation": "first"}
    reordered["expected_revision"] = 0
    assert session.call_tool("update_plan", reordered, call_id="c1") == first
    assert session.call_tool("update_plan", json.dumps(args), call_id="c1") == first
    assert session.cursor() == 1


@pytest.mark.parametrize(
    "name, args",
    [
        ("update_plan", {"expected_revision": 1, "steps": OTHER_STEPS}),  # other arguments
        ("update_plan", {"expected_revision": 0, "steps": STEPS, "explanation": "x"}),
        ("record_decision", {"title": "csv", "rationale": "small"}),  # another tool
    ],
)
def test_a_repeat_with_another_call_is_refused_and_recorded_once(session, name, args):
    first = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS}, call_id="c1")
    assert not first.is_error
    before = session.snapshot()
    repeat = session.call_tool(name, args, call_id="c1")
    assert repeat.is_error
    assert "'c1'" in repeat.content and "used for a different call" in repeat.content
    assert "\n" not in repeat.content
    after = session.snapshot()
    assert after.plan == before.plan and after.decisions == before.decisions
    kinds = [kind for kind, _ in rows(session)]
    assert kinds == ["plan_updated", "tool_finished"]
    # The refusal is not recorded for the id: the first call still answers its repeats.
    assert session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS}, call_id="c1")
    assert session.cursor() == 2


def test_a_repeat_changes_nothing_even_what_its_turn_would_have(db, session):
    """The look for an earlier use of the id comes first in effect: a repeat from a newer turn,
    whose stale revision would be refused, returns the recorded result and registers no
    turn, in the same process (where the session's state is known) as in a fresh one."""
    args = {"expected_revision": 0, "steps": STEPS}
    first = session.call_tool("update_plan", args, turn_id="t1", call_id="c1")
    nxt = {"expected_revision": 1, "steps": OTHER_STEPS}
    assert not session.call_tool("update_plan", nxt, turn_id="t1", call_id="c2").is_error
    assert session.call_tool("update_plan", args, turn_id="t2", call_id="c1") == first
    other = {"expected_revision": 2, "steps": STEPS}
    refused = session.call_tool("update_plan", other, turn_id="t3", call_id="c2")
    assert refused.is_error and "used for a different call" in refused.content
    # Neither t2 nor t3 became the newest turn: t1's calls are not late.
    later = session.call_tool("update_plan", other, turn_id="t1", call_id="c3")
    assert not later.is_error, later.content
    kinds = [kind for kind, _ in rows(session)]
    assert kinds == ["plan_updated", "plan_updated", "tool_finished", "plan_updated"]
    with PlanStore(db) as fresh:  # another connection: the row is read
        again = fresh.session(session.session_id)
        assert again.call_tool("update_plan", nxt, turn_id="t9", call_id="c2").content == (
            "Plan updated to revision 2."
        )
        assert again.cursor() == 4


def test_a_refused_call_may_be_retried_under_its_call_id(session):
    late = session.call_tool("update_plan", {"expected_revision": 5, "steps": STEPS}, call_id="c")
    assert late.is_error
    retry = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS}, call_id="c")
    assert not retry.is_error and session.snapshot().plan.revision == 1


def test_a_reused_id_through_a_toolbox_is_refused_not_dropped(session):
    toolbox = Toolbox(session)
    call = {"id": "call_7", "type": "function", "function": {"name": "update_plan"}}
    first = {
        **call,
        "function": {
            **call["function"],
            "arguments": json.dumps({"expected_revision": 0, "steps": STEPS}),
        },
    }
    second = {
        **call,
        "function": {
            **call["function"],
            "arguments": json.dumps({"expected_revision": 1, "steps": OTHER_STEPS}),
        },
    }
    assert json.loads(toolbox.dispatch("openai_chat", first)["content"])["is_error"] is False
    answer = json.loads(toolbox.dispatch("openai_chat", second)["content"])
    assert answer["is_error"] is True and "used for a different call" in answer["content"]
    assert [s.id for s in session.snapshot().plan.steps] == ["load"]


# What the person sees is what the hash binds.

SPOOFING = {
    "U+202E": "\u202e",  # right-to-left override
    "U+202A": "\u202a",
    "U+2066": "\u2066",
    "U+2069": "\u2069",
    "U+200E": "\u200e",
    "U+200F": "\u200f",
    "U+061C": "\u061c",
    "U+2028": "\u2028",  # line separator
    "U+2029": "\u2029",  # paragraph separator
}


def _with_text(field: str, text: str) -> tuple[str, dict]:
    step = {"id": "load", "description": "Load the data"}
    plan = {"expected_revision": 0, "steps": [step]}
    if field in ("description", "acceptance"):
        step[field] = text
    elif field == "evidence":
        step.update(status="completed", acceptance="rows > 0", evidence=text)
    elif field == "explanation":
        plan["explanation"] = text
    elif field in ("findings", "objectives"):
        plan[field] = ["fine", text]
    elif field == "title":
        plan = {"expected_revision": 0, "phases": [{"title": text, "steps": [step]}]}
    elif field == "decision":
        return "record_decision", {"title": "csv", "rationale": f"small {text}"}
    elif field == "source":
        return "record_decision", {"title": "csv", "rationale": "small", "sources": [text]}
    return "update_plan", plan


@pytest.mark.parametrize("code", list(SPOOFING))
@pytest.mark.parametrize(
    "field",
    [
        "description",
        "acceptance",
        "evidence",
        "explanation",
        "findings",
        "title",
        "decision",
        "source",
    ],
)
def test_bidirectional_controls_and_separators_are_refused_everywhere(session, field, code):
    name, args = _with_text(field, f"Load the {SPOOFING[code]}atad")
    result = session.call_tool(name, args, turn_id="t1")
    assert result.is_error and code in result.content, result.content
    assert "\n" not in result.content and SPOOFING[code] not in result.content
    snapshot = session.snapshot()
    assert snapshot.plan is None and snapshot.decisions == []
    assert [kind for kind, _ in rows(session)] == ["tool_finished"]


@pytest.mark.parametrize("text", ["\u200b", "\u200b\u200c\u2060", "\ufeff ", "\u3000\u200b", " "])
def test_a_text_that_shows_nothing_is_blank(session, text):
    result = session.call_tool(*_with_text("description", text))
    assert result.is_error and "steps[0].description is blank" in result.content
    evidence = session.call_tool(*_with_text("evidence", text))
    assert evidence.is_error and "steps[0].evidence" in evidence.content
    decision = session.call_tool("record_decision", {"title": text, "rationale": "small"})
    assert decision.is_error and "title is blank" in decision.content
    assert session.snapshot().plan is None


def test_visible_text_in_any_script_is_accepted(session):
    texts = ["Überblick über 数据", "تحليل البيانات", "\u200bzero width then text", "a\u00a0b"]
    steps = [{"id": f"s{i}", "description": text} for i, text in enumerate(texts)]
    result = session.call_tool("update_plan", {"expected_revision": 0, "steps": steps})
    assert not result.is_error, result.content
    assert [s.description for s in session.snapshot().plan.steps] == texts


# The person's text and the ids integrations pass.


@pytest.mark.parametrize(
    "notes, found",
    [
        ("keep the \x1b[31moutliers", "U+001B"),
        ("ring \x07 the bell", "U+0007"),
        ("flip \u202e this", "U+202E"),
        ("isolate \u2067 this", "U+2067"),
        ("\u200b", "blank"),
        ("x" * 65537, "65537 bytes; the limit is 65536"),
        ("lone \ud800 surrogate", "U+D800"),
    ],
)
def test_a_persons_text_is_refused_in_one_line_and_changes_nothing(session, notes, found):
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    before = session.snapshot()
    for verb in (session.revise, session.start_planning, session.queue_message):
        with pytest.raises(DecisionRefused) as refused:
            verb(notes)
        message = str(refused.value)
        assert found in message and "\n" not in message and len(message) < 300
    assert session.snapshot() == before and session.waiting_messages() == []


def test_newlines_and_tabs_are_a_persons_own(session):
    session.on()
    session.call_tool("plan_submit", PROPOSAL, turn_id="t1")
    session.revise("split the cleaning step\n\tand keep the outliers")
    assert session.waiting_messages()[-1].text == "split the cleaning step\n\tand keep the outliers"


@pytest.mark.parametrize(
    "session_id, found",
    [
        ("x" * 129, "129 bytes"),
        ("", "0 bytes"),
        ("a\x1bb", "U+001B"),
        ("a\x07", "U+0007"),
        ("a\u202eb", "U+202E"),
        (" lead", "leading or trailing space"),
        ("trail ", "leading or trailing space"),
        ("\ud800", "U+D800"),
        (7, "must be text"),
    ],
)
def test_a_session_id_is_bounded_and_plain(store, session_id, found):
    with pytest.raises(PlanStoreError) as refused:
        store.session(session_id)
    assert found in str(refused.value) and "\n" not in str(refused.value)
    assert store.sessions() == []
    assert store.session("é" * 64).session_id == "é" * 64  # 128 bytes is within the bound


@pytest.mark.parametrize("field", ["turn_id", "call_id"])
@pytest.mark.parametrize("value", ["", "x" * 129, "é" * 65])
def test_ids_over_their_bounds_raise_from_the_api_and_are_errors_through_a_toolbox(
    session, field, value
):
    args = {"expected_revision": 0, "steps": STEPS}
    with pytest.raises(ValueError) as refused:
        session.call_tool("update_plan", args, **{field: value})
    assert field in str(refused.value) and "1 to 128" in str(refused.value)
    result = Toolbox(session).call("update_plan", args, **{field: value})
    assert result.is_error and field in result.content
    assert session.cursor() == 0
    assert not session.call_tool("update_plan", args, **{field: "x" * 128}).is_error


def test_a_huge_tool_name_is_refused_and_recorded_cut(session):
    name = "update_plan_" + "x" * 1_000_000
    result = session.call_tool(name, {"expected_revision": 0, "steps": STEPS}, call_id="c")
    assert result.is_error and "1000012 bytes; the limit is 64" in result.content
    assert len(result.content) < 400
    (event,) = session.events()
    assert event.kind == "tool_finished" and event.data["name"] == name[:64]
    assert len(json.dumps(event.data)) < 1000


@pytest.mark.parametrize("name", ["bad\ud800name", "é" * 40, None, 42, ["update_plan"]])
def test_any_tool_name_is_an_error_result_never_an_exception(session, name):
    result = session.call_tool(name, {"expected_revision": 0, "steps": STEPS})
    assert result.is_error and "\n" not in result.content
    (event,) = session.events()
    recorded = event.data["name"]
    assert isinstance(recorded, str) and len(recorded.encode()) <= 64


def test_a_store_refuses_in_one_line_without_the_models_of_the_refusal(tmp_path):
    """A refusal's content quotes what it names cut short, so an event stays small."""
    with PlanStore(tmp_path / "p.plans.sqlite") as store:
        session = store.session("s")
        key = "k" * 5000
        result = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS, key: 1})
        assert result.is_error and len(result.content) < 400


def test_a_huge_expected_revision_is_named_briefly(session):
    result = session.call_tool("update_plan", {"expected_revision": 10**4000, "steps": STEPS})
    assert result.is_error and "a number of 4001 digits" in result.content
    assert len(result.content) < 200 and session.snapshot().plan is None


def test_generated_tool_names_and_arguments_never_raise(tmp_path):
    """Hypothesis: any tool name (lone surrogates, huge, not text) with any arguments gives a
    result, and a refused call stores one tool_finished event no bigger than its bound."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    names = st.one_of(
        st.text(max_size=80),
        st.sampled_from(
            [
                "update_plan",
                "plan_submit",
                "record_decision",
                "finish_plan",
                "ask_user",
                "x" * 100_000,
                "bad\ud800",
                "\udfff",
            ]
        ),
        st.integers(),
        st.none(),
        st.binary(max_size=8),
    )
    leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
    values = st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
        max_leaves=12,
    )
    with PlanStore(tmp_path / "fuzz.plans.sqlite") as store:
        session = store.session("s")

        @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
        @given(names, values | st.text(max_size=40))
        def check(name, args):
            before = session.cursor()
            result = session.call_tool(name, args, call_id=None)
            assert isinstance(result.is_error, bool) and "\n" not in result.content
            if result.is_error:
                (event,) = session.events(after=before)
                assert event.kind == "tool_finished"
                assert len(event.data["name"].encode()) <= 64
                assert len(json.dumps(event.data)) < 70_000

        check()
