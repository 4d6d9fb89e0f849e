"""DESIGN section 2 (exact): every bound of a tool input, on both sides of its limit.

Each refusal must be is_error, one line naming the field path and the limit (and what was
found), leave the snapshot as it was and add exactly one `tool_finished` event. Each acceptance
must store what was sent.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from jupyter_plans.plan.validation import check_raw

_ids = itertools.count(1)


@pytest.fixture
def plan_session(session):
    session.on()
    return session


def s(step_id, **fields):
    return {"id": step_id, "description": f"do {step_id}", **fields}


def flat(*steps, rev=0, **extra):
    return {"expected_revision": rev, "steps": list(steps), **extra}


def phased(*phases, rev=0, **extra):
    return {"expected_revision": rev, "phases": list(phases), **extra}


def ph(title, *steps):
    return {"title": title, "steps": list(steps)}


def many(n, prefix="s"):
    return [s(f"{prefix}{i}") for i in range(n)]


def size(args):
    return len(json.dumps(args, ensure_ascii=False, separators=(",", ":")).encode())


def _dump(session):
    return session.snapshot().model_dump(mode="json")


def _call(session, name, args, turn_id="t1"):
    call_id = f"c{next(_ids)}"
    return session.call_tool(name, args, turn_id=turn_id, call_id=call_id), call_id


def expected_plan(args):
    """What DESIGN section 2 says is stored for an accepted input (statuses as sent)."""
    if args.get("steps") is not None:
        phases = [{"title": None, "steps": args["steps"]}] if args["steps"] else []
    else:
        phases = args["phases"]
    full = [
        {
            "title": p.get("title"),
            "steps": [
                {
                    "id": st["id"],
                    "description": st["description"],
                    "status": st.get("status", "pending"),
                    "acceptance": st.get("acceptance"),
                    "depends_on": st.get("depends_on") or [],
                    "evidence": st.get("evidence"),
                    "check": st.get("check"),
                }
                for st in p.get("steps", [])
            ],
        }
        for p in phases
    ]
    return {
        "explanation": args.get("explanation"),
        "findings": args.get("findings") or [],
        "objectives": args.get("objectives") or [],
        "phases": full,
        "steps": [st for p in full for st in p["steps"]],
    }


# DESIGN section 3 lists plan_submit's explanation, findings and objectives without "?".
SUBMIT_TEXT = {"explanation": "why", "findings": [], "objectives": []}


def accepted(session, name, args):
    args = {**SUBMIT_TEXT, **args} if name == "plan_submit" else args
    before = _dump(session)
    result, call_id = _call(session, name, args)
    assert result.is_error is False, result.content
    after = _dump(session)
    plan = after["plan"]
    if name != "record_decision":
        old_revision = before["plan"]["revision"] if before["plan"] else 0
        assert plan["revision"] == old_revision + 1
        assert plan["call_id"] == call_id and plan["turn_id"] == "t1"
        got = {k: plan[k] for k in ("explanation", "findings", "objectives", "phases", "steps")}
        assert got == expected_plan(args)
    return after


def refused(session, name, args, where, limit=None, found=None):
    args = {**SUBMIT_TEXT, **args} if name == "plan_submit" else args
    before = _dump(session)
    result, call_id = _call(session, name, args)
    assert result.is_error is True
    content = result.content
    assert content.strip() and len(content.splitlines()) == 1 and "\n" not in content, content
    assert where in content, f"{where!r} not named in {content!r}"
    for number in (limit, found):
        if number is not None:
            assert re.search(rf"(?<!\d){number}(?!\d)", content), f"{number} not in {content!r}"
    after = _dump(session)
    assert after["cursor"] == before["cursor"] + 1
    assert {**after, "cursor": None} == {**before, "cursor": None}
    new = session.events(after=before["cursor"])
    assert [e.kind for e in new] == ["tool_finished"]
    assert set(new[0].data) == {"name", "call_id", "result"}
    assert new[0].data["name"] == name and new[0].data["call_id"] == call_id
    assert new[0].data["result"] == {"is_error": True, "content": content}
    return content


def text(nbytes, char="x"):
    """Exactly `nbytes` UTF-8 bytes, made of `char` as far as it goes, then ASCII."""
    width = len(char.encode())
    return char * (nbytes // width) + "x" * (nbytes % width)


def spread(n, phases=4):
    return [ph(f"P{p}", *[s(f"p{p}-{i}") for i in range(p, n, phases)]) for p in range(phases)]


def d(description):
    return {"id": "d", "description": description}


E, EMOJI = "\u00e9", "\U0001f600"  # 2 and 4 UTF-8 bytes
# (name, build(n), limit, field path): build(limit) is accepted, build(limit + 1) refused.
BOUNDS = [
    ("steps-flat", lambda n: flat(*many(n)), 32, "steps"),
    ("steps-across-phases", lambda n: phased(*spread(n)), 32, "steps"),
    ("phases", lambda n: phased(*[ph(None, s(f"a{i}")) for i in range(n)]), 8, "phases"),
    ("id", lambda n: flat(s("x"), s(text(n, "a"))), 64, "steps[1].id"),
    (
        "id-in-phase",
        lambda n: phased(ph("A", s("x")), ph("B", s(text(n, "~")))),
        64,
        "phases[1].steps[0].id",
    ),
    ("description", lambda n: flat(*many(3), d(text(n))), 240, "steps[3].description"),
    ("description-2-byte", lambda n: flat(d(text(n, E))), 240, "steps[0].description"),
    ("description-4-byte", lambda n: flat(d(text(n, EMOJI))), 240, "steps[0].description"),
    ("explanation", lambda n: flat(s("a"), explanation=text(n, E)), 500, "explanation"),
    ("finding", lambda n: flat(s("a"), findings=["ok", text(n)]), 500, "findings[1]"),
    ("findings-count", lambda n: flat(s("a"), findings=["f"] * n), 20, "findings"),
    ("objective", lambda n: flat(s("a"), objectives=[text(n, E)]), 500, "objectives[0]"),
    ("objectives-count", lambda n: flat(s("a"), objectives=["o"] * n), 20, "objectives"),
    (
        "phase-title",
        lambda n: phased(ph("A", s("a")), ph(text(n, E), s("b"))),
        120,
        "phases[1].title",
    ),
    ("acceptance", lambda n: flat(s("a"), s("b", acceptance=text(n))), 240, "steps[1].acceptance"),
    (
        "evidence",
        lambda n: flat(s("a", status="completed", acceptance="ok", evidence=text(n, E))),
        500,
        "steps[0].evidence",
    ),
]
SUBMIT_BOUNDS = [b for b in BOUNDS if b[0] != "evidence"]  # a proposal carries no evidence


@pytest.mark.parametrize("name,build,limit,where", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_bound_at_the_limit_is_accepted(session, name, build, limit, where):
    accepted(session, "update_plan", build(limit))


@pytest.mark.parametrize("name,build,limit,where", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_bound_one_past_the_limit_is_refused(session, name, build, limit, where):
    refused(session, "update_plan", build(limit + 1), where, limit, limit + 1)


@pytest.mark.parametrize("name,build,limit,where", SUBMIT_BOUNDS, ids=[b[0] for b in SUBMIT_BOUNDS])
def test_plan_submit_has_the_same_bounds(plan_session, name, build, limit, where):
    accepted(plan_session, "plan_submit", build(limit))
    refused(plan_session, "plan_submit", {**build(limit + 1), "expected_revision": 1}, where, limit)


@pytest.mark.parametrize("bad", ["", "a b", "a\x7f", "caf" + E, " a", "a\x00"])
def test_step_id_must_be_printable_ascii_without_space(session, bad):
    refused(session, "update_plan", flat(s("x"), s(bad)), "steps[1].id")


def test_step_id_edges_of_printable_ascii_are_accepted(session):
    printable = "".join(map(chr, range(0x21, 0x7F)))  # all 94, split into two ids
    accepted(session, "update_plan", flat(s(printable[:64]), s(printable[64:]), s("!"), s("~")))


def test_ids_are_unique_within_and_across_phases(session):
    refused(session, "update_plan", flat(s("a"), s("a")), "steps[1].id")
    refused(
        session,
        "update_plan",
        phased(ph("A", s("a")), ph("B", s("b"), s("a"))),
        "phases[1].steps[1].id",
    )
    accepted(session, "update_plan", phased(ph("A", s("a")), ph("B", s("b"))))


@pytest.mark.parametrize("blank", ["", "   ", "\u3000", "\u00a0 "])
def test_description_must_not_be_blank(session, blank):
    refused(
        session,
        "update_plan",
        flat(s("a"), {"id": "b", "description": blank}),
        "steps[1].description",
    )


CONTROL_CASES = [
    ("\n", lambda c: flat(*many(2), s("x", acceptance="a" + c)), "steps[2].acceptance"),
    ("\t", lambda c: flat(s("a"), explanation="tab" + c + "here"), "explanation"),
    ("\x85", lambda c: flat(s("a"), findings=["ok", "x" + c]), "findings[1]"),
    ("\x00", lambda c: flat(s("a"), objectives=[c]), "objectives[0]"),
    ("\x7f", lambda c: flat({"id": "a", "description": "d" + c}), "steps[0].description"),
    ("\x9f", lambda c: phased(ph("A", s("a")), ph("B" + c, s("b"))), "phases[1].title"),
    (
        "\x1f",
        lambda c: phased(ph("A", s("a")), ph("B", s("b", depends_on=["a" + c]))),
        "phases[1].steps[0].depends_on[0]",
    ),
    (
        "\r",
        lambda c: flat(s("a", status="completed", acceptance="ok", evidence="e" + c)),
        "steps[0].evidence",
    ),
]


@pytest.mark.parametrize("char,build,where", CONTROL_CASES, ids=[repr(c[0]) for c in CONTROL_CASES])
def test_control_characters_are_refused_anywhere(session, char, build, where):
    refused(session, "update_plan", build(char), where)


def test_text_next_to_the_control_ranges_is_accepted(session):
    accepted(
        session,
        "update_plan",
        flat({"id": "a", "description": "~ \u00a0 \u00a1 ok"}, explanation="\u00a0fine"),
    )


@pytest.mark.parametrize("status", ["done", "Completed", "PENDING", "in-progress", ""])
def test_status_must_be_exact(session, status):
    refused(session, "update_plan", flat(s("a"), s("b", status=status)), "steps[1].status")


def test_the_three_statuses_are_accepted(session):
    accepted(
        session,
        "update_plan",
        flat(s("a", status="completed"), s("b", status="in_progress"), s("c", status="pending")),
    )


def test_at_most_one_step_in_progress(session):
    accepted(session, "update_plan", flat(s("a", status="in_progress"), s("b")))
    args = flat(s("a", status="in_progress"), s("b"), s("c", status="in_progress"), rev=1)
    refused(session, "update_plan", args, "steps[2].status", 1)


@pytest.mark.parametrize(
    "deps", [["b"], ["c"], ["zz"], ["a", "b"]], ids=["self", "later", "unknown", "second"]
)
def test_depends_on_names_only_earlier_steps(session, deps):
    where = "steps[1].depends_on[1]" if len(deps) == 2 else "steps[1].depends_on[0]"
    refused(session, "update_plan", flat(s("a"), s("b", depends_on=deps), s("c")), where)


def test_depends_on_earlier_steps_is_accepted_also_across_phases(session):
    accepted(
        session,
        "update_plan",
        phased(ph("A", s("a"), s("b", depends_on=["a"])), ph("B", s("c", depends_on=["a", "b"]))),
    )


@pytest.mark.parametrize("evidence", [None, "", "   "])
def test_completed_with_acceptance_needs_evidence(session, evidence):
    step = s("a", status="completed", acceptance="tests pass")
    if evidence is not None:
        step["evidence"] = evidence
    refused(session, "update_plan", flat(s("z"), step), "steps[1].evidence")


def test_completed_with_evidence_or_without_acceptance_is_accepted(session):
    accepted(
        session,
        "update_plan",
        flat(
            s("a", status="completed", acceptance="tests pass", evidence="42 passed"),
            s("b", status="completed"),
            s("c", status="in_progress", acceptance="x"),
        ),
    )


def test_update_plan_requires_the_current_expected_revision(session):
    args = flat(s("a"))
    refused(
        session,
        "update_plan",
        {k: v for k, v in args.items() if k != "expected_revision"},
        "expected_revision",
    )
    refused(session, "update_plan", flat(s("a"), rev=1), "expected_revision")
    accepted(session, "update_plan", flat(s("a"), rev=0))
    refused(session, "update_plan", flat(s("a"), rev=0), "expected_revision")
    refused(session, "update_plan", flat(s("a"), rev=2), "expected_revision")
    accepted(session, "update_plan", flat(s("a"), rev=1))


def test_plan_submit_expected_revision_is_optional_but_checked(plan_session):
    accepted(plan_session, "plan_submit", {"steps": [s("a")]})
    refused(
        plan_session,
        "plan_submit",
        {"steps": [s("a")], "expected_revision": 0},
        "expected_revision",
    )
    accepted(plan_session, "plan_submit", {"steps": [s("a")], "expected_revision": 1})


@pytest.mark.parametrize("tool", ["update_plan", "plan_submit"])
def test_exactly_one_of_steps_and_phases(plan_session, tool):
    both = {"expected_revision": 0, "steps": [s("a")], "phases": [ph("A", s("b"))]}
    content = refused(plan_session, tool, both, "steps")
    assert "phases" in content
    content = refused(plan_session, tool, {"expected_revision": 0, "explanation": "x"}, "steps")
    assert "phases" in content


@pytest.mark.parametrize(
    "extra,where",
    [
        ({"status": "in_progress"}, "steps[1].status"),
        ({"status": "completed"}, "steps[1].status"),
        ({"evidence": "seen it"}, "steps[1].evidence"),
    ],
)
def test_proposal_steps_are_pending_without_evidence(plan_session, extra, where):
    refused(plan_session, "plan_submit", {"steps": [s("a"), s("b", **extra)]}, where)


def test_proposal_with_pending_and_null_evidence_is_accepted(plan_session):
    accepted(
        plan_session,
        "plan_submit",
        {"steps": [s("a", status="pending", evidence=None, acceptance=None, depends_on=None)]},
    )


def sized(target, proposal=False):
    """A valid input of exactly `target` bytes: maxed steps, then depends_on, then explanation."""
    steps = []
    for i in range(32):
        st = {
            "id": f"{i:02d}" + "i" * 62,
            "description": E * 120,
            "acceptance": "a" * 240,
            "depends_on": [],
        }
        if not proposal:
            st.update(status="completed", evidence="e" * 500)
        steps.append(st)
    args = {
        "expected_revision": 0,
        "explanation": "",
        "findings": ["f" * 500] * 20,
        "objectives": [E * 250] * 20,
        "steps": steps,
    }
    for later, earlier in ((j, i) for j in range(32) for i in range(j)):
        steps[later]["depends_on"].append(steps[earlier]["id"])
        if size(args) > target - 1:
            steps[later]["depends_on"].pop()
            break
    gap = target - size(args)
    assert 0 <= gap <= 500, gap
    args["explanation"] = "x" * gap
    assert size(args) == target
    return args


@pytest.mark.parametrize("tool", ["update_plan", "plan_submit"])
def test_whole_input_of_exactly_64_kib_is_accepted(plan_session, tool):
    accepted(plan_session, tool, sized(65536, proposal=tool == "plan_submit"))


@pytest.mark.parametrize("tool", ["update_plan", "plan_submit"])
def test_whole_input_one_byte_over_64_kib_is_refused(plan_session, tool):
    args = sized(65537, proposal=tool == "plan_submit")
    content = refused(plan_session, tool, args, "input", 65536, 65537)
    assert "bytes" in content


# record_decision


def decision(**fields):
    return {"title": "Use parquet", "rationale": "It is columnar.", **fields}


DECISION_BOUNDS = [
    ("title", lambda n: decision(title=text(n, E)), 120, "title"),
    ("rationale", lambda n: decision(rationale=text(n, EMOJI)), 500, "rationale"),
    ("sources-count", lambda n: decision(sources=["s"] * n), 20, "sources"),
    ("source", lambda n: decision(sources=["a", "b", "c", text(n, E)]), 500, "sources[3]"),
]


@pytest.mark.parametrize(
    "name,build,limit,where", DECISION_BOUNDS, ids=[b[0] for b in DECISION_BOUNDS]
)
def test_record_decision_bounds(session, name, build, limit, where):
    after = accepted(session, "record_decision", build(limit))
    assert after["decisions"] == [{"sources": [], **build(limit), "by": None}]
    refused(session, "record_decision", build(limit + 1), where, limit, limit + 1)


@pytest.mark.parametrize(
    "args,where",
    [
        (decision(title="  "), "title"),
        (decision(title=""), "title"),
        (decision(rationale="\u3000"), "rationale"),
        (decision(title="a\tb"), "title"),
        (decision(rationale="line\nbreak"), "rationale"),
        (decision(sources=["ok", "x\x85"]), "sources[1]"),
    ],
)
def test_record_decision_refuses_blank_and_control_text(session, args, where):
    refused(session, "record_decision", args, where)


# The one-pass check of plain input (one_pass.plain_plan) against the rules one by one.


def _mostly(common, *edges):
    """Draw `common` most of the time and one of the edge cases otherwise."""
    return st.integers(0, 15).flatmap(
        lambda n: st.sampled_from(edges) if n == 0 else st.just(common)
    )


_EDGE_TEXTS = ("  ", "\u3000", "é" * 60, "é" * 61, "d" * 240, "d" * 241, 'a"b\\c', "", 3)
_EDGE_TEXTS += ("a\nb", "tab\t", "\x7f", "é\x85", "\ud800")
# Checks at and past their bounds: not an expression, an assignment, 240 and 241 bytes.
_EDGE_CHECKS = ("x = 1", "(y := 2)", "import os", "x +", " x", "1; 2", "x" * 240, "x" * 241)
_EDGE_CHECKS += ("'" + "\U0001f600" * 59 + "'", "'" + "\U0001f600" * 60 + "'", "(yield)", None)


@st.composite
def _plans(draw):
    """Plan inputs that are mostly valid, each field now and then at or past a bound."""

    def text(common="do it", limit_chars=60):
        # Past the byte limit by characters of four bytes, one more than the one pass allows.
        edges = _EDGE_TEXTS + ("x" * limit_chars, "\U0001f600" * (limit_chars + 1), None)
        return draw(_mostly(common, *edges))

    def steps(first):
        out = []
        for i in range(draw(st.integers(0, 5))):
            ident = draw(_mostly(f"s{first + i}", "s0", "a b", "é", "i" * 64, "i" * 65, "", 7))
            step = {"id": ident, "description": text()}
            if draw(st.booleans()):
                step["status"] = draw(
                    st.sampled_from(["pending", "in_progress", "completed", "done", None])
                )
            for field, limit in (("acceptance", 60), ("evidence", 125)):
                if draw(st.booleans()):
                    step[field] = text("rows > 0", limit)
            if draw(st.booleans()):  # a check (DESIGN section 17): an expression, or not one
                step["check"] = draw(_mostly("rows > 0", *_EDGE_CHECKS, text("len(df)", 60)))
            if draw(st.booleans()):
                earlier = [f"s{n}" for n in range(first + i + 1)]
                step["depends_on"] = draw(_mostly(earlier[:-1], None, "s0", earlier, ["s9"], [1]))
            if draw(st.integers(0, 20)) == 0:
                step["extra"] = 1
            out.append(step)
        return out

    args = {}
    if draw(st.integers(0, 10)):
        args["expected_revision"] = draw(_mostly(0, None, -1, True, "0"))
    if draw(st.booleans()):
        args["steps"] = draw(_mostly(steps(0), None, [{"id": "a", "description": "x"}] * 33))
    if draw(st.booleans()) or "steps" not in args:
        count = draw(_mostly(2, 0, 9))
        args["phases"] = [{"title": text("Load", 30), "steps": steps(10 * n)} for n in range(count)]
    for field, common in (("explanation", "why"), ("findings", ["f"]), ("objectives", ["o"])):
        if draw(st.integers(0, 3)):
            args[field] = draw(_mostly(common, None, [], ["f"] * 21, ["é" * 126], "x"))
    return args


_plan_strategy = _plans()


def _by_the_rules(args, proposal):
    """The checked plan by the model and every rule one by one (no shortcut), or the
    refusal's message."""
    from jupyter_plans.plan import rules as v
    from jupyter_plans.plan.catalog import CATALOG

    try:
        check_raw(args)
        args = CATALOG["plan_submit" if proposal else "update_plan"].args.validate_python(args)
        v.check_one_shape(args)
        body, steps = v.normalize(args)
        v.check_plan_texts(body)
        v.check_phases(body)
        v.check_step_count(steps)
        v.check_step_ids(steps)
        v.check_step_texts(steps)
        if proposal:
            v.check_proposal_steps(steps)
        else:
            v.check_one_in_progress(steps)
            v.check_evidence(steps)
        v.check_dependencies(steps)
    except (v.Refused, ValidationError) as refusal:
        return str(refusal)
    return v.CheckedPlan(args.get("expected_revision"), body, frozenset(args))


