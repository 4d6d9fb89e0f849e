"""`jupyter-plans demo --notebook NB`: a notebook run headlessly in a copy (nbclient, a real
kernel), and its plan printed as it stands (what `make demo` does with the quickstart)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..card.view import MIME_TYPE
from ..plan.text import render_text
from ..session import PlanStore


def run_notebook(notebook: str) -> int:
    """Run a notebook headlessly in a copy (nbclient, a real kernel); print its last card."""
    import shutil

    import nbformat
    from nbclient import NotebookClient

    source = Path(notebook)
    folder = Path(tempfile.mkdtemp(prefix="jupyter-plans-demo-"))
    copy = folder / source.name
    shutil.copy(source, copy)
    print(f"Running {source} headlessly in {folder} ...", flush=True)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(folder)}}).execute()
    nbformat.write(nb, copy)
    cards = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if MIME_TYPE in output.get("data", {})
    ]
    plan_files = sorted(folder.glob("*.plans.sqlite"))
    if not cards or not plan_files:
        print(f"jupyter-plans: {source} showed no plan card", file=sys.stderr)
        return 1
    # The cards stay current in a live notebook; their saved text is as of when each was shown.
    # Print the card as it stands now.
    with PlanStore(plan_files[0]) as store:
        print(render_text(store.session().snapshot()))
    print(f"\nThe executed notebook and its plan are in {folder}")
    return 0
