"""Copied beside the notebooks nbval runs (build/nbval/conftest.py): each notebook's kernel is
told its notebook's path, as JupyterLab tells a kernel it starts, so the cards name their
notebook as in the committed outputs (scripts/run-notebooks.py runs them the same way).

Each cell is sent as JupyterLab sends it: with its id in the request's metadata (`cellId`) and
kept in the history (so it has an execution count), which is how the plan links the cells
that did each step.
"""

import os

import pytest
from jupyter_client.asynchronous import client as asynchronous
from jupyter_client.blocking import client as blocking
from jupyter_client.client import reqrep

CELL = {"id": None}  # the id of the cell being run


def execute_as_jupyterlab(
    self,
    code,
    silent=False,
    store_history=True,
    user_expressions=None,
    allow_stdin=None,
    stop_on_error=True,
):
    """KernelClient.execute, with the cell's id in the metadata as JupyterLab sends it (and
    the cell kept in the history, as JupyterLab keeps it).

    Returns
    -------
    The msg_id of the message sent.
    """
    content = {
        "code": code,
        "silent": silent,
        "store_history": True if CELL["id"] else store_history,
        "user_expressions": user_expressions or {},
        "allow_stdin": self.allow_stdin if allow_stdin is None else allow_stdin,
        "stop_on_error": stop_on_error,
    }
    msg = self.session.msg("execute_request", content)
    if CELL["id"]:
        msg["metadata"]["cellId"] = CELL["id"]
    self.shell_channel.send(msg)
    return msg["header"]["msg_id"]


# nbval's client blocks, nbclient's is asynchronous: each wraps `execute` its own way.
for _module, _client in (
    (asynchronous, asynchronous.AsyncKernelClient),
    (blocking, blocking.BlockingKernelClient),
):
    _client.execute = reqrep(_module.wrapped, execute_as_jupyterlab)

PERSON = "analyst"  # scripts/run-notebooks.py runs the notebooks as the same person


_SAVED: dict[str, str | None] = {}  # what the variables below were before a cell set them


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Before the notebook's first cell sets up its file, which starts the kernel (the kernel
    # keeps them; the tests run beside the notebooks in this process never see them).
    told = {"JUPYTERHUB_USER": PERSON}  # who decided, the same on every machine
    if str(item.path).endswith(".ipynb"):
        told["JPY_SESSION_NAME"] = str(item.path)
    for name, value in told.items():
        _SAVED.setdefault(name, os.environ.get(name))
        os.environ[name] = value
    cell = getattr(item, "cell", None)
    CELL["id"] = cell.get("id") if cell is not None else None


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    CELL["id"] = None
    while _SAVED:
        name, value = _SAVED.popitem()
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
