"""DESIGN section 6.2 (exact): the `jupyter-plans` command, run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jupyter_plans import PlanStore
from tests.helpers.cli import COMMAND, on, run

STEPS = [{"id": "load", "description": "load the data"}, {"id": "plot", "description": "plot it"}]
TEXT = {"explanation": "why", "findings": [], "objectives": []}  # plan_submit's required text


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "nb.plans.sqlite")


def snapshot(db, session="s"):
    proc = on(db, "snapshot", session=session)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def events(db, *extra):
    proc = on(db, "events", *extra)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def call(db, tool, args, *extra):
    proc = on(db, "call", tool, json.dumps(args), *extra)
    return proc, json.loads(proc.stdout)


def assert_refused_one_line(proc):
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() and len(proc.stderr.strip("\n").splitlines()) == 1, proc.stderr


def submit(db):
    assert on(db, "plan", "on").returncode == 0
    proc, result = call(db, "plan_submit", {**TEXT, "steps": STEPS})
    assert proc.returncode == 0 and result["is_error"] is False
    return snapshot(db)["pending_proposal_hash"]


def test_snapshot_of_a_new_session(db):
    assert snapshot(db) == {
        "session_id": "s",
        "cursor": 0,
        "mode": "default",
        "pending_proposal_hash": None,
        "approved_proposal_hash": None,
        "plan": None,
        "decisions": [],
        "cells": {},
        "comments": [],
        "checks": {},
        "agent_mode": None,
    }


def test_call_accepted_exits_0_and_prints_the_result(db):
    proc, result = call(
        db,
        "update_plan",
        {"expected_revision": 0, "steps": STEPS},
        "--turn-id",
        "T1",
        "--call-id",
        "C1",
    )
    assert proc.returncode == 0 and set(result) == {"is_error", "content"}
    assert result["is_error"] is False
    plan = snapshot(db)["plan"]
    assert (plan["revision"], plan["turn_id"], plan["call_id"]) == (1, "T1", "C1")
    assert [st["id"] for st in plan["steps"]] == ["load", "plot"]


def test_call_refused_exits_1_and_prints_the_result(db):
    proc, result = call(db, "update_plan", {"expected_revision": 7, "steps": STEPS})
    assert proc.returncode == 1 and result["is_error"] is True
    assert "expected_revision" in result["content"] and "Traceback" not in proc.stderr
    assert snapshot(db)["plan"] is None
    assert [e["kind"] for e in events(db)] == ["tool_finished"]


def test_call_with_arguments_that_are_not_json_exits_1(db):
    proc = on(db, "call", "update_plan", "{not json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["is_error"] is True


def test_call_id_retry_through_the_cli_is_idempotent(db):
    args = {"expected_revision": 0, "steps": STEPS}
    first = call(db, "update_plan", args, "--call-id", "C1")
    count = len(events(db))
    again = call(db, "update_plan", args, "--call-id", "C1")
    assert again[0].returncode == 0 and again[1] == first[1]
    assert len(events(db)) == count and snapshot(db)["plan"]["revision"] == 1
    # The same id with other arguments is another call: refused, not answered as the first.
    other = call(db, "update_plan", {"expected_revision": 1, "steps": []}, "--call-id", "C1")
    assert other[0].returncode == 1 and "used for a different call" in other[1]["content"]
    assert len(events(db)) == count + 1 and snapshot(db)["plan"]["revision"] == 1


@pytest.mark.skipif(sys.platform == "win32", reason="arguments that are not UTF-8 are POSIX's")
def test_a_call_id_that_is_not_utf8_is_an_error_result_and_nothing_is_stored(db):
    args = json.dumps({"expected_revision": 0, "steps": STEPS})
    command = [*COMMAND, "call", "--db", db, "--session", "s", "update_plan", args]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([*command, "--call-id", b"C\xff"], capture_output=True, env=env)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout) == {
        "is_error": True,
        "content": "--call-id contains a lone surrogate U+DCFF at character 1; "
        "an id must be valid Unicode",
    }
    assert snapshot(db)["plan"] is None and events(db) == []


def test_turn_id_makes_an_older_turn_late(db):
    args = {"expected_revision": 0, "steps": STEPS}
    assert call(db, "update_plan", args, "--turn-id", "A")[0].returncode == 0
    assert (
        call(db, "update_plan", {**args, "expected_revision": 1}, "--turn-id", "B")[0].returncode
        == 0
    )
    proc, result = call(db, "update_plan", {**args, "expected_revision": 2}, "--turn-id", "A")
    assert proc.returncode == 1 and "late" in result["content"].lower()
    assert on(db, "plan", "off").returncode == 0  # cancels turn B
    assert events(db)[-1]["kind"] == "turn_cancelled"
    proc, result = call(db, "update_plan", {**args, "expected_revision": 2}, "--turn-id", "B")
    assert proc.returncode == 1 and "late" in result["content"].lower()


def test_events_are_json_lines_and_after_filters(db):
    submit(db)
    all_events = events(db)
    assert [e["seq"] for e in all_events] == list(range(1, len(all_events) + 1))
    assert all(set(e) == {"seq", "kind", "data", "at"} for e in all_events)
    assert [e["kind"] for e in all_events] == ["mode_changed", "plan_updated", "proposal_submitted"]
    assert events(db, "--after", "1") == all_events[1:]
    assert events(db, "--after", str(len(all_events))) == []


def test_plan_verbs_exit_0_when_done(db):
    digest = submit(db)
    assert on(db, "plan", "revise", "split", "plot", "in two").returncode == 0
    snap = snapshot(db)
    assert snap["mode"] == "plan" and snap["pending_proposal_hash"] is None
    with PlanStore(db) as store:
        assert [(m.source, m.text) for m in store.session("s").waiting_messages()] == [
            ("person", "split plot in two")
        ]
    digest = submit(db)
    proc = on(db, "plan", "approve", digest)
    assert proc.returncode == 0, proc.stderr
    snap = snapshot(db)
    assert (snap["mode"], snap["approved_proposal_hash"]) == ("default", digest)
    assert on(db, "plan", "on").returncode == 0 and snapshot(db)["mode"] == "plan"
    assert on(db, "plan", "off").returncode == 0 and snapshot(db)["mode"] == "default"
    assert on(db, "plan", "off").returncode == 0


def test_approve_without_hash_and_without_a_terminal_is_refused(db):
    digest = submit(db)
    proc = on(db, "plan", "approve")  # standard input is not a terminal here
    assert_refused_one_line(proc)
    assert digest[:12] in proc.stderr and digest not in proc.stderr
    assert snapshot(db)["pending_proposal_hash"] == digest
    assert on(db, "plan", "approve", digest).returncode == 0
    assert snapshot(db)["approved_proposal_hash"] == digest


@pytest.mark.parametrize("verb", ["ON", "On", "oN"])
def test_verbs_match_without_case(db, verb):
    assert on(db, "plan", verb).returncode == 0 and snapshot(db)["mode"] == "plan"
    assert on(db, "plan", verb.replace("N", "FF").replace("n", "ff")).returncode == 0
    assert snapshot(db)["mode"] == "default"


def test_approve_verb_without_case_but_hash_with_case(db):
    digest = submit(db)
    before, count = snapshot(db), len(events(db))
    assert_refused_one_line(on(db, "plan", "approve", digest.upper()))
    assert snapshot(db) == before and len(events(db)) == count
    assert on(db, "plan", "APPROVE", digest).returncode == 0
    assert snapshot(db)["approved_proposal_hash"] == digest


@pytest.mark.parametrize(
    "words",
    [
        ["approve"],
        ["revise", "more", "tests"],
        ["approve", "0" * 64],
        ["frobnicate"],
    ],
)
def test_refused_verbs_exit_1_with_one_line(db, words):
    before = snapshot(db)
    assert_refused_one_line(on(db, "plan", *words))
    assert snapshot(db) == before and events(db) == []


def test_refused_approve_of_a_superseded_or_truncated_hash(db):
    first = submit(db)
    proc, _ = call(db, "plan_submit", {**TEXT, "steps": STEPS[:1]})  # supersedes the first
    assert proc.returncode == 0
    second = snapshot(db)["pending_proposal_hash"]
    assert second != first
    for bad in (first, second[:12], second + "0"):
        assert_refused_one_line(on(db, "plan", "approve", bad))
    assert snapshot(db)["pending_proposal_hash"] == second


def test_db_as_sqlite_url(db):
    url = "sqlite:///" + db
    proc = run(
        "call",
        "--db",
        url,
        "--session",
        "s",
        "update_plan",
        json.dumps({"expected_revision": 0, "steps": STEPS}),
    )
    assert proc.returncode == 0, proc.stderr
    assert snapshot(db)["plan"]["revision"] == 1


def test_sessions_in_one_file_are_independent(db):
    call(db, "update_plan", {"expected_revision": 0, "steps": STEPS})
    assert snapshot(db, session="other")["plan"] is None


@pytest.mark.parametrize(
    "command",
    [
        ["snapshot"],
        ["events"],
        ["plan", "on"],
        ["call", "update_plan", '{"expected_revision":0,"steps":[]}'],
    ],
)
def test_a_symlinked_plan_file_is_refused(tmp_path, command):
    real = tmp_path / "real.plans.sqlite"
    PlanStore(real).close()
    link = tmp_path / "link.plans.sqlite"
    link.symlink_to(real)
    proc = on(str(link), *command)
    assert_refused_one_line(proc)
    assert proc.stdout == "" or json.loads(proc.stdout)["is_error"] is True
    with PlanStore(real) as store:
        assert store.session("s").events() == []


def test_comments_on_the_command_line(db):
    """DESIGN section 14: comment STEP TEXT (an id or a 1-based position, - for the plan),
    comments, resolve CID, reopen CID; who is the system's user or --by."""
    submit(db)
    proc = on(db, "plan", "comment", "plot", "use", "a", "log", "scale", "--by", "alice")
    assert proc.returncode == 0, proc.stderr
    said = "Comment c1 on step plot is open: the agent reads it with its next turn."
    assert proc.stdout.strip() == said
    assert on(db, "plan", "comment", "1", "mind the header").returncode == 0
    assert on(db, "plan", "comment", "-", "keep it short").returncode == 0
    found = snapshot(db)["comments"]
    assert [(c["id"], c["step_id"], c["text"]) for c in found] == [
        ("c1", "plot", "use a log scale"),
        ("c2", "load", "mind the header"),
        ("c3", None, "keep it short"),
    ]
    assert found[0]["by"] == {"name": "alice", "via": "cli"}
    listed = on(db, "plan", "comments")
    assert listed.returncode == 0
    assert "c1 on step plot, by alice, open: use a log scale" in listed.stdout
    assert on(db, "plan", "resolve", "c1").returncode == 0
    assert snapshot(db)["comments"][0]["status"] == "resolved"
    assert on(db, "plan", "REOPEN", "c1").returncode == 0
    assert snapshot(db)["comments"][0]["status"] == "open"
    assert events(db)[-1]["kind"] == "comment_reopened"


@pytest.mark.parametrize(
    "words",
    [
        ["comment", "plot"],
        ["comment", "nope", "a", "word"],
        ["comment", "9", "a", "word"],
        ["comment", "plot", "x" * 2001],
        ["resolve", "c1"],
        ["resolve"],
        ["reopen", "c1", "c2"],
        ["comments", "all"],
    ],
)
def test_refused_comment_verbs_exit_1_with_one_line(db, words):
    submit(db)
    before, count = snapshot(db), len(events(db))
    assert_refused_one_line(on(db, "plan", *words))
    assert snapshot(db) == before and len(events(db)) == count
