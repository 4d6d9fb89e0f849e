"""The scripted agent and the mode guard: the shipped scripts end to end through the person's
real verbs, determinism, the delivery filter, cancellation mid-turn, and refused scripts."""

from __future__ import annotations

import json

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.agents import ScriptedAgent, ScriptError, load_script, shipped_scripts
from jupyter_plans.plan.catalog import RESERVED_NAMES
from jupyter_plans.plan.policy import guard_refusal

NOTES = (
    "Flag the TEST responses instead of deleting them, keep each respondent's latest answer, "
    "and keep the comments"
)


def lines(transcript):
    return str(transcript).splitlines()


def dump(session):
    return session.snapshot().model_dump(mode="json")


def statuses(session):
    return {step["id"]: step["status"] for step in dump(session)["plan"]["steps"]}


def kinds(session, after=0):
    return [event.kind for event in session.events(after=after)]


def flat(events):
    """Events as compared between runs: everything but the time."""
    return [(e.seq, e.kind, e.data) for e in events]


# The guard.


@pytest.mark.parametrize("risk", ["read", "write", "execute"])
@pytest.mark.parametrize("mode", ["default", "plan"])
@pytest.mark.parametrize("waiting", [False, True])
def test_guard_matrix(risk, mode, waiting):
    reason = guard_refusal("some_tool", risk, mode, waiting)
    if risk == "read" or (mode == "default" and not waiting):
        assert reason is None
        return
    assert reason and "\n" not in reason
    assert "some_tool" in reason and risk in reason
    # Why, and what to do instead.
    assert "plan mode" in reason or "decision" in reason
    assert "read tools" in reason and "plan_submit" in reason


@pytest.mark.parametrize("name", RESERVED_NAMES)
@pytest.mark.parametrize("risk", ["read", "write", "execute"])
def test_guard_refuses_reserved_names_whatever_the_risk(name, risk):
    reason = guard_refusal(name, risk, "default", False)
    assert reason and "\n" not in reason and name in reason and "reserved" in reason


@pytest.mark.parametrize("risk", ["delete", "READ", "", None, "network"])
def test_guard_refuses_an_unknown_risk_and_names_the_allowed_ones(risk):
    reason = guard_refusal("fetch", risk, "default", False)
    assert reason and "\n" not in reason and "fetch" in reason
    assert repr(risk) in reason and "read, write or execute" in reason


def test_guard_reason_stays_one_line_for_a_hostile_name():
    reason = guard_refusal("rm\nrf", "write", "plan", False)
    assert reason and "\n" not in reason
    assert guard_refusal("", "read", "plan", False)


# The shipped scripts, end to end.


def test_shipped_scripts_are_listed_and_load():
    assert shipped_scripts() == [
        "checked-prices",
        "data-cleaning",
        "order-months",
        "review-with-comments",
        "teaching-demo",
    ]
    for name in shipped_scripts():
        script = load_script(name)
        assert script.name == name and script.task and script.description


