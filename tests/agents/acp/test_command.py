"""`jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...]`: usage
errors are one line and exit 2; the plan file of a notebook is its `<stem>.plans.sqlite`."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from acp import RequestError

from jupyter_plans import PlanStore
from tests.helpers.procs import children, state

from .harness import ROOT, bridged, new_session, prompt, run, script, until


def _command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jupyter_plans.agents.acp", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--db", "x.sqlite"],
        ["--db", "x.sqlite", "--"],
        ["--", "agent"],
        ["--session", "s", "--", "agent"],
        ["--db", "x.sqlite", "--frobnicate", "--", "agent"],
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(args, tmp_path):
    done = _command(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("jupyter-plans acp: ")
    assert "Traceback" not in done.stderr


def test_an_agent_that_cannot_run_is_one_line_and_exit_1(tmp_path):
    done = _command("--db", str(tmp_path / "a.sqlite"), "--", str(tmp_path / "no-such-agent"))
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1 and "no-such-agent" in done.stderr


def test_a_notebook_plan_lives_beside_it_in_the_files_current_session(tmp_path):
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text("{}")

    async def main():
        async with bridged(tmp_path, "--notebook", str(notebook), session=None) as (_, conn, __):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"plan": [["Explore", "in_progress"]]}))

    run(main())
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        session = store.session()  # the file's current session, as the bridge used
        assert session.session_id == "default"
        assert [s.description for s in session.snapshot().plan.steps] == ["Explore"]


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path):
    code = (
        "import sys; sys.modules['acp'] = None\n"
        "from jupyter_plans.agents.acp import main\n"
        "sys.exit(main(['--db', 'x.sqlite', '--', 'agent']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "jupyter-plans acp: the bridge needs the agent-client-protocol package: "
        "pip install 'jupyter-plans[acp]'"
    ]
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.parametrize(("agent", "status"), [("true", 0), ("false", 1)])
def test_the_agent_ending_first_with_stdout_a_file_ends_the_bridge_cleanly(agent, status, tmp_path):
    """Started by a client that writes nothing yet (stdin an open pipe), with stdout a file:
    the agent's exit ends the bridge with its status, not with an interpreter abort."""
    with open(tmp_path / "out", "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter_plans.agents.acp",
                "--db",
                str(tmp_path / "a.db"),
                "--",
                agent,
            ],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        try:
            proc.wait(timeout=60)  # stdin stays open: the agent ends first
        finally:
            proc.stdin.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
    assert proc.returncode == status, stderr.decode()
    assert b"Fatal Python error" not in stderr


def test_a_session_that_fails_to_start_stops_the_agent_and_the_bridge(tmp_path):
    """The agent answers session/new with an error and runs no session: the client gets the
    error, then the agent and the bridge stop (exit 1, one line saying why); nothing is left
    running and the card hears of no agent."""
    why = "--dangerously-skip-permissions cannot be used with root/sudo privileges"

    async def main():
        async with bridged(tmp_path, agent_args=("--fail-new", why)) as (_, conn, process):
            (agent,) = await until(lambda: children(process.pid), what="the agent started")
            with pytest.raises(RequestError):
                await new_session(conn, tmp_path)
            await asyncio.wait_for(process.wait(), 20)
            assert process.returncode == 1
            assert not Path(f"/proc/{agent}").exists() or _zombie(agent)

    run(main())
    lines = (tmp_path / "bridge.stderr").read_text().splitlines()
    said = [line for line in lines if "could not start a session" in line]
    assert said and why in said[-1] and "Scripted agent" in said[-1]
    with PlanStore(tmp_path / "a.plans.sqlite") as store:
        assert store.session("s").snapshot().agent_mode is None


def _zombie(pid: int) -> bool:
    return state(pid) in (None, "Z")


def test_a_signal_to_stop_ends_the_bridge_as_a_close_does(tmp_path):
    """SIGTERM (a client stopping its agent): the proposal the agent waits on is dropped and
    the card hears that no agent is bridged any more."""

    async def main():
        async with bridged(tmp_path) as (client, conn, process):
            sid = await new_session(conn, tmp_path)
            person = PlanStore(tmp_path / "a.plans.sqlite")
            try:
                session = person.session("s")
                session.on()
                markdown = "Tidy the table.\n\n- Load it\n"
                running = prompt(conn, sid, script({"exit_plan_mode": markdown}))
                await client.next_asked()
                assert session.snapshot().pending_proposal_hash is not None
                assert session.snapshot().agent_mode is not None  # a bridged agent
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.wait(), 20)
                running.cancel()
                snapshot = session.snapshot()
                assert (snapshot.pending_proposal_hash, snapshot.agent_mode) == (None, None)
                (dropped,) = [e for e in session.events() if e.kind == "decision"]
                assert dropped.data["why"] == "the agent that asked for it is gone"
            finally:
                person.close()

    run(main())


@pytest.mark.parametrize("stubborn", [False, True], ids=["agent", "stubborn agent"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_agents_children_and_the_bridge_though_one_holds_its_stdout(
    tmp_path, signum, stubborn
):
    """The agent started a process of its own (as claude-agent-acp starts Claude Code, and
    Claude Code its shells) that holds the agent's stdout: SIGTERM or SIGINT to the bridge
    ends the bridge, the agent and that process; also when the agent and its process ignore
    SIGTERM and SIGINT and the agent outlives its stdin."""
    import shlex

    from .harness import AGENT

    started = tmp_path / "started"
    # The shell's background job is the agent's child once the shell runs the agent.
    line = f"sleep 600 & echo $! > {shlex.quote(str(started))}; "
    if stubborn:
        line = f"trap '' TERM INT; {line}{shlex.join(AGENT)}; exec sleep 600"
    else:
        line = f"{line}exec {shlex.join(AGENT)}"

    async def main():
        async with bridged(tmp_path, agent=["sh", "-c", line]) as (_client, conn, process):
            await new_session(conn, tmp_path)
            child = int(await until(lambda: started.exists() and started.read_text().strip()))
            (agent,) = await until(lambda: children(process.pid), what="the agent started")
            assert Path(f"/proc/{child}").exists() and not _zombie(child)
            process.send_signal(signum)
            await asyncio.wait_for(process.wait(), 30)  # the bridge exits
            gone = await until(lambda: _zombie(child) and _zombie(agent), what="children gone")
            assert gone

    run(main())
