"""Where update_plan's time goes beyond the floor's: instructions and cache misses per call.

Wall-clock ratios (update_plan.py) say how far apart the sides are; this says why, with
counts that do not depend on a noisy machine. It runs the same interleaved mix as
update_plan.py under valgrind's cachegrind, once with every side and once without each one,
and prints each side's share per call: instructions, first-level instruction-cache misses
and data-cache misses (the simulated caches of this machine). A side's share is what the mix
costs with it minus without it, so its effect on the others' caches is counted as its own.

Not part of `make bench` (it takes a few minutes): `python benchmarks/misses.py`, with
valgrind installed (`apt-get install valgrind`).
"""

from __future__ import annotations

import gc
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import update_plan as bench

ROUNDS = 300
SIDES = {
    "raw sqlite3 floor": bench.Floor,
    "jupyter-plans update_plan": bench.Ours,
    "langgraph SqliteSaver.put": bench.LangGraph,
    "eventsourcing insert_events": bench.EventSourcing,
}
COUNTS = {"I   refs": "instructions", "I1  misses": "I1 misses", "D1  misses": "D1 misses"}


def run_mix(names: list[str], rounds: int) -> None:
    """The child: the sides named, warmed up, then `rounds` calls each in shuffled turns."""
    with tempfile.TemporaryDirectory() as folder:
        sides = [SIDES[name](Path(folder) / f"{n}.sqlite") for n, name in enumerate(names)]
        payloads = [bench.plan_steps(i) for i in range(100)]
        for side in sides:
            for steps in payloads[:20]:
                side.update(steps)
        # Without a collection in the counted calls: when a full one falls depends on every
        # side's allocations, so it would not subtract out. (It does not move the p50s.)
        gc.collect()
        gc.disable()
        shuffle = random.Random(0).shuffle
        for k in range(rounds):
            shuffle(sides)
            for side in sides:
                side.update(payloads[k % 100])


def counted(names: list[str], rounds: int) -> dict[str, int]:
    """cachegrind's totals for a child running `names` for `rounds`."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes"]
    command += ["--cachegrind-out-file=/dev/null", sys.executable, __file__]
    command += ["--child", str(rounds), *names]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same sets and dicts in every run
    report = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stderr
    totals = {}
    for label, key in COUNTS.items():
        found = re.search(rf"{re.escape(label)}:\s+([\d,]+)", report)
        totals[key] = int(found.group(1).replace(",", ""))
    return totals


def per_round(names: list[str]) -> dict[str, float]:
    """What one round of the mix costs: the difference of a long and an empty run."""
    long, empty = counted(names, ROUNDS), counted(names, 0)
    return {key: (long[key] - empty[key]) / ROUNDS for key in COUNTS.values()}


def main() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("misses.py needs valgrind: apt-get install valgrind")
    names = list(SIDES)
    whole = per_round(names)
    print(f"per call, in the interleaved mix of update_plan.py ({ROUNDS} rounds, cachegrind)")
    print(f"{'':32}" + "".join(f"{key:>14}" for key in COUNTS.values()))
    for name in names:
        without = per_round([other for other in names if other != name])
        shares = [whole[key] - without[key] for key in COUNTS.values()]
        print(f"{name:32}" + "".join(f"{share:14,.0f}" for share in shares))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        run_mix(sys.argv[3:], int(sys.argv[2]))
    else:
        main()