def test_data_cleaning_end_to_end(session):
    agent = ScriptedAgent.load("data-cleaning", session)
    assert agent.waiting_for == "message" and not agent.done
    assert agent.run() == [] and agent.waiting_for == "message"  # nothing to act on yet

    session.start_planning(agent.script.task)
    first = lines(agent.run())
    assert first[0] == f"you: {agent.script.task}"
    assert first[-1] == "agent waits for your decision"
    assert agent.waiting_for == "decision" and not agent.done
    reads = [line for line in first if line.startswith("agent calls") and "-> ok:" in line]
    assert len(reads) == 4 and any(
        "profile_table" in line and "212 nulls" in line for line in reads
    )
    [write] = [line for line in first if "write_file" in line]
    assert write.startswith('agent calls write_file(path="data/sales_clean.csv") -> refused: ')
    assert "plan mode" in write and "plan_submit" in write
    assert any(line.startswith("agent calls plan_submit -> accepted:") for line in first)

    snap = dump(session)
    proposal = snap["pending_proposal_hash"]
    assert snap["mode"] == "plan" and proposal and snap["decisions"] == []
    plan = snap["plan"]
    assert plan["revision"] == 1 and plan["turn_id"] == "research"
    assert plan["call_id"] == "data-cleaning-research-8"
    assert [p["title"] for p in plan["phases"]] == ["Clean the orders", "Baseline"]
    assert len(plan["steps"]) == 6 and set(statuses(session).values()) == {"pending"}
    assert sum(step["acceptance"] is not None for step in plan["steps"]) == 4
    assert plan["steps"][4]["depends_on"] == [
        "parse-dates",
        "drop-duplicates",
        "fix-regions",
        "fill-amounts",
    ]

    cursor = snap["cursor"]
    assert agent.run() == [] and session.cursor() == cursor  # still waiting: nothing happens

    session.approve()
    second = lines(agent.run())
    assert second[:2] == [
        "you approved the proposal",
        f"notice: The person approved your proposal {proposal[:12]} (revision 1). (+8 more lines)",
    ]
    assert second[-1] == "agent has finished its script"
    assert not any("-> refused" in line for line in second)
    assert any(
        line.startswith('agent calls write_file(path="data/monthly_revenue') for line in second
    )
    assert agent.done and agent.waiting_for is None

    snap = dump(session)
    assert snap["mode"] == "default" and snap["pending_proposal_hash"] is None
    assert snap["approved_proposal_hash"] == proposal
    assert snap["plan"]["revision"] == 13 and snap["plan"]["turn_id"] == "work"
    for step in snap["plan"]["steps"]:
        assert step["status"] == "completed"
        assert (step["evidence"] is not None) >= (step["acceptance"] is not None)
    assert [d["title"] for d in snap["decisions"]] == [
        "Returns stay in revenue as negative amounts"
    ]

    # Every plan change went through the tool dispatch under the script's turn and call ids.
    updates = [e.data for e in session.events() if e.kind == "plan_updated"]
    assert [u["name"] for u in updates] == ["plan_submit"] + ["update_plan"] * 12
    assert {u["turn_id"] for u in updates[1:]} == {"work"}
    assert all(u["call_id"].startswith("data-cleaning-work-") for u in updates[1:])
    assert len({u["call_id"] for u in updates}) == 13
    assert agent.run() == []


def test_teaching_demo_end_to_end(session):
    agent = ScriptedAgent.load("teaching-demo", session)
    session.start_planning(agent.script.task)
    first = lines(agent.run())
    refused = [line for line in first if "-> refused:" in line]
    assert [line.split("(")[0] for line in refused] == [
        "agent calls write_file",
        "agent calls run_cell",
    ]
    assert "is a write tool" in refused[0] and "is an execute tool" in refused[1]
    assert first[-1] == "agent waits for your decision"
    first_proposal = dump(session)["pending_proposal_hash"]
    assert "drop-test" in statuses(session)

    session.revise(NOTES)
    second = lines(agent.run())
    assert second[:2] == ["you asked for changes", f"you: {NOTES}"]
    assert second[-1] == "agent waits for your decision"
    snap = dump(session)
    assert snap["mode"] == "plan" and snap["plan"]["revision"] == 2
    assert snap["pending_proposal_hash"] not in (None, first_proposal)
    changes = session.proposal_changes()
    assert [s["id"] for s in changes["added"]] == ["flag-test", "comments"]
    assert [s["id"] for s in changes["removed"]] == ["drop-test"]
    assert [r["id"] for r in changes["reworded"]] == ["dedupe", "chart"]

    session.approve()
    third = lines(agent.run())
    assert third[0] == "you approved the proposal"
    stale = [line for line in third if "-> refused" in line]
    assert stale == [
        "agent calls update_plan (load: completed) -> refused: expected_revision is 1 but the "
        "session is at revision 3; read the plan again and resend it against the current revision"
    ]
    retry = third.index(stale[0]) + 2
    assert third[retry] == (
        "agent calls update_plan (load: completed) -> accepted: Plan updated to revision 4."
    )
    assert third[-1] == "agent has finished its script" and agent.done
    snap = dump(session)
    assert snap["mode"] == "default" and snap["plan"]["revision"] == 6
    assert statuses(session) == {
        "load": "completed",
        "flag-test": "pending",
        "dedupe": "pending",
        "scale": "completed",
        "comments": "pending",
        "chart": "pending",
    }
    assert kinds(session).count("tool_finished") == 1  # the stale update, and nothing else