def _one_pass(args, proposal):
    """plain_plan's checked plan, its refusal's message, or None (it leaves the input to the
    rules); a checked plan's stored text is checked here and then left out."""
    from pydantic_core import SchemaSerializer

    from jupyter_plans.plan import one_pass as v
    from jupyter_plans.plan.revision import build_plan
    from jupyter_plans.plan.stored import _schemas, encode_plan_body, encode_plan_event
    from jupyter_plans.plan.validation import Refused

    try:
        checked = v.plain_plan(args, proposal)
    except Refused as refusal:
        return str(refusal)
    if checked is None:
        return None
    assert checked.text == encode_plan_body(checked.body)
    event = SchemaSerializer(_schemas()[0])
    for ids in ((None, None), ('turn "1"', "call_é\\n\u2028\x7f\x1f")):
        # The event's text made around it is the event schema's serializer's, byte for byte.
        plan, _ = build_plan(checked.body, None, 7, *ids)
        data = {"name": "update_plan", "call_id": ids[1], "turn_id": ids[0], "plan": plan}
        data |= {"result": {"is_error": False, "content": 'ok "\t'}, "enforcement": "x"}
        whole = event.to_json(data, exclude_none=True, exclude_defaults=True).decode()
        result = '{"is_error":false,"content":"ok \\"\\t"}'
        assert encode_plan_event(data, checked.text, result) == whole
        assert encode_plan_event(data, None, result) == whole
    # What the size check leans on: the input's text is at most this much longer.
    size = len(json.dumps(args, ensure_ascii=False, separators=(",", ":")))
    assert size <= len(checked.text) + v._BEYOND_BODY, args
    return checked._replace(text=None)


