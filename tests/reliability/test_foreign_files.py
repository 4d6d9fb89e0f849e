"""Foreign files: what is not a whole, current plan file is refused clearly and left untouched."""

import hashlib
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.store import migrations

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def _state(folder):
    """Every file in the folder and its digest: nothing may appear, change or go."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def _sqlite_file(path, *statements):
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def _plan_file(path):
    with PlanStore(path) as store:
        session = store.session("s")
        for revision in range(40):
            steps = [{"id": f"s{i}", "description": "d" * 200} for i in range(10)]
            session.call_tool("update_plan", {"expected_revision": revision, "steps": steps})
    return path.read_bytes()


def _truncated(tmp_path, fraction):
    whole = _plan_file(tmp_path / "whole.plans.sqlite")
    folder = tmp_path / "cut"
    folder.mkdir()
    path = folder / "a.plans.sqlite"
    path.write_bytes(whole[: int(len(whole) * fraction)])
    return path


def _not_sqlite(tmp_path):
    path = tmp_path / "a.plans.sqlite"
    path.write_text("# notes\nThis is a Markdown file someone named oddly.\n")
    return path


def _newer_schema(tmp_path):
    path = tmp_path / "a.plans.sqlite"
    PlanStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE plans_schema_version SET version = ?", (migrations.LATEST + 1,))
    conn.commit()
    conn.close()
    return path


def _other_program(tmp_path):
    path = tmp_path / "a.plans.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices VALUES (1, 9.5)")
    conn.commit()
    conn.close()
    return path


def _bytes(content):
    def make(tmp_path):
        path = tmp_path / "a.plans.sqlite"
        path.write_bytes(content)
        return path

    return make


def _only(*statements):
    """A SQLite file that holds only what the statements make."""
    return lambda tmp_path: _sqlite_file(tmp_path / "a.plans.sqlite", *statements)


def _version_table(*statements):
    """A plan file with a plan, whose plans_schema_version table the statements then change."""

    def make(tmp_path):
        path = tmp_path / "a.plans.sqlite"
        with PlanStore(path) as store:
            steps = [{"id": "load", "description": "load the data"}]
            store.session("s").call_tool("update_plan", {"expected_revision": 0, "steps": steps})
        return _sqlite_file(path, *statements)

    return make


_VERSION_TABLE = "CREATE TABLE plans_schema_version (version INTEGER NOT NULL)"
_UNEXPECTED = "plans_schema_version"

CASES = {
    "truncated to 1%": (lambda p: _truncated(p, 0.01), "not a readable plan file"),
    "truncated to half": (lambda p: _truncated(p, 0.5), "not a readable plan file"),
    "truncated by one page": (lambda p: _truncated(p, 0.985), "not a readable plan file"),
    "not SQLite": (_not_sqlite, "not a readable plan file"),
    "one byte": (_bytes(b"x"), "not a readable plan file"),
    "random bytes": (_bytes(random.Random(7).randbytes(4096)), "not a readable plan file"),
    "a newer schema": (_newer_schema, f"schema version {migrations.LATEST + 1}"),
    "another program's database": (_other_program, "another program"),
    "only a view": (_only("CREATE VIEW answer AS SELECT 42 AS value"), "another program"),
    "only a table without an index": (
        _only("CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('milk')"),
        "another program",
    ),
    "an empty version table alone": (_only(_VERSION_TABLE), _UNEXPECTED),
    "an empty version table": (_version_table("DELETE FROM plans_schema_version"), _UNEXPECTED),
    "a version 'abc'": (
        _version_table("UPDATE plans_schema_version SET version = 'abc'"),
        _UNEXPECTED,
    ),
    "two version rows": (
        _version_table(f"INSERT INTO plans_schema_version VALUES ({migrations.LATEST})"),
        _UNEXPECTED,
    ),
    "version 0": (_version_table("UPDATE plans_schema_version SET version = 0"), _UNEXPECTED),
    "version -1": (_version_table("UPDATE plans_schema_version SET version = -1"), _UNEXPECTED),
    "version 1.5": (_version_table("UPDATE plans_schema_version SET version = 1.5"), _UNEXPECTED),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_foreign_file_is_refused_with_one_line_and_left_untouched(tmp_path, case, figure):
    make, expected = CASES[case]
    path = make(tmp_path)
    before = _state(path.parent)
    with pytest.raises(PlanStoreError) as info:
        PlanStore(path)
    message = str(info.value)
    assert expected in message and str(path) in message and "\n" not in message
    assert _state(path.parent) == before, "the file and its folder are exactly as they were"
    figure(f"{case}: refused ({message.removeprefix(str(path)).strip()}); folder untouched")


def _cli(*args):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120, env=env)


def _refused_in_one_line(proc, path):
    lines = proc.stderr.strip("\n").splitlines()
    return (
        proc.returncode == 1
        and proc.stdout == ""
        and "Traceback" not in proc.stderr
        and len(lines) == 1
        and str(path) in lines[0]
    )


def test_every_foreign_file_is_refused_by_the_store_and_the_command_line(tmp_path, figure):
    """Each case, through PlanStore and through `snapshot` and `plan on` of the command line:
    refused in one line naming the file, and the folder byte-identical (no side file)."""
    refused = []
    for number, case in enumerate(sorted(CASES)):
        make, expected = CASES[case]
        folder = tmp_path / f"case{number}"
        folder.mkdir()
        path = make(folder)
        before = _state(path.parent)
        with pytest.raises(PlanStoreError) as info:
            PlanStore(path)
        message = str(info.value)
        assert expected in message and str(path) in message and "\n" not in message, case
        for argv in (["snapshot", "--db", str(path)], ["plan", "--db", str(path), "on"]):
            proc = _cli(*argv)
            assert _refused_in_one_line(proc, path), (case, argv, proc)
            assert expected in proc.stderr, (case, argv, proc.stderr)
        assert _state(path.parent) == before, f"{case}: the folder is exactly as it was"
        refused.append(case)
    assert refused == sorted(CASES)
    figure(
        f"foreign files: {len(CASES)} tried, {len(refused)} refused in one line (store, "
        "snapshot and plan on), folder byte-identical"
    )
