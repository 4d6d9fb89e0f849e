"""DESIGN sections 3, 4 and 5 (exact) through the Python API: proposals, decisions, turns,
idempotency, reopening, shapes, the queue and the event log."""

from __future__ import annotations

import hashlib
import itertools
import json

import pytest

from jupyter_plans import DecisionRefused
from jupyter_plans.plan.who import local_person

# Who decides through the Python API without `by=`: this process's person (DESIGN section 12).
API = {"name": local_person(), "via": "api"}

_ids = itertools.count(1)


def s(step_id, **fields):
    return {"id": step_id, "description": f"do {step_id}", **fields}


PROPOSAL = {
    "explanation": "Clean the café data before modelling",
    "findings": ["dates are strings", "Übersicht sheet is empty"],
    "objectives": ["a tidy frame"],
    "phases": [
        {"title": "Load", "steps": [s("load", acceptance="df.shape printed")]},
        {
            "title": None,
            "steps": [s("clean", depends_on=["load"]), s("plot", depends_on=["clean"])],
        },
    ],
}


def call(session, name, args, turn_id="t1", call_id=None):
    return session.call_tool(name, args, turn_id=turn_id, call_id=call_id or f"c{next(_ids)}")


def ok(session, name, args, **kw):
    result = call(session, name, args, **kw)
    assert result.is_error is False, result.content
    return result


def dump(session):
    return session.snapshot().model_dump(mode="json")


def rev(session):
    plan = dump(session)["plan"]
    return plan["revision"] if plan else 0


def update(session, steps=None, phases=None, **kw):
    args = {"expected_revision": rev(session), **kw}
    args.update({"steps": steps} if phases is None else {"phases": phases})
    return ok(session, "update_plan", args)


