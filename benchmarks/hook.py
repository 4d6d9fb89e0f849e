"""`jupyter-plans hook` as a coding agent's host runs it: a new process per event, timed from
the spawn to the exit, against `python -c pass` (the floor of any hook written in Python) and
`python -c "import jupyter_plans"` (what the package costs before the hook does anything).

PreToolUse runs before every guarded tool call, so it is timed on its busiest path: the session
in plan mode, the tool denied; and once more when it writes its heartbeat (at most once in 10 s
per agent: the row is made 10 s old before each of those runs, outside the time). SessionStart
renders the whole context block. The commands alternate, so load on the machine falls on all.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_plans import PlanStore

RUNS = 15
INPUTS = Path(__file__).parent.parent / "tests" / "hooks" / "claude-code"


def _command() -> list[str]:
    script = Path(sys.executable).with_name("jupyter-plans")
    return [str(script)] if script.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def _plan_file(folder: str) -> str:
    path = str(Path(folder) / "bench.plans.sqlite")
    steps = [
        {"id": f"step-{n}", "description": f"Carry out part {n} of the analysis"} for n in range(12)
    ]
    with PlanStore(path) as store:
        session = store.session("s")
        result = session.call_tool("update_plan", {"expected_revision": 0, "steps": steps})
        assert not result.is_error, result.content
        session.on()
    return path


def _timed(command: list[str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _age_heartbeat(path: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE guard_seen SET at = 0")
    connection.close()


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        path = _plan_file(folder)
        where = ["--db", path, "--session", "s"]
        runs = {
            "python -c pass": ([sys.executable, "-c", "pass"], b""),
            "import jupyter_plans": ([sys.executable, "-c", "import jupyter_plans"], b""),
            "hook PreToolUse (deny)": (
                [*_command(), "hook", "PreToolUse", *where],
                (INPUTS / "PreToolUse.Write.json").read_bytes(),
            ),
            "hook PreToolUse, heartbeat": (
                [*_command(), "hook", "PreToolUse", *where],
                (INPUTS / "PreToolUse.Write.json").read_bytes(),
            ),
            "hook SessionStart": (
                [*_command(), "hook", "SessionStart", *where],
                (INPUTS / "SessionStart.compact.json").read_bytes(),
            ),
        }
        command, stdin = runs["hook PreToolUse (deny)"]
        denied = subprocess.run(command, input=stdin, capture_output=True, check=True)
        decision = json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"]
        assert decision == "deny", denied.stdout
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(RUNS):
            for name, (command, stdin) in runs.items():
                if name.endswith("heartbeat"):
                    _age_heartbeat(path)
                samples[name].append(_timed(command, stdin))
    floor = statistics.median(samples["python -c pass"])
    print(f"hook: a new process per event, process start included, {RUNS} runs each, alternating")
    print(f"{'':26} {'p50 ms':>8} {'p95 ms':>8} {'p50 / python -c pass':>21}")
    figures = {}
    for name, values in samples.items():
        p50 = statistics.median(values)
        p95 = sorted(values)[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"{name:26} {p50 * 1e3:8.0f} {p95 * 1e3:8.0f} {p50 / floor:21.1f}")
        figures[f"{name} p95 ms"] = p95 * 1e3
    return figures


if __name__ == "__main__":
    main()
