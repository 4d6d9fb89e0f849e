"""Foreign files: what is not a whole, current plan file is refused clearly and left untouched."""

import hashlib
import sqlite3

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.store import migrations


def _state(folder):
    """Every file in the folder and its digest: nothing may appear, change or go."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


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


CASES = {
    "truncated to 1%": (lambda p: _truncated(p, 0.01), "not a readable plan file"),
    "truncated to half": (lambda p: _truncated(p, 0.5), "not a readable plan file"),
    "truncated by one page": (lambda p: _truncated(p, 0.985), "not a readable plan file"),
    "not SQLite": (_not_sqlite, "not a readable plan file"),
    "a newer schema": (_newer_schema, f"schema version {migrations.LATEST + 1}"),
    "another program's database": (_other_program, "another program"),
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