def _agree(args, proposal):
    """Whether the one pass agrees with the rules on `args`: "plain" when it took the input,
    "refused" when it or the rules refused it, else None."""
    expected, checked = _by_the_rules(args, proposal), _one_pass(args, proposal)
    if checked is None:
        return "refused" if isinstance(expected, str) else None
    assert checked == expected, f"the one pass and the rules differ on {args!r}"
    if isinstance(checked, str):
        return "refused"
    assert json.dumps(checked.body) == json.dumps(expected.body)  # the same keys in order
    return "plain"


@settings(max_examples=600, deadline=None)
@given(args=_plan_strategy, proposal=st.booleans())
def test_the_one_pass_check_accepts_only_what_the_rules_accept_in_the_same_form(args, proposal):
    _agree(args, proposal)


def _one_edge_each(base):
    """`base` with one value replaced by an edge case, for every value and every edge."""
    texts = ("", "  ", "\u3000", "x" * 60, "\U0001f600" * 61, "d" * 240, "d" * 241)
    texts += ("x" * 125, "\U0001f600" * 126, "x" * 30, "\U0001f600" * 31, "a b", "i" * 65)
    texts += ("a\nb", "\x7f", "é\x9f", *_EDGE_CHECKS[:-1])
    edges = (*texts, None, 0, -1, True, 3.0, [], ["s0"], ["s9"], ["a"], ["f"] * 21, "done")
    edges += ("in_progress", "completed", "pending", "x" + "\U0001f600" * 60, "s0")
    many = [s(f"m{i}") for i in range(33)]
    edges += (many, [ph(None, *many[:17]), ph(None, *many[17:])], [ph(None)] * 9)
    edges += ([s("a", status="in_progress"), s("b", status="in_progress")],)

    def walk(value, at):
        yield at
        if isinstance(value, dict | list):
            for key, child in value.items() if isinstance(value, dict) else enumerate(value):
                yield from walk(child, (*at, key))

    for at in list(walk(base, ()))[1:]:
        for edge in edges:
            args = json.loads(json.dumps(base))
            *parent, last = at
            holder = args
            for key in parent:
                holder = holder[key]
            holder[last] = edge
            yield args
    for at in walk(base, ()):  # and a field no record has, in each record
        args = json.loads(json.dumps(base))
        holder = args
        for key in at:
            holder = holder[key]
        if isinstance(holder, dict):
            holder["priority"] = "high"
            yield args