def test_teaching_demo_approved_at_once_skips_the_turn_for_notes(session):
    agent = ScriptedAgent.load("teaching-demo", session)
    session.start_planning(agent.script.task)
    agent.run()
    session.approve()
    out = lines(agent.run())
    assert "agent skips turn 'revise', for your notes on the proposal" in out
    assert any("expected_revision is 1 but the session is at revision 2" in line for line in out)
    assert not any("not in the current plan" in line for line in out)
    assert agent.done and statuses(session)["scale"] == "completed"


# Determinism.


def play(script, session):
    agent = ScriptedAgent.load(script, session)
    session.start_planning(agent.script.task)
    agent.run()
    if script == "teaching-demo":
        session.revise(NOTES)
        agent.run()
    session.approve()
    agent.run()
    assert agent.done
    return str(agent.transcript)


@pytest.mark.parametrize("script", ["data-cleaning", "teaching-demo"])
def test_two_fresh_runs_are_identical(tmp_path, script):
    runs = []
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        with PlanStore(tmp_path / folder / "nb.plans.sqlite") as store:
            session = store.session("default")
            runs.append((play(script, session), flat(session.events()), dump(session)))
    (text_one, events_one, snap_one), (text_two, events_two, snap_two) = runs
    assert text_one.encode() == text_two.encode()
    assert events_one == events_two and snap_one == snap_two
    assert "0x" not in text_one and str(tmp_path) not in text_one


# The delivery filter.


def test_automatic_work_waits_for_the_decision_in_a_shipped_script(session):
    agent = ScriptedAgent.load("data-cleaning", session)
    session.start_planning(agent.script.task)
    agent.run()
    queued = session.queue_message("The nightly refresh of sales.csv finished", "automatic")
    assert agent.run() == [] and agent.waiting_for == "decision"
    assert [m.message_id for m in session.waiting_messages()] == [queued.message_id]

    cursor = session.cursor()
    session.approve()
    out = lines(agent.run())
    assert out[:3] == [
        "you approved the proposal",
        "automatic message: The nightly refresh of sales.csv finished",
        out[2],
    ] and out[2].startswith("notice: The person approved your proposal")
    assert agent.done
    new = session.events(after=cursor)
    approved = next(e.seq for e in new if e.kind == "decision")
    delivered = next(
        e.seq
        for e in new
        if e.kind == "message_delivered" and e.data["message_id"] == queued.message_id
    )
    assert delivered > approved


SUBMITS_AND_ENDS = {
    "name": "submits",
    "description": "Submits a proposal and ends its turn without waiting for the decision.",
    "turns": [
        {
            "id": "propose",
            "on": "person",
            "actions": [
                {
                    "call": "plan_submit",
                    "args": {
                        "explanation": "why",
                        "findings": [],
                        "objectives": ["done"],
                        "steps": [{"id": "a", "description": "Do a"}],
                    },
                }
            ],
        },
        {"id": "next", "actions": [{"say": "Next turn."}]},
    ],
}


def test_automatic_messages_start_no_turn_while_a_proposal_waits(session):
    agent = ScriptedAgent(session, SUBMITS_AND_ENDS)
    session.start_planning("Plan it")
    assert lines(agent.run())[-1] == "agent ends its turn; it waits for the next message"
    session.queue_message("Scheduled job finished", "automatic")
    # The agent asks for messages, but the filter holds automatic work back.
    assert agent.run() == [] and agent.waiting_for == "message"
    assert [m.source for m in session.waiting_messages()] == ["automatic"]

    session.approve()
    out = lines(agent.run())
    assert out[0] == "automatic message: Scheduled job finished"
    assert out[1].startswith("notice: The person approved your proposal")
    assert out[2:] == ["agent: Next turn.", "agent has finished its script"]