def body_hash(args):
    """DESIGN sections 3 and 17, computed here independently from the input."""
    if args.get("steps") is not None:
        phases = [{"title": None, "steps": args["steps"]}] if args["steps"] else []
    else:
        phases = args["phases"]
    body = {
        "explanation": args.get("explanation"),
        "findings": args.get("findings") or [],
        "objectives": args.get("objectives") or [],
        "phases": [
            {
                "title": p.get("title"),
                "steps": [
                    {
                        "id": st["id"],
                        "description": st["description"],
                        "acceptance": st.get("acceptance"),
                        "depends_on": st.get("depends_on") or [],
                        "check": st.get("check"),
                    }
                    for st in p["steps"]
                ],
            }
            for p in phases
        ],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def submitted(session, args=PROPOSAL):
    """Enter plan mode if needed, submit, and return the independently computed hash."""
    args = {"explanation": "why", "findings": [], "objectives": [], **args}
    if dump(session)["mode"] != "plan":
        session.on()
    ok(session, "plan_submit", args)
    return body_hash(args)


def kinds(events):
    return [e.kind for e in events]


def assert_refused(session, verb, *args):
    before, cursor = dump(session), session.snapshot().cursor
    with pytest.raises(DecisionRefused) as info:
        getattr(session, verb)(*args)
    message = str(info.value)
    assert message.strip() and "\n" not in message
    assert dump(session) == before and session.events(after=cursor) == []
    return message


# Section 3: plan_submit and the proposal hash.


def test_plan_submit_is_refused_outside_plan_mode(session):
    result = call(session, "plan_submit", PROPOSAL)
    assert result.is_error and "\n" not in result.content
    assert kinds(session.events()) == ["tool_finished"]
    assert dump(session)["plan"] is None and dump(session)["pending_proposal_hash"] is None


@pytest.mark.parametrize("missing", ["explanation", "findings", "objectives"])
def test_plan_submit_requires_its_text_fields(session, missing):
    session.on()
    before = dump(session)
    result = call(session, "plan_submit", {k: v for k, v in PROPOSAL.items() if k != missing})
    assert result.is_error and missing in result.content and "\n" not in result.content
    assert kinds(session.events(after=before["cursor"])) == ["tool_finished"]
    assert {**dump(session), "cursor": 0} == {**before, "cursor": 0}


def test_submit_stores_the_proposal_and_hashes_its_text(session):
    session.on()
    cursor = session.snapshot().cursor
    result = ok(session, "plan_submit", PROPOSAL)
    digest = body_hash(PROPOSAL)
    snap = dump(session)
    assert snap["pending_proposal_hash"] == digest and snap["mode"] == "plan"
    assert snap["plan"]["revision"] == 1
    assert {st["status"] for st in snap["plan"]["steps"]} == {"pending"}
    assert "wait" in result.content.lower()
    new = session.events(after=cursor)
    assert kinds(new) == ["plan_updated", "proposal_submitted"]
    assert new[0].data["name"] == "plan_submit"
    assert new[1].data == {"hash": digest, "revision": 1}


def test_statuses_and_evidence_do_not_change_the_hash(session):
    digest = submitted(session)
    steps = [
        s("load", acceptance="df.shape printed", status="completed", evidence="(10, 3)"),
        s("clean", depends_on=["load"], status="in_progress"),
        s("plot", depends_on=["clean"]),
    ]
    update(
        session,
        phases=[{"title": "Load", "steps": steps[:1]}, {"title": None, "steps": steps[1:]}],
        **{k: PROPOSAL[k] for k in ("explanation", "findings", "objectives")},
    )
    assert dump(session)["pending_proposal_hash"] == digest
    assert session.approve(digest).approved_proposal_hash == digest


# Section 4: the decision verbs.


@pytest.mark.parametrize("by_hash", [False, True])
def test_approve_clears_the_wait_and_tells_the_agent(session, by_hash):
    digest = submitted(session)
    cursor = session.snapshot().cursor
    snap = session.approve(digest if by_hash else None).model_dump(mode="json")
    assert snap["pending_proposal_hash"] is None and snap["approved_proposal_hash"] == digest
    assert snap["mode"] == "default" and dump(session) == snap
    new = session.events(after=cursor)
    decided = [e.data for e in new if e.kind == "decision"]
    assert decided == [{"action": "approved", "hash": digest, "by": API}]
    assert kinds(new).index("decision") < kinds(new).index("mode_changed")
    notices = [m for m in session.waiting_messages()]
    assert len(notices) == 1 and notices[0].source != "person"
    assert "do clean" in notices[0].text
    assert [m.text for m in session.deliver()] == [notices[0].text]


def test_approve_refusals_change_nothing(session):
    assert_refused(session, "approve")
    first = submitted(session)
    assert_refused(session, "approve", first[:12])
    assert_refused(session, "approve", first[:-1])
    assert_refused(session, "approve", first.upper())
    assert_refused(session, "approve", "0" * 64)
    second = submitted(session, {**PROPOSAL, "explanation": "reworded"})
    assert second != first
    assert_refused(session, "approve", first)
    assert session.approve(second).approved_proposal_hash == second
    assert_refused(session, "approve")


def test_agent_update_after_submit_blocks_approval_until_resubmitted(session):
    submitted(session)
    update(session, steps=[s("load"), s("extra")])
    assert_refused(session, "approve")
    digest = submitted(session, {"steps": [s("load"), s("extra")]})
    assert session.approve(digest).mode == "default"


def test_on_drops_a_waiting_proposal(session):
    digest = submitted(session)
    cursor = session.snapshot().cursor
    snap = session.on()
    assert snap.pending_proposal_hash is None and snap.mode == "plan"
    new = session.events(after=cursor)
    assert [(e.kind, e.data) for e in new] == [
        ("decision", {"action": "dropped", "hash": digest, "by": API})
    ]
    assert_refused(session, "approve")


def test_on_and_off_are_idempotent(session):
    assert session.on().mode == "plan"
    assert [(e.kind, e.data) for e in session.events()] == [
        ("mode_changed", {"mode": "plan", "by": API})
    ]
    cursor = session.snapshot().cursor
    session.on()
    assert session.events(after=cursor) == []
    assert session.off().mode == "default"
    assert kinds(session.events(after=cursor)) == ["mode_changed"]
    cursor = session.snapshot().cursor
    session.off()
    assert "mode_changed" not in kinds(session.events(after=cursor))
    assert session.snapshot().mode == "default"


def test_revise_queues_the_notes_as_the_persons_words(session):
    assert_refused(session, "revise", "more tests please")
    digest = submitted(session)
    cursor = session.snapshot().cursor
    snap = session.revise("more tests please")
    assert snap.pending_proposal_hash is None and snap.mode == "plan"
    new = session.events(after=cursor)
    assert new[0].kind == "decision" and new[0].data == {
        "action": "changes_requested",
        "hash": digest,
        "by": API,
    }
    assert "mode_changed" not in kinds(new)
    assert [(m.source, m.text) for m in session.deliver()] == [("person", "more tests please")]
    assert_refused(session, "revise", "again")


def test_off_leaves_the_proposal_and_cancels_the_newest_turn(session):
    session.on()
    ok(session, "update_plan", {"expected_revision": 0, "steps": [s("a")]}, turn_id="t1")
    ok(session, "plan_submit", PROPOSAL, turn_id="t2")
    cursor = session.snapshot().cursor
    snap = session.off()
    assert snap.mode == "default" and snap.pending_proposal_hash is None
    new = session.events(after=cursor)
    assert [(e.kind, e.data) for e in new if e.kind != "mode_changed"] == [
        ("decision", {"action": "left", "hash": body_hash(PROPOSAL), "by": API}),
        ("turn_cancelled", {"turn_id": "t2"}),
    ]
    assert kinds(new).index("decision") < kinds(new).index("mode_changed")
    late = call(session, "update_plan", {"expected_revision": 2, "steps": []}, turn_id="t2")
    assert late.is_error and "late" in late.content.lower()
    ok(session, "update_plan", {"expected_revision": 2, "steps": []}, turn_id="t3")


def test_a_call_from_an_older_turn_is_late(session):
    ok(session, "update_plan", {"expected_revision": 0, "steps": [s("a")]}, turn_id="t1")
    ok(session, "update_plan", {"expected_revision": 1, "steps": [s("b")]}, turn_id="t2")
    before, cursor = dump(session), session.snapshot().cursor
    late = call(session, "update_plan", {"expected_revision": 2, "steps": [s("c")]}, turn_id="t1")
    assert late.is_error and "late" in late.content.lower() and "\n" not in late.content
    assert kinds(session.events(after=cursor)) == ["tool_finished"]
    assert {**dump(session), "cursor": 0} == {**before, "cursor": 0}
    ok(session, "update_plan", {"expected_revision": 2, "steps": [s("c")]}, turn_id=None)
    session.off()
    ok(session, "update_plan", {"expected_revision": 3, "steps": [s("d")]}, turn_id=None)
    ok(session, "update_plan", {"expected_revision": 4, "steps": [s("e")]}, turn_id="t3")


def test_a_repeated_call_id_returns_the_recorded_result(session):
    args = {"expected_revision": 0, "steps": [s("a")]}
    first = ok(session, "update_plan", args, call_id="k1")
    ok(session, "update_plan", {"expected_revision": 1, "steps": [s("b")]}, turn_id="t9")
    before = dump(session)
    # The same call again, whatever its turn (t1 is now late): the recorded result, no event.
    assert call(session, "update_plan", args, turn_id="t1", call_id="k1") == first
    assert call(session, "update_plan", args, turn_id=None, call_id="k1") == first
    assert dump(session) == before
    assert session.events(after=before["cursor"]) == []
    # Another call under the same id is refused: a reused id never drops a call silently.
    for name, other in [
        ("update_plan", {"expected_revision": 2, "steps": [s("c")]}),
        ("update_plan", {"nonsense": True}),
        ("plan_submit", PROPOSAL),
        ("record_decision", {"title": "T", "rationale": "R"}),
    ]:
        refused = call(session, name, other, turn_id=None, call_id="k1")
        assert refused.is_error and "'k1' was already used for a different call" in refused.content
    assert dump(session)["plan"] == before["plan"]
    assert kinds(session.events(after=before["cursor"])) == ["tool_finished"] * 4


def test_a_refused_call_id_may_be_retried(session):
    bad = call(session, "update_plan", {"expected_revision": 5, "steps": [s("a")]}, call_id="k2")
    assert bad.is_error
    good = call(session, "update_plan", {"expected_revision": 0, "steps": [s("a")]}, call_id="k2")
    assert not good.is_error and dump(session)["plan"]["call_id"] == "k2"


@pytest.mark.parametrize(
    ("ids", "error", "message"),
    [
        ({"call_id": 7}, TypeError, "call_id must be a string or None; found int"),
        ({"turn_id": b"t1"}, TypeError, "turn_id must be a string or None; found bytes"),
        (
            {"call_id": "call_\ud800x"},
            ValueError,
            "call_id contains a lone surrogate U+D800 at character 5; an id must be valid Unicode",
        ),
        (
            {"turn_id": "é\udfff"},
            ValueError,
            "turn_id contains a lone surrogate U+DFFF at character 1; an id must be valid Unicode",
        ),
    ],
)
def test_a_turn_or_call_id_that_is_not_text_is_refused_in_one_line(session, ids, error, message):
    before = dump(session)
    with pytest.raises(error) as refused:
        session.call_tool("update_plan", {"expected_revision": 0, "steps": [s("a")]}, **ids)
    assert str(refused.value) == message
    assert dump(session) == before and session.events() == []
    # Text that is not ASCII is an id like any other.
    ok(session, "update_plan", {"expected_revision": 0, "steps": [s("a")]}, call_id="appel-é-1")
    assert dump(session)["plan"]["call_id"] == "appel-é-1"


# Section 2: reopening and shapes.


def done(step_id, deps=()):
    return s(step_id, status="completed", acceptance="ok", evidence="seen", depends_on=list(deps))


def test_reopening_a_step_reopens_its_completed_dependents(session):
    update(session, steps=[done("a"), done("b", ["a"]), done("c", ["b"]), done("d")])
    result = update(
        session, steps=[s("a", acceptance="ok"), done("b", ["a"]), done("c", ["b"]), done("d")]
    )
    steps = {st["id"]: st for st in dump(session)["plan"]["steps"]}
    assert [(steps[i]["status"], steps[i]["evidence"]) for i in "bc"] == [("pending", None)] * 2
    assert steps["d"]["status"] == "completed" and steps["d"]["evidence"] == "seen"
    assert "b" in result.content and "c" in result.content and "'d'" not in result.content


def test_reopening_is_transitive_through_a_pending_step(session):
    update(session, steps=[done("a"), done("bb", ["a"]), done("cc", ["bb"])])
    result = update(
        session, steps=[s("a", status="in_progress"), s("bb", depends_on=["a"]), done("cc", ["bb"])]
    )
    cc = dump(session)["plan"]["steps"][2]
    assert (cc["status"], cc["evidence"]) == ("pending", None)
    assert "cc" in result.content


def test_empty_steps_clear_the_plan_and_advance_the_revision(session):
    update(session, steps=[s("a")])
    update(session, steps=[])
    plan = dump(session)["plan"]
    assert plan["revision"] == 2 and plan["phases"] == [] and plan["steps"] == []


def test_flat_plan_and_absent_optional_fields(session):
    update(session, steps=[s("a")], explanation="first", findings=["f"], objectives=["o"])
    update(session, steps=[s("a"), s("b", depends_on=["a"])])
    plan = dump(session)["plan"]
    assert (plan["explanation"], plan["findings"], plan["objectives"]) == (None, [], [])
    assert plan["phases"] == [{"title": None, "steps": plan["steps"]}]
    assert plan["steps"][0] == {
        "id": "a",
        "description": "do a",
        "status": "pending",
        "acceptance": None,
        "depends_on": [],
        "evidence": None,
        "check": None,
    }


def test_a_snapshot_can_be_sent_back_as_it_is(session):
    update(
        session, phases=[{"title": "A", "steps": [done("a")]}, {"title": None, "steps": [s("b")]}]
    )
    plan = dump(session)["plan"]
    update(session, phases=plan["phases"])
    update(session, steps=dump(session)["plan"]["steps"])
    again = dump(session)["plan"]
    assert again["steps"] == plan["steps"] and again["revision"] == 3


def test_snapshot_shape_and_a_new_session(session):
    snap = dump(session)
    assert snap == {
        "session_id": "s",
        "cursor": 0,
        "mode": "default",
        "pending_proposal_hash": None,
        "approved_proposal_hash": None,
        "plan": None,
        "decisions": [],
        "cells": {},
        "comments": [],
        "checks": {},
        "agent_mode": None,
    }
    update(session, steps=[s("a")])
    ok(session, "record_decision", {"title": "T", "rationale": "R"})
    snap = dump(session)
    assert set(snap) == {
        "session_id",
        "cursor",
        "mode",
        "pending_proposal_hash",
        "approved_proposal_hash",
        "plan",
        "decisions",
        "cells",
        "comments",
        "checks",
        "agent_mode",
    }
    assert set(snap["plan"]) == {
        "revision",
        "turn_id",
        "call_id",
        "explanation",
        "findings",
        "objectives",
        "phases",
        "steps",
    }
    assert snap["decisions"] == [{"title": "T", "rationale": "R", "sources": [], "by": None}]


def test_seq_is_gap_free_and_the_cursor_is_the_last_seq(session):
    submitted(session)
    session.revise("shorter")
    call(session, "update_plan", {"steps": []})
    submitted(session)
    session.approve()
    session.deliver()
    session.off()
    events = session.events()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert session.snapshot().cursor == len(events)
    assert [e.seq for e in session.events(after=3)] == list(range(4, len(events) + 1))
    updates = [e for e in events if e.kind == "plan_updated"]
    assert updates[-1].data["plan"] == dump(session)["plan"]
    assert updates[-1].data["enforcement"] == "session-metadata-only"


# Section 4: the person's edit, and the queue while a proposal waits.


def test_person_edit_moves_the_wait_and_tells_the_agent(session):
    first = submitted(session, {"steps": [s("load"), s("clean"), s("plot")]})
    steps = [s("load"), {"id": "clean", "description": "drop empty rows"}, s("save")]
    edited = {"explanation": "why", "findings": [], "objectives": [], "steps": steps}
    session.edit_plan({"expected_revision": rev(session), **edited})
    digest = body_hash(edited)
    snap = dump(session)
    assert snap["pending_proposal_hash"] == digest != first
    assert {"hash": digest, "revision": snap["plan"]["revision"]} in [
        e.data for e in session.events() if e.kind == "proposal_submitted"
    ]
    told = [m for m in session.waiting_messages() if m.source != "person"]
    assert len(told) == 1
    for word in ("clean", "drop empty rows", "save", "plot"):
        assert word in told[0].text
    assert_refused(session, "approve", first)
    assert session.approve(digest).approved_proposal_hash == digest


def test_only_the_persons_words_pass_while_a_proposal_waits(session):
    session.queue_message("auto one", source="automatic")
    submitted(session)
    session.queue_message("auto two", source="automatic")
    session.queue_message("a question", source="person")
    assert [(m.source, m.text) for m in session.deliver()] == [("person", "a question")]
    assert [m.text for m in session.waiting_messages()] == ["auto one", "auto two"]
    assert session.deliver() == []
    session.approve()
    texts = [m.text for m in session.deliver()]
    assert texts[:2] == ["auto one", "auto two"] and len(texts) == 3
    assert session.waiting_messages() == []