_BASE_PLAN = {
    "expected_revision": 0,
    "explanation": "why",
    "findings": ["found"],
    "objectives": ["goal"],
    "phases": [
        {"title": "Load", "steps": [s("s0"), s("s1", depends_on=["s0"], status="pending")]},
        {"title": None, "steps": [s("s2", acceptance="rows > 0", evidence=None, check="n > 0")]},
    ],
}
# The same plan, as an update: its last step done, with the evidence its acceptance asks for.
_DONE = s("s2", acceptance="rows > 0", evidence="counted", status="completed", check="n > 0")
_BASE_UPDATE = {**_BASE_PLAN, "phases": [_BASE_PLAN["phases"][0], ph(None, _DONE)]}


@pytest.mark.parametrize("proposal", [False, True])
def test_the_one_pass_agrees_with_the_rules_on_every_single_edge(proposal):
    phased_base = _BASE_PLAN if proposal else _BASE_UPDATE
    every_step = [step for phase in phased_base["phases"] for step in phase["steps"]]
    flat_base = {**phased_base, "phases": None, "steps": every_step}
    seen = {"plain": 0, "refused": 0, None: 0}
    for base in (phased_base, flat_base):
        for args in _one_edge_each(base):
            seen[_agree(args, proposal)] += 1
    assert seen["plain"] > 50 and seen["refused"] > 50, seen


