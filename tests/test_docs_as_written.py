"""The manual tried exactly as written: in docs/connect.md its MCP command and registrations,
its built-in agent cells (against a replaying endpoint where the page points), its Python and
the hooks' install; docs/journal.md's examples; docs/cli.md's move of a notebook with its plan."""

from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_plans import PlanStore
from tests.agents.mcp_client import COMMAND, serving
from tests.replay_server import ReplayServer, load_recording

DOCS = Path(__file__).resolve().parents[1] / "docs"


def blocks(page: str = "connect.md") -> list[tuple[str, str]]:
    """(language, text) of each fenced block of the page, in order."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S)


def block(language: str, holding: str) -> str:
    found = [body for lang, body in blocks() if lang == language and holding in body]
    assert len(found) == 1, f"one {language} block holding {holding!r}; found {len(found)}"
    return found[0]


def test_the_python_way_runs_and_prints_what_the_page_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = block("python", "Toolbox(")
    shown = block("text", "tool_call_id")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/connect.md", "exec"), {"__name__": "connect"})
    assert out.getvalue() == shown
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        assert [s.id for s in store.session("default").snapshot().plan.steps] == ["load"]


def test_the_mcp_command_serves_the_notebooks_plan(tmp_path):
    command = shlex.split(block("sh", "jupyter-plans mcp --notebook analysis").strip())
    assert command[:2] == ["jupyter-plans", "mcp"]
    (tmp_path / "analysis.ipynb").write_text("{}")

    async def scenario():
        async with serving(tmp_path, *command[2:]) as client:
            assert await client.tool_names() == ["update_plan", "record_decision", "comment_reply"]
            assert client.init.capabilities.experimental == {"durable_plans": {"version": 1}}
            steps = [{"id": "load", "description": "Load sales.csv"}]
            result = await client.call("update_plan", {"expected_revision": 0, "steps": steps})
            assert not result.is_error

    anyio.run(scenario)
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        assert store.session().snapshot().plan.steps[0].description == "Load sales.csv"


def test_the_registrations_name_a_command_line_that_parses():
    claude = shlex.split(block("sh", "claude mcp add").strip())
    served = claude[claude.index("--") + 2 :]
    config = json.loads(block("json", "mcpServers"))["mcpServers"]["jupyter-plans"]
    for args in (served, config["args"]):
        assert args[:2] == ["mcp", "--notebook"]
        # Run as written, the command gets past its arguments to the notebook's plan file
        # (which cannot be made where the page's example path is: one line, exit 1).
        done = subprocess.run(
            [*COMMAND, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
        )
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert done.stderr.startswith("jupyter-plans: cannot create /path/to/analysis.plans.sqlite")


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_the_builtin_agent_cells_run_as_written(tmp_path, monkeypatch, capsys):
    setup, ask = block("ipython", "%load_ext"), block("ipython", "%%agent")
    port = int(re.search(r"localhost:(\d+)", setup).group(1))
    if not _port_free(port):
        pytest.skip(f"port {port}, where the page's endpoint is, is taken on this machine")
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "JUPYTER_PLANS_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    shell = InteractiveShell.instance()
    shell.config.PlanMagics.auto_display = False
    shell.user_ns["sales"] = [3, 1, 3, 2, 1]
    try:
        with ReplayServer(load_recording("duplicates"), port=port) as server:
            for source in (setup, ask):
                result = shell.run_cell(source)
                assert result.success, capsys.readouterr()
        assert server.failures == [] and server.unused == 0
        out = capsys.readouterr().out
        assert "Let me look at the data." in out
        assert "sales has 5 rows; 2 of them repeat an earlier row (3 and 1)." in out
    finally:
        shell.run_line_magic("unload_ext", "jupyter_plans")
        shell.config.OpenAIAgent.clear()
        shell.config.PlanMagics.clear()
        shell.user_ns.pop("sales", None)


# docs/journal.md: its examples are what export and %load_ext print for this plan.

OBJECTIVES = ["a weekly revenue chart", "a baseline model with its error on June"]
JOURNAL_TEXT = {
    "explanation": "Clean first: 3.1% of prices are null.",
    "findings": ["price is null in 412 of 13,290 rows"],
    "objectives": OBJECTIVES,
}


def journal_blocks() -> list[tuple[str, str]]:
    text = (DOCS / "journal.md").read_text(encoding="utf-8")
    return re.findall(r"^ *```(\w*)\n(.*?)^ *```", text, flags=re.S | re.M)


def test_the_journal_examples_are_what_the_plan_gives(store):
    from jupyter_plans.journal.views import render
    from jupyter_plans.notebook.resume import remember_seen, since_last_seen

    session = store.session("default")

    markdown = [body for lang, body in journal_blocks() if lang == "markdown"]
    (told,) = [body for lang, body in journal_blocks() if lang == "text"]
    (ignored,) = [body for lang, body in journal_blocks() if lang == "gitignore"]
    session.start_planning("Clean sales.csv and fit a baseline model of weekly revenue")
    steps = [
        {"id": "load", "description": "Load sales.csv"},
        {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
        {"id": "chart", "description": "Chart weekly revenue", "depends_on": ["clean"]},
        {
            "id": "fit",
            "description": "Fit the baseline, score it on June",
            "depends_on": ["clean"],
            "acceptance": "MAPE printed for June",
        },
    ]
    assert not session.call_tool("plan_submit", {**JOURNAL_TEXT, "steps": steps}).is_error
    session.approve()
    steps[0]["status"], steps[1]["status"] = "completed", "in_progress"
    update = {"expected_revision": 1, **JOURNAL_TEXT, "steps": steps}
    assert not session.call_tool("update_plan", update).is_error
    assert render(session.session_id, session.events())["checkpoint.md"] == markdown[0]
    remember_seen(session, "analysis.ipynb", session.cursor())  # the person looks, then leaves

    for step in steps[1:]:
        step["status"] = "completed"
    steps[3]["evidence"] = "MAPE 8.1% on June"
    update = {"expected_revision": 2, **JOURNAL_TEXT, "steps": steps}
    assert not session.call_tool("update_plan", update).is_error
    review = [
        {
            "objective": OBJECTIVES[0],
            "outcome": "drawn for 26 weeks",
            "evidence": "figure 1 in the notebook",
        },
        {"objective": OBJECTIVES[1], "outcome": "fitted", "evidence": "MAPE 8.1% on June"},
    ]
    assert not session.call_tool("finish_plan", {"review": review}).is_error
    assert markdown[1] in render(session.session_id, session.events())["plan.md"]
    assert since_last_seen(session, "analysis.ipynb") + "\n" == told
    patterns = ignored.split()
    for name in ("analysis.plans.sqlite", "analysis.plans.sqlite-wal", "analysis.plans.sqlite-shm"):
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def test_the_hook_install_registers_hooks_that_answer(tmp_path):
    command = shlex.split(block("sh", "jupyter-plans hook install").strip())
    assert command[:3] == ["jupyter-plans", "hook", "install"]
    script = Path(sys.executable).with_name("jupyter-plans")
    subprocess.run([str(script), *command[1:]], cwd=tmp_path, check=True, capture_output=True)
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreCompact", "Stop"]
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        store.session().on()
    pre = shlex.split(hooks["PreToolUse"][0]["hooks"][0]["command"])
    ask = {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {}}
    answer = subprocess.run(pre, input=json.dumps(ask).encode(), capture_output=True, check=True)
    assert json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_move_command_takes_the_plan_along_while_the_old_file_is_open(tmp_path):
    """docs/cli.md, `jupyter-plans move`: the notebook and its plan file move together, commits
    still in the `-wal` file included, while a store holds the old file open; the store's next
    write lands in the moved file."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    (line,) = [x for x in text.splitlines() if x.startswith("jupyter-plans move ")]
    argv = shlex.split(line.split("#", 1)[0])
    old, new = argv[2], argv[3]
    (tmp_path / old).write_text("{}")
    steps = [{"id": "load", "description": "Load the survey"}]
    with PlanStore(tmp_path / old.replace(".ipynb", ".plans.sqlite")) as store:
        session = store.session()
        for revision in range(3):
            update = {"expected_revision": revision, "steps": steps}
            assert not session.call_tool("update_plan", update).is_error
        assert Path(f"{store.path}-wal").stat().st_size > 0  # not checkpointed
        command = [sys.executable, "-m", "jupyter_plans.cli", *argv[1:]]
        subprocess.run(command, cwd=tmp_path, check=True, capture_output=True)
        update = {"expected_revision": 3, "steps": steps}
        assert not session.call_tool("update_plan", update).is_error
        assert sorted(p.name for p in tmp_path.iterdir())[:2] == [new, new[:-6] + ".plans.sqlite"]
    with PlanStore(tmp_path / new.replace(".ipynb", ".plans.sqlite")) as moved:
        assert moved.session().snapshot().plan.revision == 4
