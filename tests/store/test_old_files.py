"""Plan files written by the project's own earlier code (tests/store/old_files, made by its
make.py from the git history: one per schema version, the development builds' variants, and one
file upgraded by every version in turn) open in today's: each reaches today's tables exactly,
with every row kept, or is refused in one line and left byte-identical."""

from __future__ import annotations

import contextlib
import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.plan.fold import fold
from jupyter_plans.store import migrations
from jupyter_plans.store.readonly import open_read_only

HERE = Path(__file__).with_name("old_files")
FILES = json.loads((HERE / "files.json").read_text(encoding="utf-8"))
# Version 1 as the first hours of the project wrote it: the plan on the session row, or event
# times as text. Refused rather than guessed at.
REFUSED = {
    "first-commit": "plans_events differs, plans_sessions differs",
    "v1-text-times": "plans_events differs",
}
UPGRADED = [name for name in FILES if name not in REFUSED]
FIRST_STEPS = [
    {"id": "load", "description": "Load sales.csv"},
    {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
]
# Made new by the code of their version: their tables are the steps' of that version.
MADE_NEW = {
    "v1": 1, "v2": 2, "v3": 3, "v3-shipped-ddl": 3, "v4": 4, "v5": 5, "v6": 6, "v7": 7,
    "v8": 8, "v9": 9,
}  # fmt: skip


def unpacked(name: str, folder: Path) -> Path:
    path = folder / f"{name}.plans.sqlite"
    path.write_bytes(gzip.decompress((HERE / f"{name}.plans.sqlite.gz").read_bytes()))
    return path


def tables(path: Path) -> migrations.Tables:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return migrations.tables_of(connection.execute(migrations.OBJECTS))


def column_names(path: Path) -> dict[str, list[str]]:
    """Each table's columns, by table."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        names = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {
            name: [column[1] for column in connection.execute(f"PRAGMA table_info({name})")]
            for (name,) in names.fetchall()
        }


def rows(path: Path, columns: dict[str, list[str]]) -> dict[str, list[tuple]]:
    """Every row of these tables, of these columns."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return {
            name: sorted(connection.execute(f"SELECT {', '.join(cols)} FROM {name}"), key=repr)
            for name, cols in columns.items()
        }


def holds(now: object, was: object) -> bool:
    """Whether a snapshot read today says all an earlier one said (it may say more: keys of
    later versions, such as who made a decision)."""
    if isinstance(was, dict):
        return isinstance(now, dict) and all(k in now and holds(now[k], v) for k, v in was.items())
    if isinstance(was, list):
        return isinstance(now, list) and len(now) == len(was) and all(map(holds, now, was))
    return now == was


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> migrations.Tables:
    path = tmp_path_factory.mktemp("fresh") / "new.plans.sqlite"
    PlanStore(path).close()
    return tables(path)


@pytest.mark.parametrize("name", UPGRADED)
def test_an_earlier_file_reaches_todays_tables_with_every_row_kept(name, tmp_path, fresh):
    path = unpacked(name, tmp_path)
    columns = column_names(path)
    del columns["plans_schema_version"]  # the one row that changes: checked below
    before = rows(path, columns)
    recorded = FILES[name]["snapshots"]
    with PlanStore(path) as store:
        for session_id, was in recorded.items():
            session = store.session(session_id)
            now = session.snapshot().model_dump(mode="json")
            assert holds(now, was), (session_id, now, was)
            assert fold(session_id, session.events()) == session.snapshot()
    assert tables(path) == fresh == migrations.expected(migrations.LATEST)
    assert rows(path, columns) == before  # every event, proposal, decision, message, ...
    with contextlib.closing(sqlite3.connect(path)) as connection:
        version = connection.execute("SELECT version FROM plans_schema_version").fetchall()
        assert version == [(migrations.LATEST,)]
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.parametrize("name", UPGRADED)
def test_an_upgraded_file_takes_every_kind_of_write(name, tmp_path):
    """After the upgrade: a plan change, a retry of a call recorded before it (its recorded
    result), a comment, a cell's link, the bridged agent's status and the guard's heartbeat."""
    path = unpacked(name, tmp_path)
    recorded = FILES[name]["snapshots"]["default"]
    with PlanStore(path) as store:
        session = store.session("default")
        first = session.events()[0]
        assert first.kind == "plan_updated" and first.data["call_id"] == "call-1"
        retry = {"expected_revision": 0, "steps": FIRST_STEPS}  # as write_plan.py sent them
        again = session.call_tool("update_plan", retry, turn_id="turn-1", call_id="call-1")
        assert again.content == first.data["result"]["content"]
        revision = session.snapshot().plan.revision
        assert revision == recorded["plan"]["revision"]
        steps = [{"id": "load", "description": "Load sales.csv", "status": "in_progress"}]
        change = {"expected_revision": revision, "steps": steps}
        assert not session.call_tool("update_plan", change, turn_id="turn-9").is_error
        session.comment("load", "keep the outliers")
        session.cell_ran("cell-9", 9, True, "df = load()")
        session.record_agent_status({"agent": "Codex", "mode": "read-only", "working": False})
        snapshot = session.snapshot()
        assert snapshot.cursor == recorded["cursor"] + 4
        assert snapshot.comments[-1].text == "keep the outliers" and snapshot.cells["load"]
        assert snapshot.agent_mode == "read-only"
    with open_read_only(str(path)) as guard:
        guard.record_seen("Claude Code", "2.1.332", "PreToolUse")
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert ("Claude Code",) in connection.execute("SELECT agent FROM guard_seen").fetchall()


@pytest.mark.parametrize("name", sorted(MADE_NEW))
def test_each_step_is_the_ddl_its_version_was_made_with(name, tmp_path):
    """A file made new by the code of version N has, token for token, the tables the first N
    steps make: each step is the DDL as it was written then, not today's tables."""
    version = MADE_NEW[name]
    assert tables(unpacked(name, tmp_path)) == migrations.expected(version)
    assert (version, FILES[name]["snapshots"]["default"]["cursor"]) > (0, 0)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_file_whose_tables_are_not_its_versions_is_refused_and_left_as_it_was(name, tmp_path):
    path = unpacked(name, tmp_path)
    data = path.read_bytes()
    with pytest.raises(PlanStoreError) as refused:
        PlanStore(path)
    message = str(refused.value)
    assert message == (
        f"{path} is not a readable plan file: it records plan schema version 1, but its "
        f"tables are not version 1's ({REFUSED[name]}); it was written by a development build "
        "of jupyter-plans"
    )
    command = [sys.executable, "-m", "jupyter_plans.cli", "plan", "--db", str(path), "on"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"jupyter-plans: {message}\n")
    assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
