"""Hostile command lines: `jupyter-plans` with generated argv (bytes that are not UTF-8,
5,000-digit numbers, unknown flags) never prints a traceback. A failure is one line on stderr
with exit 1 (refused or failed) or 2 (usage), and a refused call stores only what the rules say.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_plans import PlanStore
from jupyter_plans.cli import main

CLI = [sys.executable, "-m", "jupyter_plans.cli"]
STEPS = [{"id": "load", "description": "Load the data"}]

# Text as Python hands argv to a program: bytes that are not UTF-8 arrive as lone surrogates.
_hostile = st.sampled_from(
    [
        os.fsdecode(b"\xff\xfe"),
        os.fsdecode(b"caf\xe9"),
        "9" * 5000,
        "-" + "9" * 5000,
        str(2**63),
        str(10**26),
        "",
        " ",
        "\x1b[31mred",
        "\u202eevil",
        "--unknown-flag",
        "-x",
        "null",
        "{",
        '{"expected_revision": ' + "9" * 5000 + "}",
        "[]",
        "on",
        "approve",
        "0" * 64,
    ]
)
_word = _hostile | st.text(max_size=12)


@st.composite
def argvs(draw) -> list[str]:
    command = draw(st.sampled_from(["snapshot", "events", "call", "plan", "context", "nope", ""]))
    argv = [command] if command else []
    if draw(st.integers(0, 9)) > 0:
        argv += ["--db", draw(st.sampled_from(["DB", "DB", os.fsdecode(b"x\xff.sqlite")]))]
    if draw(st.booleans()):
        argv += ["--session", draw(_word | st.just("s"))]
    if command == "events" and draw(st.booleans()):
        argv += ["--after", draw(_word | st.integers(min_value=0).map(str))]
    if command == "call":
        argv += draw(st.lists(_word, max_size=2))
        if draw(st.booleans()):
            argv += [draw(st.sampled_from(["--call-id", "--turn-id"])), draw(_word)]
    if command == "plan":
        argv += [draw(st.sampled_from(["on", "off", "revise", "approve", "ON"]) | _word)]
        argv += draw(st.lists(_word, max_size=2))
    if command == "context" and draw(st.booleans()):
        argv += ["--limit", draw(_word)]
    if draw(st.integers(0, 3)) == 0:
        argv.append(draw(_hostile))
    return argv


@pytest.fixture
def plan_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "DB"
    with PlanStore(db) as store:
        session = store.session("default")
        session.on()
        session.call_tool(
            "plan_submit", {"explanation": "why", "findings": [], "objectives": [], "steps": STEPS}
        )
    return db


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_generated_argvs_get_one_line_and_the_documented_exit_code(plan_file, capsys, figure):
    counts = {0: 0, 1: 0, 2: 0}

    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(argvs())
    def check(argv):
        before = plan_file.read_bytes() if "call" not in argv and "plan" not in argv else None
        code, out, err = _run(argv, capsys)
        assert code in (0, 1, 2), (argv, code, err)
        assert "Traceback" not in err and "Traceback" not in out, (argv, err)
        if code != 0:
            lines = err.strip("\n").splitlines()
            assert len(lines) <= 1, (argv, err)
            # A tool call refused by the rules prints its result on stdout instead.
            assert lines or json.loads(out)["is_error"] is True, (argv, out)
        if before is not None:
            assert plan_file.read_bytes() == before, argv
        counts[code] += 1

    check()
    figure(
        f"hostile argvs: {sum(counts.values())} tried; exit 0 {counts[0]}, "
        f"1 {counts[1]}, 2 {counts[2]}; no traceback"
    )
    assert counts[2] > 0 and counts[1] > 0


@pytest.mark.parametrize(
    "argv, code, says",
    [
        (["events", "--db", "DB", "--after", str(2**63)], 2, "not a number of events"),
        (["events", "--db", "DB", "--after", "9" * 5000], 2, "not a number of events"),
        (["snapshot", "--db", "DB", "--frobnicate"], 2, "unrecognized arguments"),
        (
            ["call", "--db", "DB", "update_plan", '{"expected_revision": ' + "9" * 5000 + "}"],
            1,
            "ARGS_JSON is not valid JSON",
        ),
        (["plan", "--db", "DB", "revise", os.fsdecode(b"keep \xff")], 1, "U+DCFF"),
        (["snapshot", "--db", "DB", "--session", os.fsdecode(b"s\xff")], 1, "U+DCFF"),
    ],
)
def test_known_hostile_argvs(plan_file, capsys, argv, code, says):
    got, out, err = _run(argv, capsys)
    assert got == code and says in (err or out), (err, out)
    assert "Traceback" not in err and len(err.strip("\n").splitlines()) <= 1


def test_a_tool_name_that_is_not_utf8_is_a_refused_call(plan_file, capsys):
    name = os.fsdecode(b"update_plan\xff")
    code, out, err = _run(["call", "--db", "DB", name, json.dumps({"steps": STEPS})], capsys)
    result = json.loads(out)
    assert code == 1 and result["is_error"] and "U+DCFF" in result["content"] and err == ""
    with PlanStore(plan_file) as store:
        last = store.session().events()[-1]
    assert last.kind == "tool_finished" and last.data["name"] == "update_plan\\udcff"


def test_the_session_may_be_left_out_as_percent_plan_does(plan_file, capsys):
    with PlanStore(plan_file) as store:
        store.set_current_session("other")
        store.session("other").on()
    code, out, _ = _run(["snapshot", "--db", "DB"], capsys)
    assert code == 0 and json.loads(out)["session_id"] == "other"
    code, _, _ = _run(["plan", "--db", "DB", "off"], capsys)
    assert code == 0
    with PlanStore(plan_file) as store:
        assert store.session("other").snapshot().mode == "default"
        assert store.session("default").snapshot().mode == "plan"


def test_real_bytes_on_a_real_command_line(plan_file):
    """The same through a real process, whose argv holds bytes that are not UTF-8."""
    for argv in (
        [b"call", b"--db", b"DB", b"update_plan\xff", b'{"steps": []}'],
        [b"plan", b"--db", b"DB", b"--session", b"s\xfe", b"on"],
        [b"events", b"--db", b"DB", b"--after", b"1" + b"0" * 26],
    ):
        done = subprocess.run(
            [*map(os.fsencode, CLI), *argv],
            capture_output=True,
            cwd=Path(plan_file).parent,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert done.returncode in (1, 2), (argv, done.stderr)
        assert b"Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip(b"\n").splitlines()) <= 1, done.stderr
    # A plan file's name of bytes that are no UTF-8 is a name like any other (the file system
    # holds it, and a notebook renamed through Jupyter may take one): no file there reads as
    # an empty session, and a write makes the file there.
    for argv, code in (
        ([b"snapshot", b"--db", b"D\xffB"], 0),
        ([b"plan", b"--db", b"D\xffB", b"on"], 0),
    ):
        done = subprocess.run(
            [*map(os.fsencode, CLI), *argv],
            capture_output=True,
            cwd=Path(plan_file).parent,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert done.returncode == code and done.stderr == b"", (argv, done.stderr)
    assert (Path(plan_file).parent / os.fsdecode(b"D\xffB")).is_file()
