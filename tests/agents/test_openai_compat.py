"""The built-in agent against a real OpenAI-compatible HTTP server that replays recordings.

Every request the agent makes is checked by the server (tools offered, context block, the
results of earlier calls), so a wrong loop fails here; the tests then check what the person
sees: the cell's output, the plan card's snapshot and the session's events.
"""

import builtins
import io
import re
import subprocess
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell

import jupyter_plans
from jupyter_plans import PlanStore
from jupyter_plans.agents.openai_compat import AgentError, OpenAIAgent
from tests.replay_server import ReplayServer, load_recording
from tests.waiting import wait_until

TASK = "Remove the duplicates from sales and total them."


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "JUPYTER_PLANS_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def ip(ip):
    """The shared shell, and the variables these tests leave in it removed."""
    yield ip
    for name in ("sales", "total", "scratch"):
        ip.user_ns.pop(name, None)


def replay(name, **actions):
    """A server replaying tests/recordings/NAME.json; `actions` run where the recording says."""
    return ReplayServer(load_recording(name), actions)


def settle(server):
    """What a test asserts last: every request passed its checks and every reply was used."""
    assert server.failures == []
    assert server.unused == 0


def typing(monkeypatch, *answers):
    """The person's answers to the agent's questions at the keyboard, and the prompts seen."""
    prompts, queue = [], list(answers)

    def answer(prompt=""):
        prompts.append(prompt)
        return queue.pop(0)

    monkeypatch.setattr(builtins, "input", answer)
    return prompts


def cell(ip, source, capsys, cell_id=None):
    """Run one cell (with the id a notebook front end sends, if given); return (stdout,
    stderr)."""
    capsys.readouterr()
    result = ip.run_cell(source, store_history=True, cell_id=cell_id)
    captured = capsys.readouterr()
    assert result.error_in_exec is None and result.error_before_exec is None, captured
    return captured.out, captured.err


