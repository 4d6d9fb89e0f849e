"""`%load_ext jupyter_plans` against `import ipywidgets`, each in a fresh interpreter, in one run.

The baseline is `import ipywidgets` timed inside a fresh `python`. Ours is the cell
`%load_ext jupyter_plans` timed inside a fresh interpreter that already has an IPython shell
(as a kernel has), with the default settings: it opens the plan file beside the notebook,
registers the magics and shows the card; once for a new notebook (a folder of its own each
time, so the plan file is made anew), and once for a notebook whose plan holds 12 steps.
asyncio and hashlib are imported first, as they are in any kernel (`ipykernel.ipkernel` loads
both; without hashlib, IPython's first cell would import it to name the cell, and that would
count as ours). The four alternate, so load on the machine falls on all.

Both import compiled bytecode, as after any install: a first run of each, not counted, writes
what is missing or stale (with PYTHONDONTWRITEBYTECODE set, as on some machines, every run
would compile the modules that changed since their bytecode was written, and measure that).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _table import ratio_table

from jupyter_plans import PlanStore

RUNS = 30

BASELINE = """
import time
start = time.perf_counter()
import ipywidgets
print(time.perf_counter() - start)
"""

OURS = """
import asyncio, hashlib, os, sys, time  # every kernel has them loaded (tornado, ipykernel)
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.user_ns["__session__"] = os.path.join(sys.argv[1], sys.argv[2])
start = time.perf_counter()
result = shell.run_cell("%load_ext jupyter_plans")
elapsed = time.perf_counter() - start
assert result.success and "jupyter_plans" in shell.extension_manager.loaded
print(elapsed, file=sys.__stderr__)
"""

# What the first card cannot do without, in a shell as the kernel's: the widget's library
# (anywidget, which loads ipywidgets, psygnal and importlib.metadata). Shown beside the ratio,
# not a target: it says how much of ours is that floor.
CARD_FLOOR = """
import asyncio, hashlib, sys, time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
start = time.perf_counter()
import anywidget
print(time.perf_counter() - start, file=sys.__stderr__)
"""

ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(code: str, folder: str, notebook: str = "analysis.ipynb") -> float:
    run = subprocess.run(
        [sys.executable, "-c", code, folder, notebook],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    lines = (run.stderr or run.stdout).strip().splitlines()
    return float(lines[-1])


def main() -> dict[str, float]:
    samples: dict[str, list[float]] = {
        "import ipywidgets": [],
        "%load_ext jupyter_plans": [],
        "the same, a plan of 12 steps": [],
        "import anywidget in a shell": [],
    }
    steps = [{"id": f"step-{n}", "description": f"Part {n} of the analysis"} for n in range(12)]
    with tempfile.TemporaryDirectory() as folder:
        planned = Path(folder, "planned")
        planned.mkdir()
        (planned / "planned.ipynb").write_text("{}")
        with PlanStore(planned / "planned.plans.sqlite") as store:
            result = store.session("default").call_tool(
                "update_plan", {"expected_revision": 0, "steps": steps}
            )
            assert not result.is_error, result.content

        def new_notebook() -> str:
            """A folder holding a notebook and nothing else: %load_ext makes its plan file."""
            made = Path(tempfile.mkdtemp(dir=folder))
            (made / "analysis.ipynb").write_text("{}")
            return str(made)

        timed(BASELINE, folder), timed(OURS, new_notebook()), timed(CARD_FLOOR, folder)  # warm
        for _ in range(RUNS):
            samples["import ipywidgets"].append(timed(BASELINE, folder))
            samples["%load_ext jupyter_plans"].append(timed(OURS, new_notebook()))
            samples["the same, a plan of 12 steps"].append(
                timed(OURS, str(planned), "planned.ipynb")
            )
            samples["import anywidget in a shell"].append(timed(CARD_FLOOR, folder))
    print(f"load: each in a fresh interpreter, {RUNS} times each, alternating")
    return ratio_table(samples, "import ipywidgets", unit="ms", tail=False)


if __name__ == "__main__":
    main()