def test_the_persons_words_come_through_while_a_proposal_waits(session):
    agent = ScriptedAgent(session, SUBMITS_AND_ENDS)
    session.start_planning("Plan it")
    agent.run()
    session.queue_message("Scheduled job finished", "automatic")
    session.queue_message("How long will this take?", "person")
    out = lines(agent.run())
    assert out == ["you: How long will this take?", "agent: Next turn.", out[-1]]
    assert dump(session)["pending_proposal_hash"] is not None
    assert [m.source for m in session.waiting_messages()] == ["automatic"]


# Leaving plan mode mid-turn.


def asks_first(resumed_with):
    return {
        "name": "asks",
        "description": "Asks before going on, then works.",
        "turns": [
            {
                "id": "work",
                "on": "person",
                "actions": [
                    {
                        "call": "update_plan",
                        "args": {
                            "expected_revision": "auto",
                            "steps": [{"id": "a", "description": "Do a"}],
                        },
                    },
                    {"say": "Shall I go on?"},
                    {"wait": "message"},
                    {"say": "Going on."},
                    resumed_with,
                    {"update": "a", "status": "completed"},
                ],
            },
            {"id": "later", "on": "person", "actions": [{"say": "Back again."}]},
        ],
    }


def test_leaving_plan_mode_mid_turn_makes_the_next_plan_call_late(session):
    agent = ScriptedAgent(session, asks_first({"update": "a", "status": "in_progress"}))
    session.queue_message("Start", "person")
    assert lines(agent.step())[-1] == "agent waits for your message"
    assert agent.waiting_for == "message" and dump(session)["plan"]["revision"] == 1

    session.off()
    assert kinds(session)[-1] == "turn_cancelled"
    session.queue_message("Yes, go on", "person")
    cursor = session.cursor()
    out = lines(agent.run())
    assert out == [
        "you: Yes, go on",
        "agent: Going on.",
        "agent calls update_plan (a: in_progress) -> refused: turn 'work' was cancelled when the "
        "person left plan mode; this call is late and was not applied",
        "agent stops turn 'work': you left plan mode, which cancelled it; it waits for your next "
        "message",
    ]
    assert kinds(session, after=cursor) == ["message_delivered", "tool_finished"]
    assert dump(session)["plan"]["revision"] == 1 and statuses(session) == {"a": "pending"}
    assert agent.waiting_for == "message" and not agent.done

    session.queue_message("Hello again", "person")
    assert lines(agent.run()) == [
        "you: Hello again",
        "agent: Back again.",
        "agent has finished its script",
    ]


def test_leaving_plan_mode_mid_turn_stops_the_agents_own_tools_too(session):
    tool = {"tool": "run_cell", "risk": "execute", "args": {"code": "x = 1"}, "result": "ok"}
    agent = ScriptedAgent(session, asks_first(tool))
    session.queue_message("Start", "person")
    agent.run()
    session.off()
    session.queue_message("Yes, go on", "person")
    out = lines(agent.run())
    assert out[-2:] == [
        "agent calls run_cell(code=\"x = 1\") -> refused: turn 'work' was cancelled when you "
        "left plan mode; not run",
        "agent stops turn 'work': you left plan mode, which cancelled it; it waits for your next "
        "message",
    ]
    assert statuses(session) == {"a": "pending"}


