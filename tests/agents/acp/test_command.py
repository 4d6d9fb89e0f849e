"""`jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...]`: usage
errors are one line and exit 2; the plan file of a notebook is its `<stem>.plans.sqlite`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jupyter_plans import PlanStore

from .harness import ROOT, bridged, new_session, prompt, run, script


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
        ["--db", "x.sqlite", "--notebook", "a.ipynb", "--", "agent"],
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
