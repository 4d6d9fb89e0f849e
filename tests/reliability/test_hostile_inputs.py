"""Bad input: generated tool inputs, valid, near-valid and hostile, on each engine.

Each is accepted, or refused with is_error and a one-line message; no exception escapes; a
refused input changes nothing but its one tool_finished event; an accepted one keeps the
snapshot equal to the fold of the history.
"""

import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_plans import PlanStore
from jupyter_plans.plan.fold import fold
from tests.engines import ENGINES, database

_text = st.text(max_size=20) | st.sampled_from(
    ["\ud800", "a\udfffb", "tab\there", "nl\nx", "\x00", "\x7f", "\u0085", "é" * 121, "", "  "]
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=30,
)


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


def _valid_step(i: int) -> dict:
    return {"id": f"s{i}", "description": f"step {i}"}


# A valid plan with one thing pushed to, or just past, a limit of DESIGN section 2.
_MUTATIONS = {
    "description 240 bytes": lambda p: p["steps"][0].update(description="d" * 240),
    "description 241 bytes": lambda p: p["steps"][0].update(description="d" * 241),
    "id 64 bytes": lambda p: p["steps"][0].update(id="i" * 64),
    "id 65 bytes": lambda p: p["steps"][0].update(id="i" * 65),
    "id with a space": lambda p: p["steps"][0].update(id="a b"),
    "32 steps": lambda p: p.update(steps=[_valid_step(i) for i in range(32)]),
    "33 steps": lambda p: p.update(steps=[_valid_step(i) for i in range(33)]),
    "status done": lambda p: p["steps"][0].update(status="done"),
    "status Completed": lambda p: p["steps"][0].update(status="Completed"),
    "two in progress": lambda p: [s.update(status="in_progress") for s in p["steps"]],
    "depends on a later step": lambda p: p["steps"][0].update(depends_on=["s1"]),
    "duplicate ids": lambda p: p["steps"][1].update(id="s0"),
    "acceptance without evidence": lambda p: p["steps"][0].update(
        acceptance="rows > 0", status="completed"
    ),
    "21 findings": lambda p: p.update(findings=["f"] * 21),
    "finding with a newline": lambda p: p.update(findings=["a\nb"]),
    "lone surrogate": lambda p: p["steps"][0].update(description="x\udc00"),
    "blank description": lambda p: p["steps"][0].update(description=" \u3000 "),
    "steps and phases": lambda p: p.update(phases=[{"title": None, "steps": []}]),
    "stale revision": lambda p: p.update(expected_revision=5),
    "revision as text": lambda p: p.update(expected_revision="0"),
    "64 KiB of text": lambda p: p.update(explanation="x" * 65536),
    "deeply nested": lambda p: p.update(extra=_deep(3000)),
    "unknown field": lambda p: p.update(extra=1),
    "none": lambda p: None,
}


@st.composite
def _near_valid(draw):
    name = draw(st.sampled_from(["update_plan", "update_plan", "plan_submit"]))
    plan = {"expected_revision": 0, "steps": [_valid_step(0), _valid_step(1)]}
    if name == "plan_submit":
        plan.update(explanation="why", findings=["found"], objectives=["goal"])
    _MUTATIONS[draw(st.sampled_from(sorted(_MUTATIONS)))](plan)
    return name, plan


_hostile_step = st.fixed_dictionaries(
    {"id": _json | st.text(max_size=70), "description": _json | st.text(max_size=300)},
    optional={"status": _json, "depends_on": _json, "evidence": _json, "extra": _json},
)
_names = st.sampled_from(["update_plan", "plan_submit", "record_decision", "ask_user"])
_hostile = st.one_of(
    _json,
    st.fixed_dictionaries(
        {"expected_revision": _json | st.integers(0, 2)},
        optional={"steps": st.lists(_hostile_step, max_size=4) | _json, "phases": _json},
    ),
    st.text(max_size=40),  # JSON text that may not parse
)
_calls = _near_valid() | st.tuples(_names, _hostile)


@pytest.mark.parametrize("engine", ENGINES)
def test_generated_inputs_are_accepted_or_refused_and_never_raise(engine, tmp_path, figure):
    outcome: Counter = Counter()
    ids = itertools.count()
    with database(engine, tmp_path) as db, PlanStore(db) as store:

        @settings(
            max_examples=400,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(call=_calls, plan_mode=st.booleans())
        def check(call, plan_mode):
            name, args = call
            session = store.session(f"fuzz-{next(ids)}")
            if plan_mode:
                session.on()
            before = session.snapshot()
            result = session.call_tool(name, args)
            assert isinstance(result.content, str) and result.content.strip()
            assert "\n" not in result.content
            if result.is_error:
                outcome["refused"] += 1
                after = session.snapshot()
                assert after.model_copy(update={"cursor": before.cursor}) == before
                assert [e.kind for e in session.events(after=before.cursor)] == ["tool_finished"]
            else:
                outcome["accepted"] += 1
            assert fold(session.session_id, session.events()) == session.snapshot()

        check()
    assert outcome["accepted"] and outcome["refused"], "the inputs did not exercise both ways"
    figure(
        f"{engine}: {sum(outcome.values())} generated inputs: {outcome['accepted']} accepted, "
        f"{outcome['refused']} refused with a one-line reason, 0 exceptions"
    )
