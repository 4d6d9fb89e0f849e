"""A plan with checks is a regression test (DESIGN section 17): notebook 08 passes under
`pytest --nbval` as committed, and fails once its data changes so that a step's check no longer
holds (its `%plan check all` then prints `fit: failed: False`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "08-steps-that-check-themselves.ipynb"


def nbval(folder: Path, notebook: nbformat.NotebookNode) -> subprocess.CompletedProcess:
    """pytest --nbval on `notebook`, alone in `folder`, run as `make test` runs the notebooks."""
    folder.mkdir()
    nbformat.write(notebook, folder / NOTEBOOK.name)
    shutil.copy(REPO / "scripts" / "nbval_conftest.py", folder / "conftest.py")
    command = [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p"]
    command += ["no:cacheprovider", "-q", "--rootdir", str(folder), str(folder / NOTEBOOK.name)]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)


def test_notebook_08_passes_as_committed_and_fails_when_its_data_drifts(tmp_path):
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert "%plan check all" in committed.cells[-1].source  # it ends as a regression test
    passing = nbval(tmp_path / "as-committed", committed)
    assert passing.returncode == 0, passing.stdout[-3000:]

    drifted = nbformat.read(NOTEBOOK, as_version=4)
    (orders,) = [cell for cell in drifted.cells if cell.get("id") == "orders"]
    # Week 4 sells three times as much: the mean week is no longer within 10% of each week.
    assert '{"week": 4, "units": 12, "price": 4.0}' in orders.source
    orders.source = orders.source.replace(
        '{"week": 4, "units": 12, "price": 4.0}', '{"week": 4, "units": 60, "price": 4.0}'
    )
    failing = nbval(tmp_path / "drifted", drifted)
    assert failing.returncode != 0
    said = failing.stdout
    assert "fit: failed: False" in said  # what %plan check all printed this time
    assert "check fit: failed: False" in said  # and the cell after the step was completed
    assert "passed" in said.rsplit("fit: failed: False", 1)[0]  # clean still holds
