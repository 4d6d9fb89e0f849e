"""The guard proves itself (DESIGN section 15) at the hook: the heartbeat it leaves in the plan,
on both engines, at most once in 10 s per agent and never an event; and a hook whose notebook
is gone, which refuses what it cannot check, or follows the plan file that came from it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.guards import HEARTBEAT_MS, now_ms
from tests.engines import dump_tables
from tests.helpers.cli import COMMAND

from .real_clis import notebook_in_plan_mode
from .runs import assert_denied, assert_warning_only, at, hook, recorded

CLAUDE_ENV = {"CLAUDE_PROJECT_DIR": "/home/me/project", "AI_AGENT": "claude-code_2-1-332_cli"}


def env(**extra: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "AI_"))}
    return {**clean, **extra}


def seen_rows(db: str) -> list[tuple]:
    """The guard_seen rows, on either engine."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as conn:
            query = "SELECT agent, agent_version, point, at FROM guard_seen ORDER BY agent"
            return [tuple(row) for row in conn.execute(text(query))]
    finally:
        engine.dispose()


def set_seen(db: str, agent: str, assignments: str, **values: object) -> None:
    """Change the agent's heartbeat row as a run of its hook at another time would have left
    it: `assignments` is the SET clause, with `values` bound by name."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.begin() as conn:
            conn.execute(
                text(f"UPDATE guard_seen SET {assignments} WHERE agent = :agent"),
                {**values, "agent": agent},
            )
    finally:
        engine.dispose()


def test_each_agent_leaves_a_heartbeat_at_most_once_in_10_s_and_no_event(db, tmp_path):
    with PlanStore(db) as store:
        store.session("s").on()
        before = store.session("s").snapshot()
    tables = dump_tables(db)
    bash = recorded("claude-code", "PreToolUse.Bash")
    _, answer, _ = hook("PreToolUse", bash, *at(db), env=env(**CLAUDE_ENV))
    assert_denied(answer, "plan mode")
    ((agent, version, point, first),) = seen_rows(db)
    assert (agent, version, point) == ("Claude Code", "2.1.332", "PreToolUse")
    # Codex, with its version from the package its npm launcher names.
    package = tmp_path / "codex-package"
    package.mkdir()
    (package / "package.json").write_text(
        json.dumps({"name": "@openai/codex", "version": "0.171.0"})
    )
    codex = env(CODEX_MANAGED_PACKAGE_ROOT=str(package))
    hook("SessionStart", recorded("codex", "SessionStart.startup"), *at(db), env=codex)
    assert seen_rows(db)[1][:3] == ("Codex", "0.171.0", "SessionStart")
    # Within 10 s another run of the same agent writes nothing; after, it writes again. The
    # runs above may have taken seconds each on a loaded machine: the beat is dated now, and
    # the run is tried again should it end 10 s or more after that.
    for _run in range(3):
        first = now_ms()
        set_seen(db, "Claude Code", "point = :point, at = :at", point=point, at=first)
        hook("Stop", recorded("claude-code", "Stop"), *at(db), env=env(**CLAUDE_ENV))
        if now_ms() - first < HEARTBEAT_MS:
            break
    assert seen_rows(db)[0] == (agent, version, point, first)
    set_seen(db, "Claude Code", "at = at - :by", by=HEARTBEAT_MS)
    hook("Stop", recorded("claude-code", "Stop"), *at(db), env=env(**CLAUDE_ENV))
    assert seen_rows(db)[0][2] == "Stop" and seen_rows(db)[0][3] >= first
    # Not an event: no cursor moved, no revision, every plan table as it was.
    with PlanStore(db) as store:
        assert store.session("s").snapshot() == before
    assert dump_tables(db) == tables


def test_a_heartbeat_dated_in_the_future_is_replaced_and_ages_on_the_card(db):
    """A guard host whose clock ran an hour fast left its heartbeat: the next run of a guard
    (the hook, or the ACP bridge's in a full store) replaces it, and until then the card
    counts its age from when it first read it, never "0 s ago" for an hour."""
    import time

    from jupyter_plans.card.guards import guard_data
    from jupyter_plans.store.guards import record_seen

    with PlanStore(db) as store:
        store.session("s").on()
    hook("Stop", recorded("claude-code", "Stop"), *at(db), env=env(**CLAUDE_ENV))
    set_seen(db, "Claude Code", "at = at + 3600000")  # an hour ahead
    with PlanStore(db) as store:
        session = store.session("s")
        (shown,) = guard_data(session, session.snapshot_data(), None)["seen"]
        read_at = now_ms()
        assert shown["at"] <= read_at  # dated when first read, not an hour ahead
        time.sleep(1.1)  # time passing is the point: its age grows
        data = guard_data(session, session.snapshot_data(), None)
        assert data["now"] - data["seen"][0]["at"] >= 1000
    hook("Stop", recorded("claude-code", "Stop"), *at(db), env=env(**CLAUDE_ENV))
    ((_agent, _version, _point, beat),) = seen_rows(db)
    assert beat <= now_ms(), "the hook's heartbeat replaced the one from the future"
    set_seen(db, "Claude Code", "at = at + 3600000")
    with PlanStore(db) as store, store.write() as tx:
        assert record_seen(tx, "Claude Code", "2.1.332", "acp-bridge")
    assert seen_rows(db)[0][3] <= now_ms()


def test_a_writer_holding_the_lock_costs_the_heartbeat_not_the_answer(tmp_path):
    db = str(tmp_path / "a.plans.sqlite")
    with PlanStore(db) as store:
        store.session("s").on()
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        status, answer, _ = hook(
            "PreToolUse", recorded("claude-code", "PreToolUse.Write"), *at(db), env=env()
        )
        assert status == 0
        assert_denied(answer, "plan mode")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert seen_rows(db) == []


# A notebook that is gone.


def write_hook(
    notebook: Path, tool: str = "Write", hook_env: dict | None = None, event="PreToolUse"
):
    names = {"PreToolUse": f"PreToolUse.{tool}", "SessionStart": "SessionStart.startup"}
    return hook(
        event,
        recorded("claude-code", names.get(event, event)),
        "--notebook",
        str(notebook),
        env=hook_env or env(**CLAUDE_ENV),
    )


@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_deleted_notebook_refuses_writes_edits_and_commands_in_any_mode(tmp_path, mode):
    notebook = notebook_in_plan_mode(tmp_path, "a.ipynb")
    if mode == "off":
        with PlanStore(notebook.with_name("a.plans.sqlite")) as store:
            store.session("default").off()
    notebook.unlink()
    notebook.with_name("a.plans.sqlite").unlink()  # Jupyter's delete takes it to the trash
    for tool in ("Write", "Edit", "Bash", "NotebookEdit"):
        status, answer, _ = write_hook(notebook, tool)
        assert status == 0
        reason = assert_denied(answer, str(notebook), "is gone", "jupyter-plans hook install")
        assert "unchecked" not in reason
        assert "jupyter-plans hook install claude-code --notebook" in reason
    assert write_hook(notebook, "Read")[1] is None  # reading goes on
    _, answer, _ = write_hook(notebook, event="SessionStart")
    assert_warning_only(answer, "is gone", "jupyter-plans hook install")


def test_a_notebook_renamed_by_hand_is_gone_though_its_plan_file_stays(tmp_path):
    notebook = notebook_in_plan_mode(tmp_path, "a.ipynb")
    with PlanStore(notebook.with_name("a.plans.sqlite")) as store:
        store.session("default").off()  # the old plan even says default mode
    notebook.rename(tmp_path / "b.ipynb")
    _, answer, _ = write_hook(notebook, "Bash")
    assert_denied(answer, "is gone")
    # A plan file no notebook ever opened (a script's) is read as it is.
    lone = tmp_path / "lone.ipynb"
    with PlanStore(tmp_path / "lone.plans.sqlite") as store:
        store.session("default").on()
    assert_denied(write_hook(lone)[1], "plan mode")


def test_a_hook_follows_the_plan_file_moved_from_its_notebook_and_says_so_once(tmp_path):
    notebook = notebook_in_plan_mode(tmp_path, "a.ipynb")
    moved = subprocess.run(
        [*COMMAND, "move", "a.ipynb", "b.ipynb"], cwd=tmp_path, capture_output=True, text=True
    )
    assert moved.returncode == 0, moved.stderr
    assert not notebook.exists() and not notebook.with_name("a.plans.sqlite").exists()
    _, answer, _ = write_hook(notebook)
    reason = assert_denied(answer, "plan mode")
    line = answer["systemMessage"]
    assert "a.ipynb was renamed to b.ipynb" in line and "b.plans.sqlite" in line
    assert f"jupyter-plans hook install claude-code --notebook {tmp_path / 'b.ipynb'}" in line
    assert "unchecked" not in reason
    _, answer, _ = write_hook(notebook)
    assert_denied(answer, "plan mode")
    assert "systemMessage" not in answer  # said once
    with PlanStore(tmp_path / "b.plans.sqlite") as store:
        store.session("default").off()
    assert write_hook(notebook)[1] is None  # b's plan decides: default mode
    assert seen_rows(str(tmp_path / "b.plans.sqlite"))[0][0] == "Claude Code"
    # Moved again: the chain of names is kept.
    subprocess.run(
        [*COMMAND, "move", "b.ipynb", "c.ipynb"], cwd=tmp_path, check=True, capture_output=True
    )
    with PlanStore(tmp_path / "c.plans.sqlite") as store:
        store.session("default").on()
    _, answer, _ = write_hook(notebook)
    assert_denied(answer, "plan mode")
    assert "renamed to c.ipynb" in answer["systemMessage"]


def test_a_codex_hook_is_told_to_trust_again(tmp_path):
    notebook = notebook_in_plan_mode(tmp_path, "a.ipynb")
    notebook.unlink()
    notebook.with_name("a.plans.sqlite").unlink()
    _, answer, _ = hook(
        "PreToolUse",
        recorded("codex", "PreToolUse.apply_patch"),
        "--notebook",
        str(notebook),
        env=env(),
    )
    assert_denied(answer, "jupyter-plans hook install codex --notebook", "--trust")


def test_the_install_records_itself_in_the_plan_on_both_engines(db, tmp_path):
    """`hook install --write` records itself, so the card can say in plan mode that a guard
    installed for this plan has not been heard from; the agent's first heartbeat ends that."""
    from jupyter_plans.card.guards import guard_data

    proc = subprocess.run(
        [*COMMAND, "hook", "install", "claude-code", "--db", db, "--session", "s", "--write"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env(HOME=str(tmp_path / "home")),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    with PlanStore(db) as store:
        session = store.session("s")
        session.on()
        data = guard_data(session, session.snapshot_data(), None)
        assert [s["agent"] for s in data["silent"]] == ["Claude Code"]
        assert data["silent"][0]["doctor"].startswith("jupyter-plans hook doctor claude-code --db")
    hook(
        "UserPromptSubmit",
        recorded("claude-code", "UserPromptSubmit"),
        *at(db),
        env=env(**CLAUDE_ENV),
    )
    with PlanStore(db) as store:
        session = store.session("s")
        data = guard_data(session, session.snapshot_data(), None)
        assert data["silent"] == [] and data["seen"][0]["point"] == "UserPromptSubmit"


def test_a_new_notebook_of_the_old_name_does_not_lift_the_moved_plans_guard(server):
    """Untitled.ipynb's hook is installed and its plan is in plan mode; the notebook is renamed
    through Jupyter (its plan goes with it), and File > New makes Untitled.ipynb again. The old
    hook follows the moved plan, which still holds: no Write goes through "unchecked"."""
    import uuid

    from tests.http import request

    folder = f"new-{uuid.uuid4().hex[:8]}"
    (server["root"] / folder).mkdir()
    status, made = request(server, "POST", f"/api/contents/{folder}", {"type": "notebook"})
    assert status == 201 and made["name"] == "Untitled.ipynb", made
    untitled = server["root"] / folder / "Untitled.ipynb"
    notebook_in_plan_mode(untitled.parent, untitled.name)
    assert_denied(write_hook(untitled)[1], "plan mode")
    status, _ = request(
        server, "PATCH", f"/api/contents/{folder}/Untitled.ipynb", {"path": f"{folder}/a.ipynb"}
    )
    assert status == 200 and (untitled.parent / "a.plans.sqlite").exists()
    status, made = request(server, "POST", f"/api/contents/{folder}", {"type": "notebook"})
    assert status == 201 and made["name"] == "Untitled.ipynb", made  # the name, taken again
    for tool in ("Write", "Bash"):
        _, answer, _ = write_hook(untitled, tool)
        reason = assert_denied(answer, "plan mode")
        assert "unchecked" not in reason and "unchecked" not in answer.get("systemMessage", "")
    with PlanStore(untitled.parent / "a.plans.sqlite") as store:
        store.session("default").off()
    _, answer, _ = write_hook(untitled)
    assert answer is None or "deny" not in json.dumps(answer)  # it follows the plan's mode
    # A plan of the new notebook's own, once it has one, is the one its name reads.
    notebook_in_plan_mode(untitled.parent, untitled.name)
    assert_denied(write_hook(untitled)[1], "plan mode")


@pytest.mark.parametrize("kind", ["fifo", "huge", "folder"])
def test_a_codex_package_json_that_is_no_small_file_costs_the_hook_nothing(db, tmp_path, kind):
    """The package folder Codex names may hold a FIFO, a 200 MB file or a folder where its
    package.json should be: the hook answers at once, and its heartbeat says no version."""
    package = tmp_path / "codex-package"
    package.mkdir()
    where = package / "package.json"
    if kind == "fifo":
        os.mkfifo(where)  # opened for reading without a writer, it would wait for ever
    elif kind == "huge":
        with open(where, "wb") as file:
            file.truncate(200 * 2**20)
    else:
        where.mkdir()
    with PlanStore(db) as store:
        store.session("s").on()
    codex = env(CODEX_MANAGED_PACKAGE_ROOT=str(package))
    hook("SessionStart", recorded("codex", "SessionStart.startup"), *at(db), env=codex)
    assert seen_rows(db)[0][:3] == ("Codex", None, "SessionStart")
