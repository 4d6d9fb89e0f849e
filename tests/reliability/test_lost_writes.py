"""No accepted write is ever lost (DESIGN section 9, Locks), 100 rounds each: a process with two
stores on one plan file beside command-line writers that come and go, and a real Jupyter
server duplicating a notebook whose plan it has open while its routes and other processes
write. Before the rule held, 5 of 10 such writes were gone once every process had closed,
and the file's integrity check still said "ok"."""

from __future__ import annotations

import json
import sqlite3
import uuid

from tests.locks import decision_titles, duplicates_under_writers, writers_beside_two_stores

ROUNDS = 100


def _integrity(plan) -> str:
    connection = sqlite3.connect(plan)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def test_two_stores_in_one_process_beside_command_line_writers_for_100_rounds(tmp_path, figure):
    plan = tmp_path / "a.plans.sqlite"
    accepted, kept = writers_beside_two_stores(plan, ROUNDS)
    lost = [title for title in accepted if title not in kept]
    figure(
        f"{ROUNDS} rounds, one process with two stores and a command-line writer: "
        f"{len(accepted)} writes accepted, {len(accepted) - len(lost)} kept"
    )
    assert lost == [], f"{len(lost)} of {len(accepted)} accepted writes lost: {lost[:5]}"
    assert _integrity(plan) == "ok"


def test_the_servers_duplicate_under_writers_for_100_rounds(server, figure):
    name = f"duplicated-{uuid.uuid4().hex[:8]}.ipynb"
    (server["root"] / name).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4}))
    outcome = duplicates_under_writers(server, name, ROUNDS)
    answered = [mode for status, mode in outcome["answered"] if status == 200]
    kept_titles = set(outcome["kept_titles"])
    kept = sum(title in kept_titles for title in outcome["accepted"])
    figure(
        f"{ROUNDS} rounds of Duplicate with the plan open in the server: {len(answered)} of "
        f"{ROUNDS} decisions answered 200, {len(outcome['kept'])} kept; "
        f"{len(outcome['accepted'])} command-line writes accepted, {kept} kept"
    )
    assert len(answered) == ROUNDS, outcome["answered"][:5]
    assert outcome["kept"] == answered
    assert kept == len(outcome["accepted"])
    plan = server["root"] / name.replace(".ipynb", ".plans.sqlite")
    assert _integrity(plan) == "ok"
    assert len(decision_titles(plan)) == ROUNDS
