"""PreToolUse runs before every guarded tool call of every turn, each time in a new process: it
loads what deciding needs (the standard library's sqlite3, json's C functions, the read-only
store, the guard's words) and nothing else of weight. What it answers is held by
test_answers.py; here, what it loads, and the one shortcut it takes in checking a session id."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_plans import PlanStore
from jupyter_plans.plan.ids import MAX_SESSION_ID_BYTES, plainly_a_session_id
from jupyter_plans.plan.intake import session_id_refusal
from jupyter_plans.store.following import follow

INPUTS = Path(__file__).parent
# What took the hook most of its time before it answered without them (p50 48 ms, 4.8 times
# python -c pass, of which these were some 30 ms), and what it never needs.
NOT_LOADED = (
    "pydantic",
    "pydantic_core",
    "sqlalchemy",
    "orjson",
    "typing",
    "pathlib",
    "dataclasses",
    "inspect",
    "argparse",
    # json itself compiles regular expressions as it loads (re, enum): a fifth of the hook's
    # instructions, where json's C functions read and write the same (json_lite.py).
    "json",
    "re",
    "enum",
    "jupyter_plans.session",
    "jupyter_plans.store.store",
)
# The console script, then what was loaded: the hook's process as the host starts it.
SCRIPT = (
    "import sys\n"
    "from jupyter_plans.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    print(sorted(sys.modules), file=sys.stderr)\n"
)


def notebook(folder: Path, name: str, plan_mode: bool) -> Path:
    path = folder / name
    path.write_text("{}")
    with follow.open_for(path, str(path.with_suffix(".plans.sqlite")), PlanStore, "test") as store:
        if plan_mode:
            store.session("default").on()
    return path


def loaded(argv: list[str], stdin: bytes) -> tuple[dict | None, list[str]]:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, "hook", "PreToolUse", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr.decode()
    answer = json.loads(run.stdout) if run.stdout.strip() else None
    return answer, eval(run.stderr.decode().strip().splitlines()[-1])  # noqa: S307 - a list


@pytest.mark.parametrize("name", ["claude-code/PreToolUse.Write", "codex/PreToolUse.apply_patch"])
def test_the_tool_boundary_loads_only_what_deciding_needs(tmp_path, name):
    """Denied in plan mode, by --notebook and by --db, with its heartbeat written; allowed in
    default mode; and the plan tools passed without reading the plan."""
    stdin = (INPUTS / f"{name}.json").read_bytes()
    planning = notebook(tmp_path, "planning.ipynb", plan_mode=True)
    working = notebook(tmp_path, "working.ipynb", plan_mode=False)
    by_db = ["--db", str(planning.with_suffix(".plans.sqlite")), "--session", "default"]
    submit = INPUTS / "claude-code" / "PreToolUse.mcp__jupyter-plans__plan_submit.json"
    for argv, data, decision, read in (
        (["--notebook", str(planning)], stdin, "deny", True),
        (by_db, stdin, "deny", True),
        (["--notebook", str(working)], stdin, None, True),
        (["--notebook", str(planning)], submit.read_bytes(), None, False),
    ):
        answer, modules = loaded(argv, data)
        found = answer and answer["hookSpecificOutput"]["permissionDecision"]
        assert found == decision, answer
        assert ("sqlite3" in modules) == read and "_json" in modules
        heavy = [m for m in NOT_LOADED if m in modules]
        assert heavy == [], f"PreToolUse {' '.join(argv)} loaded {heavy}"


@settings(max_examples=500, deadline=None)
@given(
    st.text(
        alphabet=st.characters(min_codepoint=0, max_codepoint=0x3000, exclude_categories=["Cs"]),
        max_size=MAX_SESSION_ID_BYTES + 3,
    )
    | st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=130)
)
def test_a_session_id_taken_without_the_rules_is_one_the_rules_take(session_id):
    if plainly_a_session_id(session_id):
        assert session_id_refusal(session_id) is None, session_id