def test_research_proposal_approval_and_execution_through_the_magics(ip, capsys, monkeypatch):
    prompts = typing(monkeypatch, "y", "yes")
    with replay("clean-sales") as server:
        ip.config.OpenAIAgent.base_url = server.url
        ip.config.OpenAIAgent.model = "replay-model"
        ip.config.OpenAIAgent.api_key = "sk-replay"
        ip.user_ns["sales"] = [3, 5, 5, 8]
        cell(ip, "%load_ext jupyter_plans", capsys)
        session = jupyter_plans.current_session()
        cell(ip, "%plan on", capsys)

        # Plan mode: research with read tools; the eager run_code is refused by the guard.
        out, err = cell(ip, f"%%agent\n{TASK}", capsys)
        assert err == ""
        assert out.startswith("I will look at the notebook's variables first.\n[list_variables]")
        assert "[inspect_variable] done\n" in out
        assert (
            "[run_code] refused: run_code is an execute tool and the session is in plan mode" in out
        )
        assert out.endswith(
            "Plan mode: I will propose first.\n"
            f"[plan_submit] Proposal submitted as revision 1 (hash {session.waiting_proposal()}).\n"
            "(The proposal waits for your decision: %plan approve, %plan revise NOTES, "
            "or %plan off.)\n"
        )
        assert ip.user_ns["sales"] == [3, 5, 5, 8]  # nothing ran in plan mode
        assert prompts == []
        assert len(server.requests) == 3

        # While the proposal waits, no request is made, whatever is queued.
        session.queue_message("nightly refresh finished", "automatic")
        out, err = cell(ip, "%agent", capsys)
        assert (out, err) == ("", "")
        assert len(server.requests) == 3

        # Approval of the card the person read: the agent goes on in the approving cell,
        # asking before each run.
        cell(ip, "%plan", capsys)
        out, err = cell(ip, "%plan approve", capsys, cell_id="approve-cell")
        assert err == ""
        snapshot = session.snapshot()
        assert snapshot.mode == "default" and snapshot.pending_proposal_hash is None
        assert [(s.id, s.status) for s in snapshot.plan.steps] == [
            ("dedupe", "completed"),
            ("total", "completed"),
        ]
        assert snapshot.plan.revision == 4
        assert snapshot.plan.steps[0].evidence == "run_code printed 3"
        assert ip.user_ns["sales"] == [3, 5, 8] and ip.user_ns["total"] == 16
        assert prompts == ["Run this code? [y/N] ", "Run this code? [y/N] "]
        assert (
            "The agent wants to run this code:\nsales = sorted(set(sales))\nprint(len(sales))\n"
            in out
        )
        assert "Approved. Starting with dedupe.\n[update_plan] Plan updated to revision 2.\n" in out
        assert "[run_code] done\n" in out
        # The agent completed both steps in this cell: their approved checks ran as it ended.
        assert out.endswith(
            "Done: sales is [3, 5, 8] and total is 16.\ncheck dedupe: passed\ncheck total: passed\n"
        )
        settle(server)

    # The code the agent ran is linked under the cell that ran it, to the step in progress
    # while it ran; the cell itself began with no step in progress.
    assert ip.magics_manager.registry["PlanMagics"].cells.flush()
    cells = session.snapshot().model_dump(mode="json")["cells"]
    assert [(step, [c["cell_id"] for c in runs]) for step, runs in cells.items()] == [
        ("dedupe", ["approve-cell"]),
        ("total", ["approve-cell"]),
    ]
    assert all(runs[0]["ok"] and not runs[0]["changed"] for runs in cells.values())
    # The checks the agent proposed ran in the kernel, at the end of the approving cell.
    checks = session.snapshot().model_dump(mode="json")["checks"]
    assert {step: (c["status"], c["value"]) for step, c in checks.items()} == {
        "dedupe": ("passed", "True"),
        "total": ("passed", "True"),
    }

    # The proposal's turn and the execution's turn are told apart by the session.
    updates = [e.data for e in session.events() if e.kind == "plan_updated"]
    turns = [u["turn_id"] for u in updates]
    assert turns[0] != turns[1] and len(set(turns[1:])) == 1
    assert all(u["call_id"].startswith(u["turn_id"] + ":call_") for u in updates)
    # The approval reached the agent as a notice, the automatic message after it.
    system = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "system"]
    assert any(s.startswith("A notice from the plan session") for s in system)
    assert any("nightly refresh finished" in s for s in system)


def test_plan_task_and_revise_let_the_attached_agent_go_on(ip, capsys):
    with replay("revise") as server:
        ip.config.OpenAIAgent.base_url = server.url
        ip.config.OpenAIAgent.model = "replay-model"
        ip.config.OpenAIAgent.api_key = "sk-replay"
        cell(ip, "%load_ext jupyter_plans", capsys)
        session = jupyter_plans.current_session()
        out, _ = cell(ip, "%agent Hello", capsys)  # the line form attaches the agent too
        assert out == "Hello. What shall we do?\n"

        out, _ = cell(ip, "%plan Dedupe sales", capsys)
        first = session.waiting_proposal()
        assert out.startswith("Plan mode on; the agent has your task: Dedupe sales\n[plan_submit]")

        out, err = cell(ip, "%plan approve " + "0" * 64, capsys)  # refused: the agent stays
        assert out == "" and err.startswith("%plan approve: ")
        assert len(server.requests) == 2

        out, _ = cell(ip, "%plan revise keep a copy first", capsys)
        assert out.startswith("Your notes went to the agent;")
        assert "Adding a copy step.\n[plan_submit] Proposal submitted as revision 2" in out
        settle(server)
    assert session.waiting_proposal() not in (None, first)
    changes = session.proposal_changes()
    assert [step["id"] for step in changes["added"]] == ["copy"]


