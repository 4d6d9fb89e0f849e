"""A kernel's extra memory for the extension: real kernels, their resident set read from /proc.

Each kernel first imports what any notebook with widgets has (ipywidgets and anywidget) and
its resident set is read: the floor. Then `%load_ext jupyter_plans` (which opens the plan file
beside the notebook and shows the card), and the set is read again; then `%plan on`, and again.
The figures are what each step added to the floor, in MB (10^6 bytes), in three kernels each
for a new notebook and for one whose plan holds 12 steps. Before each reading the kernel
collects its garbage and sits a moment, so threads the extension started are running.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import start_new_kernel

from jupyter_plans import PlanStore

KERNELS = 3
FLOOR = "import ipywidgets, anywidget"
STEPS = [{"id": f"step-{n}", "description": f"Part {n} of the analysis"} for n in range(12)]
SETTLE = "import gc, time; time.sleep(0.5); gc.collect()"


def resident(pid: int) -> int:
    """The process's resident set, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def run(client, code: str) -> None:
    reply = client.execute_interactive(code, timeout=60, output_hook=lambda message: None)
    assert reply["content"]["status"] == "ok", reply["content"]


def one_kernel(folder: Path, name: str) -> tuple[int, int]:
    """(bytes added by %load_ext, bytes added by %load_ext and %plan on) in one new kernel."""
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(folder))
    try:
        pid = manager.provisioner.process.pid
        run(client, f"{FLOOR}\n{SETTLE}")
        floor = resident(pid)
        notebook = str(folder / f"{name}.ipynb")
        run(client, f"__session__ = {notebook!r}\n%load_ext jupyter_plans")
        run(client, SETTLE)
        loaded = resident(pid)
        run(client, "%plan on")
        run(client, SETTLE)
        planning = resident(pid)
        run(client, "%plan off")  # the plan file is left as it was found, for the next kernel
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return loaded - floor, planning - floor


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"memory: a kernel's resident set over `{FLOOR}`, {KERNELS} kernels each, MB")
    print(f"{'':34} {'%load_ext':>18} {'and %plan on':>18}")
    with tempfile.TemporaryDirectory() as folder:
        with PlanStore(Path(folder) / "planned.plans.sqlite") as store:
            result = store.session("default").call_tool(
                "update_plan", {"expected_revision": 0, "steps": STEPS}
            )
            assert not result.is_error, result.content
        for label, name in (("a new notebook", "new"), ("a notebook with 12 steps", "planned")):
            loaded, planning = [], []
            for n in range(KERNELS):
                # A new notebook is new in each kernel; the planned one keeps its plan.
                first, second = one_kernel(Path(folder), f"new{n}" if name == "new" else name)
                loaded.append(first / 1e6)
                planning.append(second / 1e6)
            shown = [f"{min(v):.1f}-{max(v):.1f}" for v in (loaded, planning)]
            print(f"{label:34} {shown[0]:>18} {shown[1]:>18}")
            figures[f"{label}, %load_ext MB"] = max(loaded)
            figures[f"{label}, %plan on MB"] = max(planning)
    return figures


if __name__ == "__main__":
    sys.exit(main() and None)