def test_leaving_plan_mode_while_the_agent_waits_for_the_decision(session):
    agent = ScriptedAgent.load("data-cleaning", session)
    session.start_planning(agent.script.task)
    agent.run()
    session.off()
    assert lines(agent.run()) == ["you left plan mode without approving"]
    assert agent.waiting_for == "message" and not agent.done
    snap = dump(session)
    assert snap["mode"] == "default" and snap["pending_proposal_hash"] is None
    assert [e.data for e in session.events() if e.kind == "turn_cancelled"] == [
        {"turn_id": "research"}
    ]
    # A new task is not the approval the next turn answers: it is noted and nothing runs.
    session.queue_message("Never mind, just plot it", "person")
    assert lines(agent.run()) == [
        "you: Never mind, just plot it",
        "agent has nothing scripted for this; it still waits for your approval",
    ]
    assert snap["plan"]["revision"] == dump(session)["plan"]["revision"]


# Scripts refused at load.


def script_with(*actions, **turn):
    return {
        "name": "bad",
        "description": "A script with a mistake.",
        "turns": [{"id": "t", "actions": [{"say": "Hello."}, *actions], **turn}],
    }


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"jump": "far"}, "exactly one of say, call, update, tool, reply or wait; found jump"),
        ({"say": "a", "wait": "message"}, "exactly one of say, call, update, tool, reply or wait"),
        ({"call": "update_plan"}, "args is missing"),
        ({"call": "finish_plan", "args": {"review": []}}, None),  # a script may finish
        ({"call": "ask_user", "args": {"question": "Which file?"}}, None),  # a script may ask
        ({"call": "write_file", "args": {}}, "unknown plan tool 'write_file'"),
        ({"tool": "update_plan", "risk": "write", "result": ""}, "reserved plan tool name"),
        ({"tool": "rm", "risk": "delete", "result": ""}, "risk"),
        ({"tool": "rm", "risk": "write"}, "result is missing"),
        ({"say": "x", "loud": True}, "unknown field 'loud'"),
        ({"wait": "forever"}, "wait"),
        ({"update": "a"}, "gives neither status nor evidence"),
        ({"wait": "decision"}, None),  # allowed: it is the last action
    ],
)
def test_malformed_actions_are_refused_at_load_naming_turn_and_action(session, action, expected):
    if expected is None:
        ScriptedAgent(session, script_with(action))
        return
    with pytest.raises(ScriptError) as info:
        ScriptedAgent(session, script_with(action))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("script 'bad', turn 1 ('t'), action 2: ")
    assert expected in message


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (script_with({"wait": "decision"}, {"say": "after"}), "action 2: wait: decision ends"),
        (script_with(on="later"), "turn 1 ('t'): on:"),
        (script_with(id="has space"), "turn 1 ('has space'): id:"),
        ({"name": "bad", "description": "x", "turns": []}, "turns is a list of at least one"),
        ({"name": "bad", "turns": [{"id": "t", "actions": [{"say": "x"}]}]}, "description"),
        (
            {
                "name": "bad",
                "description": "x",
                "turns": [
                    {"id": "t", "actions": [{"say": "x"}]},
                    {"id": "t", "actions": [{"say": "y"}]},
                ],
            },
            "turn 2 ('t'): turn id 't' is used twice",
        ),
        ({"name": "bad", "description": "x", "turns": [{"id": "t", "actions": []}]}, "actions"),
        (["not", "a", "mapping"], "a script is a mapping"),
    ],
)
def test_malformed_scripts_are_refused_at_load(session, script, expected):
    with pytest.raises(ScriptError) as info:
        ScriptedAgent(session, script)
    assert "\n" not in str(info.value) and expected in str(info.value)


