"""`%load_ext jupyter_plans` against `import ipywidgets`, each in a fresh interpreter, in one run.

The baseline is `import ipywidgets` timed inside a fresh `python`. Ours is the cell
`%load_ext jupyter_plans` timed inside a fresh interpreter that already has an IPython shell
(as a kernel has), with the default settings: it opens the plan file beside the notebook,
registers the magics and shows the card. asyncio is imported first, as it is in any
kernel. The two alternate, so load on the machine falls on both.

Both import compiled bytecode, as after any install: a first run of each, not counted, writes
what is missing or stale (with PYTHONDONTWRITEBYTECODE set, as on some machines, every run
would compile the modules that changed since their bytecode was written, and measure that).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from _table import ratio_table

RUNS = 12

BASELINE = """
import time
start = time.perf_counter()
import ipywidgets
print(time.perf_counter() - start)
"""

OURS = """
import asyncio, os, sys, time  # asyncio: every kernel has it loaded (tornado, ipykernel)
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.user_ns["__session__"] = os.path.join(sys.argv[1], "analysis.ipynb")
start = time.perf_counter()
result = shell.run_cell("%load_ext jupyter_plans")
elapsed = time.perf_counter() - start
assert result.success and "jupyter_plans" in shell.extension_manager.loaded
print(elapsed, file=sys.__stderr__)
"""


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(code: str, folder: str) -> float:
    run = subprocess.run(
        [sys.executable, "-c", code, folder], capture_output=True, text=True, check=True, env=ENV
    )
    lines = (run.stderr or run.stdout).strip().splitlines()
    return float(lines[-1])


def main() -> dict[str, float]:
    samples: dict[str, list[float]] = {"import ipywidgets": [], "%load_ext jupyter_plans": []}
    with tempfile.TemporaryDirectory() as folder:
        timed(BASELINE, folder), timed(OURS, folder)  # bytecode written, not counted
        for _ in range(RUNS):
            samples["import ipywidgets"].append(timed(BASELINE, folder))
            samples["%load_ext jupyter_plans"].append(timed(OURS, folder))
    print(f"load: each in a fresh interpreter, {RUNS} times each, alternating")
    return ratio_table(samples, "import ipywidgets", unit="ms", tail=False)


if __name__ == "__main__":
    main()
