"""Run the notebooks in notebooks/ from an empty plan file each and save them with their outputs.

    python scripts/run-notebooks.py [NOTEBOOK ...]

Each notebook runs in a temporary copy of the folder (so no plan file is left beside the
committed notebooks), in a fresh kernel, and is written back in place. nbval then compares
a fresh run against these outputs in `make test`.
"""

import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"


def run(path: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copy(path, copy)
        notebook = nbformat.read(copy, as_version=4)
        NotebookClient(
            notebook, timeout=120, record_timing=False, resources={"metadata": {"path": folder}}
        ).execute()
        for cell in notebook.cells:
            cell.metadata.pop("execution", None)  # times would change on every run
        nbformat.write(notebook, path)
    print(f"ran {path.name}: {len(notebook.cells)} cells")


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(p.name for p in FOLDER.glob("*.ipynb")):
        run(FOLDER / Path(name).name)