@pytest.mark.parametrize("proposal", [False, True])
def test_the_one_pass_measures_the_input_as_the_rules_do_at_the_size_limit(proposal):
    """The largest inputs the one pass takes: 32 steps of 64-character ids in 8 phases, each
    naming every earlier step, texts of four-byte characters, every default spelled out. The
    limit is crossed by the last step's dependencies, one at a time."""
    wide = "\U0001f600"

    def args_with(objectives: int, deps_of_last: int) -> dict:
        ids = [f"{n:02d}" + "i" * 62 for n in range(32)]
        steps = [
            {
                "id": ident,
                "description": "d" + wide * 59,  # the one pass asks for a visible ASCII
                "status": "pending",
                "acceptance": wide * 60,
                "depends_on": ids[:n] if n < 31 else ids[:deps_of_last],
                "evidence": None,
            }
            for n, ident in enumerate(ids)
        ]
        phases = [{"title": wide * 30, "steps": steps[n * 4 : n * 4 + 4]} for n in range(8)]
        return {
            "expected_revision": -(2**63),
            "explanation": wide * 125,
            "findings": [wide * 125] * 20,
            "objectives": [wide * 125] * objectives,
            "phases": phases,
        }

    def size(args):
        return len(json.dumps(args, ensure_ascii=False, separators=(",", ":")).encode())

    limit = 65536
    objectives = next(n for n in range(21) if size(args_with(n, 31)) > limit)
    assert size(args_with(objectives, 0)) <= limit  # the window holds the limit
    seen = set()
    for deps in range(32):
        args = args_with(objectives, deps)
        checked = _one_pass(args, proposal)
        assert checked == _by_the_rules(args, proposal)
        seen.add("refused" if isinstance(checked, str) else "plain")
    assert seen == {"plain", "refused"}