def test_the_extension_loads_without_importing_openai(tmp_path):
    code = (
        "import sys; from IPython.core.interactiveshell import InteractiveShell; "
        "ip = InteractiveShell.instance(); ip.run_line_magic('load_ext', 'jupyter_plans'); "
        "assert 'agent' in ip.magics_manager.magics['cell']; "
        "assert 'openai' not in sys.modules, 'openai was imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr


def test_missing_openai_is_one_line_and_takes_no_message(ip, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    cell(ip, "%load_ext jupyter_plans", capsys)
    out, err = cell(ip, f"%%agent\n{TASK}", capsys)
    assert out == ""
    assert err == (
        "%agent: the agent needs the openai package: pip install 'jupyter-plans[agent]'\n"
    )
    session = jupyter_plans.current_session()
    assert [m.text for m in session.waiting_messages()] == [TASK]
    with pytest.raises(AgentError, match="pip install"):
        OpenAIAgent(session, base_url="http://127.0.0.1:1/v1", model="m").run()


def test_settings_come_from_the_environment(session, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("JUPYTER_PLANS_MODEL", "env-model")
    agent = OpenAIAgent(session)
    assert (agent.base_url, agent.api_key, agent.model) == (
        "http://127.0.0.1:9/v1",
        "sk-env",
        "env-model",
    )
    assert agent.planning is True and agent.auto_run is False


# The agent through its Python API, on a session of its own.

PLAN = {
    "explanation": "why",
    "findings": ["what is there"],
    "objectives": ["what for"],
    "steps": [
        {"id": "load", "description": "Load the data"},
        {"id": "fit", "description": "Fit the model"},
    ],
}


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    ip.user_ns["sales"] = [3, 5, 5, 8]
    ip.user_ns["scratch"] = "keep me"
    yield ip
    for name in ("sales", "scratch"):
        ip.user_ns.pop(name, None)


class Person:
    """The person at the keyboard: answers the agent's questions and reads the cell."""

    def __init__(self, *answers):
        self.answers, self.asked, self.printed = list(answers), [], []

    def confirm(self, tool, args):
        self.asked.append((tool.name, args))
        return self.answers.pop(0)

    @property
    def output(self):
        return "".join(self.printed)


def make_agent(session, server, shell, person, **settings):
    return OpenAIAgent(
        session,
        shell=shell,
        output=person.printed.append,
        confirm=person.confirm,
        base_url=server.url,
        model=server.recording["model"],
        **settings,
    )


def test_ask_user_ends_the_turn_and_the_persons_next_message_answers(session, shell):
    person = Person()
    session.on()
    session.queue_message("Fit a baseline model of revenue.", "person")
    with replay("ask-user") as server:
        agent = make_agent(session, server, shell, person)
        assert agent.run() == "answer"
        question = "Which column holds the revenue, amount or price?"
        assert session.open_question().question == question
        assert person.output == (
            "One thing only you can tell me.\n"
            "[ask_user] Your question is shown to the person.\n"
            f"(The agent asks you: {question} Your next message answers it.)\n"
        )
        assert agent.run() == "answer" and len(server.requests) == 1  # nothing to do yet

        session.queue_message("amount, in euros", "person")
        assert session.open_question() is None
        assert agent.run() == "decision"
        settle(server)
    assert session.snapshot().plan.findings == ["revenue is the amount column, in euros"]
    kinds = [e.kind for e in session.events()]
    assert kinds.count("question_asked") == 1 and kinds.count("question_closed") == 1
    assert person.asked == []


def test_a_declined_run_is_not_run_and_the_model_hears_so(session, shell):
    person = Person(False)
    session.queue_message("Reset scratch.", "person")
    with replay("declined") as server:
        agent = make_agent(session, server, shell, person)
        assert agent.run() == "message"
        settle(server)
    assert person.asked == [("run_code", {"code": "scratch = None"})]
    assert shell.user_ns["scratch"] == "keep me"
    assert "[run_code] refused: the person declined to run run_code;" in person.output
    assert person.output.endswith("Understood: I left scratch as it is.\n")


def test_auto_run_skips_the_asking_but_not_the_guard(session, shell):
    person = Person(False)
    session.start_planning("Set scratch to 42.")
    with replay("auto-run") as server:
        agent = make_agent(session, server, shell, person, auto_run=True)
        agent.run()
        assert shell.user_ns["scratch"] == "keep me"  # plan mode: refused, auto_run or not
        assert "[run_code] refused: run_code is an execute tool and the session is in plan" in (
            person.output
        )
        session.off()
        session.queue_message("Go ahead without a plan.", "person")
        agent.run()
        settle(server)
    assert shell.user_ns["scratch"] == 42 and person.asked == []
    assert person.output.endswith("[run_code] done\nscratch is 42.\n")
    # Without auto_run the same agent asks again.
    agent.auto_run = False
    assert agent.toolbox.confirm(agent.toolbox.tools["run_code"], {"code": "1"}) is False
    assert person.asked == [("run_code", {"code": "1"})]


def test_leaving_plan_mode_stops_the_stream_between_chunks(session, shell, db):
    def leave_from_another_process():
        # The person leaves once the first words are on the screen: the words that come after
        # must not be. (A loaded machine may read the first chunks only after the leaving, and
        # then rightly shows none of them.)
        wait_until(lambda: person.output == "Looking at the data now. ", "the first words shown")
        with PlanStore(db) as other:
            other.session(session.session_id).off()

    person = Person()
    session.start_planning("Look at the data and propose a plan.")
    with replay("cancel-stream", off=leave_from_another_process) as server:
        agent = make_agent(session, server, shell, person)
        assert agent.run() == "message"
        assert len(server.requests) == 1
        printed = person.output
        assert printed.startswith("Looking at the data now. ")
        assert "propose a plan." not in printed and "[list_variables]" not in printed
        assert printed.endswith("\n(Turn stopped: you left plan mode, which cancelled it.)\n")
        assert session.snapshot().mode == "default"

        # The conversation stays whole: the next turn starts from the words that came.
        session.queue_message("Just list the variables.", "person")
        agent.run()
        settle(server)
    said = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"]
    assert said[0]["content"].startswith("Looking at the data now. ")
    assert "tool_calls" not in said[0]


def test_a_late_update_from_a_cancelled_turn_is_refused_and_ends_it(session, shell, db):
    def leave_from_another_process():
        with PlanStore(db) as other:
            other.session(session.session_id).off()

    person = Person(True)
    session.on()
    assert not session.call_tool("plan_submit", PLAN, turn_id="proposal").is_error
    session.approve()
    with replay("cancel-late", off=leave_from_another_process) as server:
        agent = make_agent(session, server, shell, person, stream=False)
        assert agent.run() == "message"
        turn = session.snapshot().plan.turn_id  # the agent's update before it was cancelled
        assert turn.startswith("agent-")
        assert f"[update_plan] refused: turn '{turn}' was cancelled when the person" in (
            person.output
        )
        assert person.output.endswith(
            "Loaded.\n[update_plan] refused: turn "
            f"'{turn}' was cancelled when the person left plan mode; this call is late and "
            "was not applied\n(Turn stopped: you left plan mode, which cancelled it.)\n"
        )
        snapshot = session.snapshot()
        assert snapshot.plan.revision == 2
        assert [s.status for s in snapshot.plan.steps] == ["in_progress", "pending"]
        events = session.events()
        assert {"turn_id": turn} in [e.data for e in events if e.kind == "turn_cancelled"]
        assert events[-1].kind == "tool_finished" and events[-1].data["name"] == "update_plan"
        assert person.asked == [] and shell.user_ns["scratch"] == "keep me"

        # A new turn is not late.
        session.queue_message("Mark load as done.", "person")
        agent.run()
        settle(server)
    assert session.snapshot().plan.turn_id not in (None, turn)
    assert [s.status for s in session.snapshot().plan.steps] == ["completed", "pending"]


def test_without_planning_no_plan_tools_no_context_and_plan_calls_refused(session, shell):
    person = Person()
    session.queue_message("What is in sales?", "person")
    with replay("no-planning") as server:
        agent = make_agent(session, server, shell, person, planning=False)
        agent.run()
        settle(server)
    assert session.snapshot().plan is None
    assert [e.kind for e in session.events()] == ["message_queued", "message_delivered"]
    assert "[update_plan] refused: update_plan is a plan tool and planning is not" in (
        person.output
    )
    assert person.output.endswith("sales holds 3, 5, 5 and 8.\n")


def test_a_failed_request_keeps_the_message_and_the_next_run_goes_on(session, shell, capsys):
    person = Person()
    session.queue_message("Say hello.", "person")
    with replay("api-error") as server:
        agent = make_agent(session, server, shell, person)
        capsys.readouterr()
        assert agent.run() == "message"
        err = capsys.readouterr().err
        assert err.startswith("The agent's request failed: Error code: 400")
        assert "the model is loading; try again" in err
        assert person.output == ""
        agent.run()
        settle(server)
    assert person.output == "Hello.\n"


def leaving(db, session):
    """%plan off as another process runs it: its own store on the same database."""

    def leave():
        with PlanStore(db) as other:
            other.session(session.session_id).off()

    return leave


def approved(session):
    """A session whose proposal (PLAN) the person approved: the notice waits for the agent."""
    session.on()
    assert not session.call_tool("plan_submit", PLAN, turn_id="proposal").is_error
    session.approve()


def test_nothing_of_the_agents_own_runs_once_the_person_left(session, shell, db):
    person = Person()
    session.start_planning("Look at sales.")
    with replay("cancel-before-tools", off=leaving(db, session)) as server:
        agent = make_agent(session, server, shell, person, stream=False)
        agent.run()
        assert person.output == (
            "Reading sales, then fixing it.\n"
            "(Turn stopped: you left plan mode, which cancelled it.)\n"
        )
        session.queue_message("Stop there.", "person")
        agent.run()
        settle(server)
    assert shell.user_ns["sales"] == [3, 5, 5, 8] and person.asked == []


def test_leaving_while_the_agent_asks_runs_nothing(session, shell, db):
    leave = leaving(db, session)

    class LeavesInstead(Person):
        def confirm(self, tool, args):
            self.asked.append((tool.name, args))
            leave()  # the person answers with %plan off in another cell, then presses y
            return True

    person = LeavesInstead()
    approved(session)
    with replay("cancel-at-prompt") as server:
        agent = make_agent(session, server, shell, person)
        agent.run()
        assert person.asked == [("run_code", {"code": "scratch = 'loaded'"})]
        assert shell.user_ns["scratch"] == "keep me"
        assert person.output.endswith(
            "[run_code] refused: not run: the person left plan mode, which cancelled this "
            "turn\n(Turn stopped: you left plan mode, which cancelled it.)\n"
        )
        session.queue_message("Not now.", "person")
        agent.run()
        settle(server)


def test_a_newer_turn_elsewhere_ends_this_one(session, shell, db):
    def newer_turn():
        with PlanStore(db) as other:
            plan = other.session(session.session_id).snapshot().plan.model_dump(mode="json")
            plan["steps"][0]["status"] = "completed"
            args = {"expected_revision": 2, "steps": plan["steps"]}
            result = other.session(session.session_id).call_tool(
                "update_plan", args, turn_id="elsewhere"
            )
            assert not result.is_error, result.content

    person = Person()
    approved(session)
    with replay("newer-turn", newer=newer_turn) as server:
        agent = make_agent(session, server, shell, person, stream=False)
        assert agent.run() == "message"
        settle(server)
    # The refusal names the agent's own turn (its turns are agent-ID-N, N its count of turns).
    turn = re.search(r"refused: turn '([^']+)' is older", person.output).group(1)
    assert re.fullmatch(rf"agent-.+-{agent.turns}", turn), turn
    assert person.output.endswith(
        f"[update_plan] refused: turn '{turn}' is older than the newest turn 'elsewhere'; "
        "this call is late and was not applied\n"
        "(Turn stopped: a newer turn of this session has started.)\n"
    )
    assert session.snapshot().plan.revision == 3 and session.snapshot().decisions == []
    assert agent.history[-1]["content"].find("not run: a newer turn") >= 0


def test_a_setting_missing_is_one_line_and_config_reaches_the_attached_agent(ip, capsys):
    cell(ip, "%load_ext jupyter_plans", capsys)
    session = jupyter_plans.current_session()
    out, err = cell(ip, "%agent Hello", capsys)
    assert (out, err) == (
        "",
        "%agent: no model is set: set c.OpenAIAgent.model or $JUPYTER_PLANS_MODEL\n",
    )
    cell(ip, "%config OpenAIAgent.model = 'replay-model'", capsys)
    out, err = cell(ip, "%agent", capsys)
    assert err.startswith("%agent: no API key: set c.OpenAIAgent.api_key or $OPENAI_API_KEY")
    assert [m.text for m in session.waiting_messages()] == ["Hello"]  # kept for later
    with replay("api-error") as server:
        server.exchanges[0]["expect"]["last"]["contains"] = "Hello"
        server.exchanges[1]["expect"]["last"]["contains"] = "Hello"
        cell(ip, f"%config OpenAIAgent.base_url = '{server.url}'", capsys)
        cell(ip, "%config OpenAIAgent.auto_run = True", capsys)
        out, err = cell(ip, "%agent", capsys)
        assert err.startswith("The agent's request failed: Error code: 400")
        out, err = cell(ip, "%agent", capsys)  # the failed turn goes on
        assert (out, err) == ("Hello.\n", "")
        settle(server)
    assert ip.magics_manager.registry["AgentMagics"].current.auto_run is True


def test_the_notebook_tools_are_bounded_and_say_what_went_wrong(session, shell):
    agent = OpenAIAgent(session, shell=shell, auto_run=True)
    call = agent.toolbox.call
    shell.user_ns["big"] = list(range(100_000))
    try:
        listed = call("list_variables", "")
        assert not listed.is_error
        assert "big: list (len 100000)\n" in listed.content
        assert "sales: list (len 4)" in listed.content
        shown = call("inspect_variable", {"name": "big"}).content
        assert len(shown) < 2600 and "characters left out" in shown
        missing = call("inspect_variable", {"name": "nope"})
        assert missing.is_error and "no variable 'nope' in the notebook" in missing.content
        failed = call("run_code", {"code": "print('before')\n1 / 0"})
        assert not failed.is_error
        assert failed.content.startswith("printed:\nbefore\n")
        assert failed.content.endswith("error: ZeroDivisionError: division by zero")
        syntax = call("run_code", {"code": "def ("})
        assert "error: SyntaxError" in syntax.content
        loud = call("run_code", {"code": "for i in range(20000): print(i)"}).content
        assert len(loud) < 4100 and loud.rstrip().endswith("19999")
    finally:
        shell.user_ns.pop("big", None)
        shell.user_ns.pop("i", None)


def test_without_input_nothing_is_asked_and_nothing_runs(session, shell, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # a kernel with no stdin to ask on
    agent = OpenAIAgent(session, shell=shell)
    capsys.readouterr()
    result = agent.toolbox.call("run_code", {"code": "scratch = 'ran'"})
    assert result.is_error and "the person declined to run run_code" in result.content
    assert shell.user_ns["scratch"] == "keep me"
    assert capsys.readouterr().out == (
        "The agent wants to run this code:\nscratch = 'ran'\n"
        "Run this code? [y/N] Cannot ask in this kernel (no input), so it was not run; "
        "set c.OpenAIAgent.auto_run = True to run such tools without asking.\n"
    )