def test_scripts_load_from_yaml_and_json_files(tmp_path, session):
    yaml_text = (
        "name: mine\n"
        "description: A small script.\n"
        "turns:\n"
        "  - id: first\n"
        "    on: person\n"  # YAML 1.1 would read this key as True
        "    actions:\n"
        "      - say: Hello on 2024-03-01, yes\n"
    )
    (tmp_path / "mine.yml").write_text(yaml_text)
    agent = ScriptedAgent.load(tmp_path / "mine.yml", session)
    assert agent.script.turns[0].on == "person"
    session.queue_message("Hi", "person")
    assert lines(agent.run()) == [
        "you: Hi",
        "agent: Hello on 2024-03-01, yes",
        "agent has finished its script",
    ]

    as_json = {
        "name": "mine",
        "description": "d",
        "turns": [{"id": "a", "actions": [{"say": "x"}]}],
    }
    (tmp_path / "mine.json").write_text(json.dumps(as_json))
    assert ScriptedAgent.load(str(tmp_path / "mine.json"), session).script.name == "mine"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "nope",
            None,
            "no shipped script is named 'nope' "
            "(shipped: checked-prices, data-cleaning, order-months, review-with-comments, "
            "teaching-demo)",
        ),
        ("missing.yaml", None, "cannot read script"),
        ("broken.yaml", "name: [unclosed\n", "is not valid YAML at line"),
        ("broken.json", "{", "is not JSON"),
        (
            "bad.yaml",
            "name: bad\ndescription: d\nturns:\n  - id: t\n    actions:\n      - x: 1\n",
            "turn 1 ('t'), action 1",
        ),
    ],
)
def test_unreadable_scripts_are_refused_in_one_line(tmp_path, name, text, expected):
    if text is not None:
        (tmp_path / name).write_text(text)
    target = name if text is None and "." not in name else tmp_path / name
    with pytest.raises(ScriptError) as info:
        load_script(target)
    assert "\n" not in str(info.value) and expected in str(info.value)


def test_an_update_of_a_step_not_in_the_plan_is_not_sent(session):
    script = script_with({"update": "ghost", "status": "completed"})
    agent = ScriptedAgent(session, script)
    session.queue_message("Go", "person")
    out = lines(agent.run())
    assert out[2] == (
        "agent calls update_plan (ghost: completed) -> refused: step 'ghost' is not in the "
        "current plan; not sent"
    )
    assert kinds(session) == ["message_queued", "message_delivered"]


def test_a_second_run_in_the_same_session_says_to_use_a_new_one(session):
    play("data-cleaning", session)
    again = ScriptedAgent.load("data-cleaning", session)
    session.start_planning(again.script.task)
    out = lines(again.run())
    assert out[0] == (
        "agent finds calls of script 'data-cleaning' already in this session; they will not be "
        "made again: replay the script in a new session (%plan new)"
    )
    assert ScriptedAgent.load("teaching-demo", session).run() == []


def test_the_agent_replies_to_the_comments_of_the_review_script(store):
    """The scripted agent replies to the person's open comments (DESIGN section 14), as
    notebook 07 shows it: a comment the revised proposal answers, and one the plan was
    approved with."""
    session = store.session("review")
    script = load_script("review-with-comments")
    session.start_planning(script.task)
    agent = ScriptedAgent(session, script)
    agent.run()
    session.comment("fill", "use the median: a few huge orders pull the mean up", by="ann")
    session.revise("hold out the last four weeks to check the model", by="ann")
    played = lines(agent.run())
    assert "you: hold out the last four weeks to check the model (+1 more lines)" in played
    assert "agent calls comment_reply (c1) -> accepted: Your reply to comment c1" in "\n".join(
        played
    )
    (comment,) = dump(session)["comments"]
    assert comment["status"] == "addressed" and comment["reply"].startswith("The fill step")
    assert comment["anchor"] == "Fill the missing prices with the mean price"
    session.resolve_comment("c1", by="ann")
    session.comment("chart", "label the y axis in dollars", by="ann")
    session.approve(by="ann")
    played = lines(agent.run())
    assert played[-1] == "agent has finished its script"
    assert any(line.startswith("agent calls comment_reply (c2) -> accepted") for line in played)
    assert [c["status"] for c in dump(session)["comments"]] == ["resolved", "addressed"]


def test_a_reply_with_no_open_comment_says_so(session):
    script = {
        "name": "lonely",
        "description": "a reply with nothing to reply to",
        "turns": [{"id": "t1", "actions": [{"reply": "done", "step": "load"}]}],
    }
    agent = ScriptedAgent(session, script)
    session.queue_message("go", source="person")
    assert "agent has no open comment on step 'load' to reply to" in lines(agent.run())