def test_the_input_over_its_stored_body_is_within_the_margin_the_size_check_allows():
    """Every default spelled out, in as many steps and phases as allowed, and the longest
    expected_revision the one pass takes: its text exceeds the body's stored text by at most
    _BEYOND_BODY, and by nearly that (the margin is not loose)."""
    from jupyter_plans.plan import one_pass as v

    steps = [
        {
            "id": f"s{n}",
            "description": "d",
            "status": "pending",
            "acceptance": None,
            "depends_on": [],
            "evidence": None,
            "check": None,
        }
        for n in range(32)
    ]
    phases = [{"title": None, "steps": steps[n * 4 : n * 4 + 4]} for n in range(8)]
    args = {
        "expected_revision": -(2**63),
        "explanation": None,
        "findings": [],
        "objectives": [],
        "phases": phases,
        "steps": None,
    }
    checked = v.plain_plan(args, proposal=False)
    over = len(json.dumps(args, separators=(",", ":"))) - len(checked.text)
    assert v._BEYOND_BODY - 20 <= over <= v._BEYOND_BODY


def test_a_plain_plan_takes_the_one_pass_and_keeps_none_of_the_callers_lists():
    from jupyter_plans.plan.one_pass import plain_plan

    depends = ["a"]
    args = flat(s("a"), s("b", depends_on=depends, status="in_progress"), findings=["f"])
    checked = plain_plan(args, proposal=False)
    assert checked is not None and checked.body["phases"][0]["steps"][1]["depends_on"] == ["a"]
    depends.append("c")
    args["findings"].append("g")
    assert checked.body["phases"][0]["steps"][1]["depends_on"] == ["a"]
    assert checked.body["findings"] == ["f"]


