"""What the card says of the guards (DESIGN section 15), on both engines: in plan mode, which
guards were heard from and when, and, plainly, a guard installed for this plan that was not
heard from since plan mode began; none of it in the saved forms, and a heartbeat written by
another process reaches the live card though no cursor moved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from IPython.core.formatters import format_display_data

from jupyter_plans import PlanStore
from jupyter_plans.agents.hosts.registry import HOSTS
from jupyter_plans.card.guards import UNGUARDED_HEADLINE, guard_data
from jupyter_plans.card.view import MIME_TYPE
from jupyter_plans.notebook.watch import CardWatcher
from jupyter_plans.notebook.widget import PlanCard
from jupyter_plans.store.guards import HEARTBEAT_MS, record_install, record_seen
from tests.http import request
from tests.waiting import wait_until

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
NOTEBOOK = Path("/home/me/project/analysis.ipynb")
WRITE = (
    b'{"session_id": "c1", "hook_event_name": "PreToolUse", "tool_name": "Write", '
    b'"tool_input": {"file_path": "x.py", "content": "1"}}'
)


def installed(store, host: str = "codex") -> None:
    with store.write() as tx:
        record_install(tx, host, HOSTS[host].NAME, Path("/home/me/project/.codex/hooks.json"))


def heard(store, agent: str, version: str | None = None, point: str = "PreToolUse") -> None:
    with store.write() as tx:
        assert record_seen(tx, agent, version, point)


def shift(store, sql: str, **params) -> None:
    from sqlalchemy import text

    with store.engine.begin() as conn:
        conn.execute(text(sql), params)


def test_nothing_is_said_outside_plan_mode_or_where_no_guard_is_known(session, store):
    assert guard_data(session, session.snapshot_data(), NOTEBOOK) is None
    session.on()
    assert guard_data(session, session.snapshot_data(), NOTEBOOK) is None
    installed(store)
    session.off()
    assert guard_data(session, session.snapshot_data(), NOTEBOOK) is None


def test_an_installed_guard_is_silent_until_heard_from_since_plan_mode_began(session, store):
    installed(store, "codex")
    installed(store, "claude-code")
    session.on()
    data = guard_data(session, session.snapshot_data(), NOTEBOOK)
    assert data["seen"] == [] and data["since"] <= data["now"]
    assert [s["agent"] for s in data["silent"]] == ["Claude Code", "Codex"]
    # As run in the notebook's folder, where the card says to run it.
    assert (
        data["silent"][1]["doctor"] == "jupyter-plans hook doctor codex --notebook analysis.ipynb"
    )
    heard(store, "Codex", "0.171.0")
    data = guard_data(session, session.snapshot_data(), NOTEBOOK)
    assert [s["agent"] for s in data["silent"]] == ["Claude Code"]
    ((seen,),) = [data["seen"]]
    assert (seen["agent"], seen["agent_version"], seen["point"]) == (
        "Codex",
        "0.171.0",
        "PreToolUse",
    )
    # Heard only long before plan mode began: silent again.
    shift(store, "UPDATE guard_seen SET at = at - :by", by=HEARTBEAT_MS + 5000)
    data = guard_data(session, session.snapshot_data(), NOTEBOOK)
    assert [s["agent"] for s in data["silent"]] == ["Claude Code", "Codex"]
    assert data["seen"][0]["agent"] == "Codex"  # still said, with its time


def test_the_live_card_carries_the_guards_and_the_saved_forms_do_not(session, store):
    installed(store)
    session.on()
    heard(store, "Claude Code", "2.1.332")
    card = PlanCard(session, NOTEBOOK.name, notebook_path=NOTEBOOK)
    assert card.guards["seen"][0]["agent_version"] == "2.1.332"
    assert [s["agent"] for s in card.guards["silent"]] == ["Codex"]
    bundle, _ = format_display_data(card)  # as IPython displays it
    assert "guards" not in bundle[MIME_TYPE]
    for form in ("text/plain", "text/html"):
        assert "Claude Code" not in bundle[form] and "Codex" not in bundle[form]
    session.off()
    card.refresh()
    assert card.guards is None


def test_a_hook_in_another_process_reaches_the_live_card_though_no_cursor_moves(session, db):
    session.on()
    store = session.store
    card = PlanCard(session, NOTEBOOK.name, notebook_path=NOTEBOOK)
    watcher = CardWatcher(store, 1.0)
    watcher.add(card)
    watcher.check()
    assert card.guards is None
    cursor = card.snapshot["cursor"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "AI_"))}
    env |= {"CLAUDE_PROJECT_DIR": "/home/me/project", "AI_AGENT": "claude-code_2-1-332_cli"}
    proc = subprocess.run(
        [*COMMAND, "hook", "PreToolUse", "--db", db, "--session", "s"],
        input=WRITE,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert b'"deny"' in proc.stdout, proc.stderr
    store.change_token()  # PostgreSQL: the notice may come a moment later; the poll reads it

    def heard() -> bool:
        watcher.check()
        return card.guards is not None

    wait_until(heard, "the hook's visit on the live card")
    assert card.snapshot["cursor"] == cursor
    assert card.guards["seen"][0]["agent"] == "Claude Code"
    assert card.guards["seen"][0]["agent_version"] == "2.1.332"


def test_the_installs_are_those_recorded_each_with_the_agent_it_names(store):
    """The store keeps no table of hosts: it lists the installs the plan recorded, by host,
    and a setting whose key LIKE alone would match (`_` stands for any character) is none."""
    from jupyter_plans.store.guards import installed as installs

    installed(store, "codex")
    installed(store, "claude-code")
    with store.write() as tx:
        value = json.dumps({"agent": "Other", "at": 1, "file": "x"})
        tx.execute("UPSERT_SETTING", {"key": "guardXinstalled:other", "value": value})
        rows = installs(tx)
    assert [(row["host"], row["agent"]) for row in rows] == [
        ("claude-code", "Claude Code"),
        ("codex", "Codex"),
    ]
    assert rows[0]["file"] == "/home/me/project/.codex/hooks.json"


def test_the_live_card_and_the_card_route_say_one_warning_of_an_agent_that_approves_itself(
    server,
):
    """A bridged agent that approves its own edits and cannot be made to ask left its words:
    while plan mode holds, the live card and the Plan panel's card route say the same warning,
    under its headline; out of plan mode, neither says it."""
    notebook = server["root"] / "unguarded.ipynb"
    with PlanStore(server["root"] / "unguarded.plans.sqlite") as store:
        session = store.session("default")
        session.record_unguarded("Some Agent", "Some Agent starts in mode 'yolo'.")
        session.on()
        card = PlanCard(session, notebook.name, notebook_path=notebook)
        status, data = request(server, "GET", "/api/plans/card?path=unguarded.ipynb")
        assert status == 200, data
        said = f"{UNGUARDED_HEADLINE}\nSome Agent starts in mode 'yolo'."
        assert card.guard_warning == data["guard_warning"] == said
        session.off()
        card.refresh()
        status, data = request(server, "GET", "/api/plans/card?path=unguarded.ipynb")
        assert card.guard_warning is None and "guard_warning" not in data
        card.close()
