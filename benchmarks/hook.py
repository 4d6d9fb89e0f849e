"""`jupyter-plans hook` as a coding agent's host runs it: a new process per event, timed from
the spawn to the exit, against `python -c pass` (the floor of any hook written in Python) and
`python -c "import json, sqlite3"` (what deciding needs of the standard library).

PreToolUse runs before every guarded tool call, so it is timed on each of its paths: the
session in plan mode, the tool denied (named by --db as below, and by --notebook as `hook
install` writes it); in default mode, the tool allowed without a word; and denied once more
when it writes its heartbeat (at most once in 10 s per agent: the row is made 10 s old before
each of those runs, outside the time), with the plan file open in no other process (the write's
connection is the file's last, so closing it moves the WAL into the file, with an fsync) and
open in the notebook's kernel, as while the person works in it (here, a connection of this
process). SessionStart renders the whole context block. The commands alternate, so load on
the machine falls on all; each has run once before, not counted, so its bytecode is written
(with PYTHONDONTWRITEBYTECODE set, as on some machines, every run would compile what changed
since, and measure that).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _table import percentile

from jupyter_plans import PlanStore
from jupyter_plans.store.following import follow

RUNS = 40
INPUTS = Path(__file__).parent.parent / "tests" / "hooks" / "claude-code"
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
STEPS = [{"id": f"step-{n}", "description": f"Part {n} of the analysis"} for n in range(12)]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("jupyter-plans")
    return [str(script)] if script.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def _notebook(folder: str, name: str, plan_mode: bool) -> Path:
    """A notebook whose kernel opened its plan: 12 steps, in plan mode or not."""
    notebook = Path(folder) / name
    notebook.write_text("{}")
    plan = notebook.with_name(notebook.stem + ".plans.sqlite")
    with follow.open_for(notebook, str(plan), PlanStore, "bench") as store:
        session = store.session("default")
        result = session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not result.is_error, result.content
        if plan_mode:
            session.on()
    return notebook


def _timed(command: list[str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, stdout=subprocess.DEVNULL, check=True, env=ENV)
    return time.perf_counter() - start


def _age_heartbeat(path: Path, kernel: sqlite3.Connection | None = None) -> None:
    connection = kernel or sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE guard_seen SET at = 0")
    if kernel is None:
        connection.close()


def _runs(folder: str) -> dict[str, tuple[list[str], bytes]]:
    planning = _notebook(folder, "planning.ipynb", plan_mode=True)
    working = _notebook(folder, "working.ipynb", plan_mode=False)
    db = ["--db", str(planning.with_name("planning.plans.sqlite")), "--session", "default"]
    write = (INPUTS / "PreToolUse.Write.json").read_bytes()
    hook = [*_command(), "hook"]
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], b""),
        "import json, sqlite3": ([sys.executable, "-c", "import json, sqlite3"], b""),
        "import jupyter_plans": ([sys.executable, "-c", "import jupyter_plans"], b""),
        "PreToolUse, deny (--db)": ([*hook, "PreToolUse", *db], write),
        "PreToolUse, deny (--notebook)": (
            [*hook, "PreToolUse", "--notebook", str(planning)],
            write,
        ),
        "PreToolUse, allow": ([*hook, "PreToolUse", "--notebook", str(working)], write),
        "PreToolUse, heartbeat": ([*hook, "PreToolUse", *db], write),
        "PreToolUse, heartbeat, kernel open": ([*hook, "PreToolUse", *db], write),
        "SessionStart": (
            [*hook, "SessionStart", "--notebook", str(planning)],
            (INPUTS / "SessionStart.compact.json").read_bytes(),
        ),
    }


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        runs = _runs(folder)
        plan_file = Path(folder) / "planning.plans.sqlite"
        for command, stdin in runs.values():  # bytecode written, not counted
            subprocess.run(command, input=stdin, capture_output=True, check=True, env=ENV)
        command, stdin = runs["PreToolUse, deny (--notebook)"]
        denied = subprocess.run(command, input=stdin, capture_output=True, check=True, env=ENV)
        decision = json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"]
        assert decision == "deny", denied.stdout
        command, stdin = runs["PreToolUse, allow"]
        allowed = subprocess.run(command, input=stdin, capture_output=True, check=True, env=ENV)
        assert allowed.stdout == b"", allowed.stdout
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(RUNS):
            for name, (command, stdin) in runs.items():
                kernel = sqlite3.connect(plan_file) if name.endswith("kernel open") else None
                if name.endswith(("heartbeat", "kernel open")):
                    _age_heartbeat(plan_file, kernel)
                samples[name].append(_timed(command, stdin))
                if kernel is not None:
                    kernel.close()
    floor50 = percentile(samples["python -c pass"], 0.5)
    floor95 = percentile(samples["python -c pass"], 0.95)
    print(f"hook: a new process per event, process start included, {RUNS} runs each, alternating")
    print(f"{'':36} {'p50 ms':>7} {'p95 ms':>7} {'p50 / floor':>12} {'p95 / floor':>12}")
    figures = {}
    for name, values in samples.items():
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        ratios = f"{p50 / floor50:12.2f} {p95 / floor95:12.2f}"
        print(f"{name:36} {p50 * 1e3:7.1f} {p95 * 1e3:7.1f} {ratios}")
        figures[f"{name} p95 ms"] = p95 * 1e3
        figures[f"{name} p95 / python -c pass"] = p95 / floor95
    return figures


if __name__ == "__main__":
    main()