def test_an_agents_large_plan_takes_the_one_pass_and_the_byte_limits_hold_in_it():
    """Long texts within their limits take the one pass, so the largest plans agents keep
    (32 steps of 80-byte descriptions) cost one pass; at the byte limit it still agrees with
    the rules, in ASCII and in characters of two and four bytes."""
    from jupyter_plans.plan import one_pass as v

    steps = [
        {
            "id": f"s{n}",
            "description": f"Carry out part {n} of the analysis and compare it with the notes",
            "status": "completed" if n < 5 else "pending",
            "acceptance": "No missing values" if n % 3 == 0 else None,
            "depends_on": [f"s{n - 1}"] if n % 3 == 1 else [],
            "evidence": "0 missing" if n % 3 == 0 and n < 5 else None,
        }
        for n in range(32)
    ]
    assert v.plain_plan({"expected_revision": 0, "steps": steps}, proposal=False) is not None
    for text, fits in (
        ("d" * 240, True),
        ("d" * 241, False),
        ("d" + "é" * 119 + "x", True),  # 240 bytes
        ("d" + "é" * 120, False),  # 241 bytes in 121 characters
        ("d" + "\U0001f600" * 59 + "xyz", True),  # 240 bytes
        ("d" + "\U0001f600" * 60, False),  # 241 bytes in 61 characters
    ):
        args = {"expected_revision": 0, "steps": [{"id": "a", "description": text}]}
        taken = v.plain_plan(args, proposal=False)
        assert (taken is not None) == fits, (len(text.encode()), taken)
        assert _agree(args, False) == ("plain" if fits else "refused")


