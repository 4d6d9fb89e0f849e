"""Every answer of `jupyter-plans hook EVENT` to the recorded inputs of tests/hooks/ (and a few
malformed ones), in every state a plan can be in, through every way of naming it: what the hook
printed and exited with, and what it left in the plan file (its heartbeat, the note that a
renamed notebook was followed).

`python -m tests.hooks.answers > tests/hooks/answers.recorded.json` records them; run from a
checkout of the version whose answers are the reference, so that its package is the one
imported. test_answers.py holds the hook to that record, answer for answer. The hook runs in
this process (its command line's main), each time in a fresh copy of the state's folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

INPUTS = Path(__file__).parent
STATES = ("none", "default", "plan", "waiting", "foreign", "gone", "moved", "taken")
STEPS = [
    {"id": "load", "description": "load the sales table", "status": "completed"},
    {"id": "clean", "description": "drop the duplicate rows", "status": "in_progress"},
    {"id": "plot", "description": "plot the monthly totals", "depends_on": ["clean"]},
]
PROPOSAL = {
    "explanation": "Clean first, then plot.",
    "findings": ["the table has duplicate rows"],
    "objectives": ["a plot of the monthly totals"],
    "steps": [{"id": "clean", "description": "drop the duplicate rows"}],
}
CLAUDE_ENV = {"CLAUDE_PROJECT_DIR": "/home/me/project", "AI_AGENT": "claude-code_2-1-332_cli"}
FLAGS = {"": [], "ask": ["--ask"], "guard": ["--guard", "Write,mcp__*"]}
# Inputs beside the recorded ones: what a host should never send, and the edges of the guard.
MADE = {
    "not-json": b"{",
    "not-an-object": b"[1, 2]",
    "no-tool-name": b'{"hook_event_name": "PreToolUse"}',
    "other-event": (INPUTS / "claude-code" / "Stop.json").read_bytes(),
    "mcp-tool": b'{"hook_event_name": "PreToolUse", "tool_name": "mcp__db__drop_table"}',
    "claude-plan": json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "permission_mode": "plan",
            "tool_name": "Write",
            "tool_input": {"file_path": "{folder}/claude/plans/p.md", "content": "# plan"},
        }
    ).encode(),
}


def _state(folder: Path, state: str) -> None:
    """The notebook nb.ipynb in `folder` and its plan file, as `state` says."""
    from jupyter_plans import PlanStore
    from jupyter_plans.store.following import follow

    notebook = folder / "nb.ipynb"
    notebook.write_text("{}")
    plan = folder / "nb.plans.sqlite"
    if state == "none":
        return
    if state == "foreign":
        plan.write_bytes(b"a file of another program\n" * 8)
        return
    with follow.open_for(notebook, str(plan), PlanStore, "test") as store:
        session = store.session("default")
        result = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not result.is_error, result.content
        if state != "default":
            session.on()
        if state == "waiting":
            assert not session.call_tool("plan_submit", PROPOSAL).is_error
    if state == "gone":  # renamed by hand: its plan file stays, and names it
        notebook.rename(folder / "other.ipynb")
    if state in ("moved", "taken"):  # moved with its plan file, which says where it came from
        from jupyter_plans.notebook.move import move_notebook

        move_notebook(notebook, folder / "moved.ipynb")
    if state == "taken":  # and a new notebook took the name, without a plan of its own
        notebook.write_text("{}")


def _targets(folder: Path) -> dict[str, list[str]]:
    plan, notebook = str(folder / "nb.plans.sqlite"), str(folder / "nb.ipynb")
    return {
        "db-session": ["--db", plan, "--session", "default"],
        "db": ["--db", plan],
        "notebook": ["--notebook", notebook],
        "notebook-other-session": ["--notebook", notebook, "--session", "other"],
        "db-not-plain": ["--db", str(folder) + "/./nb.plans.sqlite"],
        "db-relative": ["--db", "nb.plans.sqlite"],
    }


def _inputs(event: str) -> dict[str, bytes]:
    found = {
        f"{host}/{path.stem}": path.read_bytes()
        for host in ("claude-code", "codex")
        for path in sorted((INPUTS / host).glob(f"{event}*.json"))
    }
    return found | (MADE if event == "PreToolUse" else {})


def _run(argv: list[str], stdin: bytes, env: dict, cwd: Path) -> tuple[int, str, str]:
    from jupyter_plans.hooks.command import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_stdin, saved_cwd = dict(os.environ), sys.stdin, os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exit_:
                status = exit_.code
    finally:
        os.chdir(saved_cwd)
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
    return status, out.getvalue(), err.getvalue()


def _rows(plan: Path) -> dict[str, list] | str:
    """Every row of a plan file's tables but the heartbeats (a JSON list each, without its
    time, under "guard_seen"); the first bytes of a file that is not SQLite."""
    try:
        connection = sqlite3.connect(f"file:{plan}?mode=ro", uri=True)
        tables = [
            r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
    except sqlite3.DatabaseError:
        return plan.read_bytes()[:40].hex()
    try:
        found = {
            table: sorted(map(repr, connection.execute(f"SELECT * FROM {table}")))  # noqa: S608
            for table in tables
            if not table.startswith("sqlite_") and table != "guard_seen"
        }
        if "guard_seen" in tables:
            query = "SELECT agent, agent_version, point FROM guard_seen ORDER BY agent"
            found["guard_seen"] = [list(row) for row in connection.execute(query)]
        return found
    finally:
        connection.close()


def _left(folder: Path, before: Path) -> dict[str, dict]:
    """What the hook left in each plan file of `folder`: its heartbeats (without their time),
    the note that it followed a renamed notebook, and whether anything else changed since
    `before` (the state it ran in)."""
    found = {}
    for plan in sorted(folder.glob("*.plans.sqlite")):
        now, then = _rows(plan), _rows(before / plan.name)
        if isinstance(now, str):
            found[plan.name] = {"bytes": now, "unchanged": now == then}
            continue
        seen = now.pop("guard_seen", [])
        then.pop("guard_seen", None)
        told = [r for r in now.get("plans_settings", []) if "former_notebooks_told" in r]
        for rows in (now, then):
            rows["plans_settings"] = [
                r for r in rows.get("plans_settings", []) if "former_notebooks_told" not in r
            ]
        found[plan.name] = {"seen": seen, "told": told, "unchanged": now == then}
    return found


def answers() -> dict[str, dict]:
    """Every answer, by scenario: `STATE TARGET FLAGS INPUT` -> status, stdout, stderr, left."""
    base = os.environ | {"HOME": "/nonexistent-home"}
    hosts = ("CLAUDE", "CODEX", "AI_", "JUPYTER_PLANS")
    base = {k: v for k, v in base.items() if not k.startswith(hosts)}
    found = {}
    with tempfile.TemporaryDirectory() as top:
        templates = Path(top) / "templates"
        for state in STATES:
            (templates / state).mkdir(parents=True)
            _state(templates / state, state)
        for state in STATES:
            for event in ("PreToolUse", "SessionStart", "UserPromptSubmit", "PreCompact", "Stop"):
                for name, stdin in _inputs(event).items():
                    host_env = CLAUDE_ENV if name.startswith("claude") else {}
                    for target in _targets(Path("{folder}")):
                        flag_sets = FLAGS if event == "PreToolUse" else {"": []}
                        if event != "PreToolUse" and target not in ("db", "notebook"):
                            continue
                        for flags in flag_sets:
                            key = f"{state} {target} {flags or '-'} {event} {name}"
                            folder = Path(top) / "run"
                            shutil.rmtree(folder, ignore_errors=True)
                            shutil.copytree(templates / state, folder)
                            argv = [event, *_targets(folder)[target], *FLAGS[flags]]
                            env = base | host_env | {"CLAUDE_CONFIG_DIR": f"{folder}/claude"}
                            data = stdin.replace(b"{folder}", str(folder).encode())
                            status, out, err = _run(argv, data, env, folder)
                            left = _left(folder, templates / state)
                            text = json.dumps([status, out, err, left])
                            found[key] = json.loads(text.replace(str(folder), "{folder}"))
    return found


def recorded() -> dict[str, list]:
    """The reference: each distinct answer once, and the scenarios that gave it."""
    data = json.loads((INPUTS / "answers.recorded.json").read_text(encoding="utf-8"))
    return {key: data["answers"][index] for key, index in data["scenarios"].items()}


if __name__ == "__main__":
    distinct: list = []
    scenarios = {}
    for key, found in answers().items():
        if found not in distinct:
            distinct.append(found)
        scenarios[key] = distinct.index(found)
    json.dump({"answers": distinct, "scenarios": scenarios}, sys.stdout, indent=0)
    print()
