"""update_plan through the public API against the raw sqlite3 floor, measured in one run.

The floor is the least any durable store must do for the same change: one UPDATE of the
session row and one INSERT of the event, committed, in WAL mode with synchronous=FULL, with the
same JSON payload. Both sides run interleaved in rounds so that a noisy neighbour slows both.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from jupyter_plans import PlanStore

ROUNDS = 20
PER_ROUND = 100


def plan_steps(i: int) -> list[dict]:
    return [
        {
            "id": f"step-{n}",
            "description": f"Carry out part {n} of the analysis, revision {i}",
            "status": "completed" if n < i % 12 else "pending",
            "acceptance": None,
            "depends_on": [f"step-{n - 1}"] if n else [],
            "evidence": None,
        }
        for n in range(12)
    ]


class Floor:
    """Raw sqlite3: UPDATE + INSERT + COMMIT, nothing else."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("CREATE TABLE s (id TEXT PRIMARY KEY, revision INT, plan TEXT)")
        self.conn.execute(
            "CREATE TABLE e (sid TEXT, seq INT, kind TEXT, data TEXT, PRIMARY KEY (sid, seq))"
        )
        self.conn.execute("INSERT INTO s VALUES ('s', 0, NULL)")
        self.revision = 0

    def update(self, steps: list[dict]) -> None:
        self.revision += 1
        plan = {"revision": self.revision, "steps": steps}
        data = json.dumps({"name": "update_plan", "plan": plan}, separators=(",", ":"))
        plan = json.dumps(plan, separators=(",", ":"))
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "UPDATE s SET revision = ?, plan = ? WHERE id = 's'", (self.revision, plan)
        )
        self.conn.execute("INSERT INTO e VALUES ('s', ?, 'plan_updated', ?)", (self.revision, data))
        self.conn.execute("COMMIT")


class Ours:
    def __init__(self, path: Path) -> None:
        self.session = PlanStore(path).session("bench")
        self.revision = 0

    def update(self, steps: list[dict]) -> None:
        result = self.session.call_tool(
            "update_plan", {"expected_revision": self.revision, "steps": steps}
        )
        assert not result.is_error, result.content
        self.revision += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(sides: dict) -> dict[str, list[float]]:
    """Time each side on the same payloads, one call each in turn, so noise falls on all."""
    samples: dict[str, list[float]] = {name: [] for name in sides}
    payloads = [plan_steps(i) for i in range(PER_ROUND)]
    for side in sides.values():  # warm up caches and the WAL file
        for steps in payloads[:20]:
            side.update(steps)
    clock = time.perf_counter
    for _ in range(ROUNDS):
        for steps in payloads:
            for name, side in sides.items():
                start = clock()
                side.update(steps)
                samples[name].append(clock() - start)
    return samples


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        samples = measure(
            {
                "raw sqlite3 floor": Floor(Path(folder) / "floor.sqlite"),
                "jupyter-plans update_plan": Ours(Path(folder) / "ours.plans.sqlite"),
            }
        )
    floor = samples["raw sqlite3 floor"]
    print(f"update_plan, 12-step plan, WAL + synchronous=FULL, {len(floor)} commits each")
    print(f"{'':28} {'p50 us':>8} {'p99 us':>8} {'p50 ratio':>10}")
    figures = {}
    for name, values in samples.items():
        p50, p99 = statistics.median(values), percentile(values, 0.99)
        ratio = p50 / statistics.median(floor)
        figures[name] = ratio
        print(f"{name:28} {p50 * 1e6:8.0f} {p99 * 1e6:8.0f} {ratio:10.2f}")
    return figures


if __name__ == "__main__":
    main()