@pytest.mark.parametrize(
    "text",
    [
        '{"expected_revision": 3, "steps": [{"id": "a", "description": "Load"}]}',
        '{"a": 1, "a": 2}',  # the last of a repeated key, as the standard library keeps
        '{"a": 123456789012345678901234567890}',  # a big number stays an exact int
        '{"a": "\\ud800"}',  # a lone surrogate's escape: the standard library reads it
        '{"a": "\ud800"}',  # and text holding one itself
        "\ud800",
        '{"a": "\\ud83d\\ude00", "b": 1e400, "c": -0.0, "d": 5e-324}',
        '{"a": 1} trailing',  # no JSON: refused, saying why
        "[" * 5000 + "]" * 5000,  # too deep for either: refused
        '{"a": "caf\u00e9"}'.encode("utf-16"),  # another encoding than UTF-8
    ],
)
def test_json_text_is_read_once_to_what_the_standard_library_reads(text):
    from jupyter_plans.plan.validation import Refused, read_json

    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):  # no JSON: refused in one line, as before
        with pytest.raises(Refused) as refused:
            read_json(text)
        assert (
            "\n" not in str(refused.value)
            and "JSON" in str(refused.value)
            or ("nested too deeply" in str(refused.value))
        )
        return
    found = read_json(text)
    assert found == expected and type(found) is type(expected)
