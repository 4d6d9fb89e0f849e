"""Move markers another process writes (DESIGN section 11): a plan file that claims to have moved
is followed only to the file its move made. A marker naming another notebook's plan file
(with or without the token of the move that made that file), a path that is not there, the
trash, a symbolic link, a path through a symlinked folder, or one that was in the file when it
was first opened (a file cloned or downloaded as it was) leads nowhere: the write is refused
in one line that says what the file claims, and nothing else changes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.store.following import follow

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
STEPS = {"expected_revision": 1, "steps": [{"id": "s1", "description": "Fit the model"}]}


def notebook(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    return path


def planned(nb: Path, description: str) -> Path:
    """`nb`'s plan file with one revision (made as a kernel makes it: it records `nb`)."""
    plan = nb.with_name(nb.stem + ".plans.sqlite")
    with PlanStore(plan) as store:
        steps = [{"id": "s1", "description": description}]
        result = store.session().call_tool("update_plan", {"expected_revision": 0, "steps": steps})
        assert not result.is_error
    return plan


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def forge(plan: Path, target: str, token: str | None = None) -> None:
    """What another process writes: a marker in `plan` that names `target`."""
    connection = sqlite3.connect(plan)
    rows = [("moved_to", target)] + ([("move_token", token)] if token else [])
    connection.executemany("INSERT OR REPLACE INTO plans_settings VALUES (?, ?)", rows)
    connection.commit()
    connection.close()


def victim(folder: Path) -> Path:
    """Another notebook's plan, made by a real move (so it records a move and its token)."""
    old = notebook(folder, "draft.ipynb")
    planned(old, "The victim's own step")
    os.rename(old, folder / "victim.ipynb")
    return follow.move(old, folder / "victim.ipynb")


def hop_token(plan: Path) -> str:
    """The token of the move that made `plan` (what a forger copies from it)."""
    connection = sqlite3.connect(plan)
    try:
        row = connection.execute(
            "SELECT value FROM plans_settings WHERE key = 'moved_from'"
        ).fetchone()
    finally:
        connection.close()
    return json.loads(row[0])[-1]["token"] if row else "0" * 32


# Each case: (marker target, token) from the folder holding a.plans.sqlite and the victim.
CASES = {
    "another notebook's plan": lambda f, v: (str(v), None),
    "another notebook's plan, with the token of its own move": lambda f, v: (str(v), hop_token(v)),
    "a path that is not there": lambda f, v: (str(f / "gone.plans.sqlite"), "0" * 32),
    "the trash": lambda f, v: ("", None),
    "a symbolic link to another notebook's plan": lambda f, v: (str(_link(f, v)), hop_token(v)),
    "another notebook's plan through a symlinked folder": lambda f, v: (
        str(_folder_link(f) / v.name),
        hop_token(v),
    ),
}


def _link(folder: Path, target: Path) -> Path:
    link = folder / "link.plans.sqlite"
    link.symlink_to(target)
    return link


def _folder_link(folder: Path) -> Path:
    link = folder.parent / (folder.name + "-link")
    link.symlink_to(folder, target_is_directory=True)
    return link


def claimed(target: str) -> str:
    return "to have gone to the trash" if target == "" else f"to have moved to {target}"


def setup_case(tmp_path: Path, case: str) -> tuple[Path, Path, str]:
    folder = tmp_path / "work"
    folder.mkdir()
    victim_plan = victim(folder)
    plan = planned(notebook(folder, "a.ipynb"), "My own step")
    target, token = CASES[case](folder, victim_plan)
    return plan, victim_plan, (target, token)


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_open_store_follows_no_forged_marker(tmp_path, case, figure):
    plan, victim_plan, (target, token) = setup_case(tmp_path, case)
    before = digest(victim_plan)
    with PlanStore(plan) as store:
        session = store.session()
        assert session.cursor() == 1  # open, and read
        forge(plan, target, token)  # by another process, while the store has the file open
        with pytest.raises(PlanStoreError) as refused:
            session.call_tool("update_plan", STEPS)
        message = str(refused.value)
        assert "\n" not in message and f"claims {claimed(target)}" in message, message
        assert "keeps being replaced" not in message
        assert store.path == plan and session.cursor() == 1
    assert digest(victim_plan) == before
    with PlanStore(victim_plan) as store:
        assert store.session().snapshot().plan.steps[0].description == "The victim's own step"
    figure(f"{case}: the write refused in one line, the other plan file byte-identical")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_marker_present_when_the_file_is_first_opened_leads_nowhere(tmp_path, case):
    """A file cloned or downloaded with a marker in it: every open refuses to write, through
    the command line, and nothing else changes."""
    plan, victim_plan, (target, token) = setup_case(tmp_path, case)
    forge(plan, target, token)
    before = {p.name: digest(p) for p in plan.parent.iterdir() if p.is_file()}
    for _ in range(2):
        done = subprocess.run(
            [*COMMAND, "call", "--db", str(plan), "update_plan", json.dumps(STEPS)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and done.stdout == "" and len(lines) == 1, done
        assert f"claims {claimed(target)}" in lines[0] and "Traceback" not in done.stderr
    after = {p.name: digest(p) for p in plan.parent.iterdir() if p.is_file()}
    assert after == before
    shown = subprocess.run(
        [*COMMAND, "snapshot", "--db", str(plan)], capture_output=True, text=True, timeout=120
    )
    assert json.loads(shown.stdout)["plan"]["steps"][0]["description"] == "My own step"


def test_a_moved_plan_file_records_the_move_that_made_it(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    moved = victim(folder)
    connection = sqlite3.connect(moved)
    (value,) = connection.execute(
        "SELECT value FROM plans_settings WHERE key = 'moved_from'"
    ).fetchone()
    connection.close()
    (hop,) = json.loads(value)
    assert len(hop["token"]) == 32 and len(hop["from"]) == 2 and hop["at"] > 0
    assert not (folder / "draft.plans.sqlite").exists()


def test_a_real_move_is_still_followed_and_only_once(tmp_path):
    """The move's own marker leads to the file it made, and that file's marker leads on."""
    folder = tmp_path / "work"
    folder.mkdir()
    old = notebook(folder, "Untitled.ipynb")
    plan = planned(old, "Mine")
    with PlanStore(plan) as store:
        session = store.session()
        assert session.cursor() == 1
        os.rename(old, folder / "analysis.ipynb")
        follow.move(old, folder / "analysis.ipynb")
        assert not session.call_tool("update_plan", STEPS).is_error
        assert store.path == folder / "analysis.plans.sqlite"
        os.rename(folder / "analysis.ipynb", folder / "final.ipynb")
        follow.move(folder / "analysis.ipynb", folder / "final.ipynb")
        steps = {**STEPS, "expected_revision": 2}
        assert not session.call_tool("update_plan", steps).is_error
        assert store.path == folder / "final.plans.sqlite"
    assert sorted(p.name for p in folder.iterdir()) == ["final.ipynb", "final.plans.sqlite"]
