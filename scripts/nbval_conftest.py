"""Copied beside the notebooks nbval runs (build/nbval/conftest.py): each notebook's kernel is
told its notebook's path, as JupyterLab tells a kernel it starts, so the cards name their
notebook as in the committed outputs (scripts/run-notebooks.py runs them the same way)."""

import os

import pytest

PERSON = "analyst"  # scripts/run-notebooks.py runs the notebooks as the same person


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Before the notebook's first cell sets up its file, which starts the kernel.
    path = str(item.path)
    if path.endswith(".ipynb") and os.environ.get("JPY_SESSION_NAME") != path:
        os.environ["JPY_SESSION_NAME"] = path
    # The person the cards name as the one who decided, the same on every machine.
    os.environ["JUPYTERHUB_USER"] = PERSON
