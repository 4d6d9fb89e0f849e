"""`jupyter-plans where NB`, `sessions [--deleted]` and every `--notebook` of the command line
(DESIGN section 16), run as a subprocess with the environment a Jupyter server gives its
kernels and terminals, on every engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.following.session_moves import mark_deleted

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
CLEAN = ("JUPYTER_PLANS_DATABASE", "JUPYTER_PLANS_SESSION_ID", "JUPYTER_PLANS_SERVER_ROOT")


def run(*args, env=None, cwd=None):
    base = {k: v for k, v in os.environ.items() if k not in CLEAN}
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "PYTHONIOENCODING": "utf-8", **(env or {})},
        cwd=cwd,
    )


def with_password(url: str) -> str:
    """The URL with a password (the test servers trust every local connection)."""
    if "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    user, host = rest.split("@", 1)
    return f"{scheme}://{user}:s3cret-pw@{host}"


def test_where_says_each_part_and_where_it_came_from(db, tmp_path):
    notebook = tmp_path / "team" / "q3.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}")
    url = with_password(db)
    env = {
        "JUPYTER_PLANS_DATABASE": url,
        "JUPYTER_PLANS_SESSION_ID": "{notebook_path}",
        "JUPYTER_PLANS_SERVER_ROOT": str(tmp_path),
    }
    missing = run("where", str(notebook), env=env)
    assert missing.returncode == 1, missing.stderr
    lines = missing.stdout.splitlines()
    assert len(lines) == 3 and "s3cret-pw" not in missing.stdout
    assert lines[0].startswith("database: ") and lines[0].endswith("(environment)")
    assert lines[1] == "session: team/q3.ipynb (environment)"
    assert lines[2].startswith("exists: no")
    with PlanStore(url) as store:
        store.session("team/q3.ipynb").on()
    found = run("where", str(notebook), env=env)
    assert found.returncode == 0 and found.stdout.splitlines()[2] == "exists: yes"
    # --db and --session win where given; the CLI's own settings, filled in from NB.
    given = run("where", str(notebook), "--session", "{notebook_stem}", env=env)
    assert given.stdout.splitlines()[1] == "session: q3 (setting)" and given.returncode == 1


def test_where_by_default_is_the_file_beside(tmp_path):
    (tmp_path / "a.ipynb").write_text("{}")
    said = run("where", str(tmp_path / "a.ipynb"))
    assert said.returncode == 1
    assert said.stdout.splitlines()[:2] == [
        f"database: {tmp_path / 'a.plans.sqlite'} (default)",
        "session: (the database's current session) (default)",
    ]
    assert not (tmp_path / "a.plans.sqlite").exists()  # looking makes nothing
    PlanStore(tmp_path / "a.plans.sqlite").session("default").on()
    assert run("where", str(tmp_path / "a.ipynb")).returncode == 0


def test_every_notebook_option_finds_the_configured_plan(db, tmp_path):
    """snapshot, events and plan with --notebook and only the environment: the team's plan,
    and no plan file beside the notebook."""
    notebook = tmp_path / "sales.ipynb"
    notebook.write_text("{}")
    env = {"JUPYTER_PLANS_DATABASE": db, "JUPYTER_PLANS_SESSION_ID": "{notebook_stem}"}
    done = run("plan", "--notebook", str(notebook), "on", env=env)
    assert done.returncode == 0, done.stderr
    snapshot = json.loads(run("snapshot", "--notebook", str(notebook), env=env).stdout)
    assert (snapshot["session_id"], snapshot["mode"]) == ("sales", "plan")
    events = run("events", "--notebook", str(notebook), env=env).stdout.splitlines()
    assert [json.loads(line)["kind"] for line in events] == ["mode_changed"]
    assert not (tmp_path / "sales.plans.sqlite").exists()
    with PlanStore(db) as store:
        assert store.session("sales").snapshot().mode == "plan"


def test_sessions_hides_the_deleted_and_lists_them_when_asked(db):
    with PlanStore(db) as store:
        for sid in ("a.ipynb", "b.ipynb"):
            store.session(sid).on()
        mark_deleted(store, "a.ipynb")
    listed = run("sessions", "--db", db)
    assert [json.loads(line)["session_id"] for line in listed.stdout.splitlines()] == ["b.ipynb"]
    gone = run("sessions", "--db", db, "--deleted")
    [row] = [json.loads(line) for line in gone.stdout.splitlines()]
    assert row["session_id"] == "a.ipynb" and row["deleted_at"]


@pytest.mark.parametrize("command", ["snapshot", "sessions", "events"])
def test_a_command_without_a_plan_named_is_a_usage_error(command):
    said = run(command)
    assert said.returncode == 2 and "--notebook NB or --db DB" in said.stderr
    assert len(said.stderr.splitlines()) == 1


def test_a_hook_with_notebook_reads_the_teams_plan_without_the_heavy_libraries(db, tmp_path):
    """The guard before a tool call finds the plan as the kernel does (the environment a
    Jupyter terminal has), and still loads neither pydantic nor SQLAlchemy for a plan file."""
    notebook = tmp_path / "sales.ipynb"
    notebook.write_text("{}")
    env = {"JUPYTER_PLANS_DATABASE": db, "JUPYTER_PLANS_SESSION_ID": "{notebook_stem}"}
    with PlanStore(db) as store:
        store.session("sales").on()
    code = (
        "import runpy, sys\n"
        "sys.argv = ['jupyter-plans', 'hook', 'PreToolUse', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('jupyter_plans.cli', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic_core', 'pydantic', 'sqlalchemy')\n"
        "print('loaded:', [name for name in heavy if name in sys.modules], file=sys.stderr)\n"
    )
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {}}
    base = {k: v for k, v in os.environ.items() if k not in CLEAN}
    said = subprocess.run(
        [sys.executable, "-c", code, "--notebook", str(notebook)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        env=base | env,
    )
    answer = json.loads(said.stdout)["hookSpecificOutput"]
    assert (
        answer["permissionDecision"] == "deny" and "plan mode" in answer["permissionDecisionReason"]
    )
    if "://" not in db:  # PostgreSQL's driver comes with SQLAlchemy's URL
        assert said.stderr.strip().splitlines()[-1] == "loaded: []"
    assert not (tmp_path / "sales.plans.sqlite").exists()


def test_db_and_session_win_over_the_notebooks_own_where_given(tmp_path):
    """--notebook NB with --db and --session: theirs win, filled in from NB."""
    notebook = tmp_path / "q3.ipynb"
    notebook.write_text("{}")
    env = {"JUPYTER_PLANS_DATABASE": str(tmp_path / "team.sqlite")}
    db = str(tmp_path / "{notebook_stem}-own.sqlite")
    done = run(
        "plan",
        "--notebook",
        str(notebook),
        "--db",
        db,
        "--session",
        "x-{notebook_stem}",
        "on",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    with PlanStore(tmp_path / "q3-own.sqlite") as store:
        assert store.session("x-q3").snapshot().mode == "plan"
    assert not (tmp_path / "team.sqlite").exists()


def test_hook_install_keeps_db_and_session_beside_the_notebook(tmp_path):
    """The hooks it registers name the plan as it was named: --db still wins in them."""
    notebook = tmp_path / "q3.ipynb"
    notebook.write_text("{}")
    db = str(tmp_path / "team.sqlite")
    said = run("hook", "install", "claude-code", "--notebook", str(notebook), "--db", db)
    assert said.returncode == 0, said.stderr
    [group] = json.loads(said.stdout)["hooks"]["PreToolUse"]
    command = group["hooks"][0]["command"]
    assert f"--notebook {notebook}" in command and f"--db {db}" in command
