"""Run the notebooks in notebooks/ and save them with their outputs, as `make test` runs them.

    python scripts/run-notebooks.py

nbval runs the notebooks one after another in one folder, in name order, each in a fresh
kernel told its notebook's path as JupyterLab tells it (`JPY_SESSION_NAME`, set by
nbval_conftest.py), so each card names its notebook and each notebook has its own plan file.
This runs them the same way, in a temporary copy of the folder, and writes each back in place;
each cell goes to the kernel as JupyterLab sends it, with its id (see nbval_conftest.py).
"""

import os
import shutil
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbval_conftest import CELL  # its import sends each cell's id as JupyterLab does

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"


def run(path: Path, folder: str) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        record_timing=False,
        resources={"metadata": {"path": folder}},
        on_cell_execute=lambda cell, cell_index: CELL.update(id=cell.get("id")),
    ).execute(env={**os.environ, "JPY_SESSION_NAME": str(path), "JUPYTERHUB_USER": "analyst"})
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # times would change on every run
    nbformat.write(notebook, path)
    print(f"ran {path.name}: {len(notebook.cells)} cells")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        for path in sorted(FOLDER.glob("*.ipynb")):
            shutil.copy(path, folder)
        for path in sorted(Path(folder).glob("*.ipynb")):
            run(path, folder)
            shutil.copy(path, FOLDER / path.name)
