"""The built-in agent against a real OpenAI-compatible HTTP server that replays recordings.

Every request the agent makes is checked by the server (tools offered, context block, the
results of earlier calls), so a wrong loop fails here; the tests then check what the person
sees: the cell's output, the plan card's snapshot and the session's events.
"""

import builtins

import pytest
from IPython.core.interactiveshell import InteractiveShell

import jupyter_plans
from jupyter_plans.agents.openai_compat import AgentError, OpenAIAgent

from .replay_server import ReplayServer, load_recording

TASK = "Remove the duplicates from sales and total them."


@pytest.fixture
def ip(tmp_path, monkeypatch):
    shell = InteractiveShell.instance()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    for name in ("__session__", "__vsc_ipynb_file__"):
        shell.user_ns.pop(name, None)
    shell.config.PlanMagics.auto_display = False
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_plans")
    shell.config.PlanMagics.clear()
    shell.config.OpenAIAgent.clear()
    for name in ("sales", "total", "scratch"):
        shell.user_ns.pop(name, None)


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


def cell(ip, source, capsys):
    """Run one cell; return (stdout, stderr)."""
    capsys.readouterr()
    result = ip.run_cell(source)
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

        # Approval: the agent goes on in the approving cell, asking before each run.
        out, err = cell(ip, "%plan approve", capsys)
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
        assert out.endswith("Done: sales is [3, 5, 8] and total is 16.\n")
        settle(server)

    # The proposal's turn and the execution's turn are told apart by the session.
    updates = [e.data for e in session.events() if e.kind == "plan_updated"]
    turns = [u["turn_id"] for u in updates]
    assert turns[0] != turns[1] and len(set(turns[1:])) == 1
    assert all(u["call_id"].startswith(u["turn_id"] + ":call_") for u in updates)
    # The approval reached the agent as a notice, the automatic message after it.
    system = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "system"]
    assert any(s.startswith("A notice from the plan session") for s in system)
    assert any("nightly refresh finished" in s for s in system)


def test_missing_openai_is_one_line_and_takes_no_message(ip, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "openai", None)
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
