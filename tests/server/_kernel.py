"""A notebook in the server root and the kernel the Jupyter server started for it, driven over
ZMQ, for the server tests."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from jupyter_client import BlockingKernelClient
from jupyter_core.paths import jupyter_runtime_dir

from tests.http import request

NOTEBOOK = {
    "cells": [],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def make_notebook(root: Path, name: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(NOTEBOOK))
    return path


def plan_of(root: Path, notebook: str) -> Path:
    return root / notebook.replace(".ipynb", ".plans.sqlite")


LOAD = (
    "get_ipython().config.PlanMagics.auto_display = False\n"
    "%load_ext jupyter_plans\n"
    "import jupyter_plans\n"
)

# Run in the kernel after %load_ext: its own writes, on a thread of its own, as fast as they go,
# until `_stop` is set; `_accepted` holds the titles the store accepted, in order.
WRITING = """
import threading, jupyter_plans
_session, _accepted, _stop = jupyter_plans.current_session(), [], threading.Event()
def _write():
    n = 0
    while not _stop.is_set():
        n += 1
        done = _session.call_tool("record_decision", {"title": f"k{n}", "rationale": "r"})
        if not done.is_error:
            _accepted.append(f"k{n}")
_writer = threading.Thread(target=_write)
_writer.start()
"""


class Kernel:
    """A kernel the server started for a notebook (POST /api/sessions), driven over ZMQ."""

    def __init__(self, server, notebook: str) -> None:
        status, body = request(
            server,
            "POST",
            "/api/sessions",
            # Named after its file, as JupyterLab names it (the kernel is told cwd/name).
            {
                "path": notebook,
                "type": "notebook",
                "name": PurePosixPath(notebook).name,
                "kernel": {"name": "python3"},
            },
        )
        assert status == 201, body
        self.server, self.session_id, self.kernel_id = server, body["id"], body["kernel"]["id"]
        self.client = self._connect()

    def _connect(self) -> BlockingKernelClient:
        client = BlockingKernelClient()
        client.load_connection_file(Path(jupyter_runtime_dir()) / f"kernel-{self.kernel_id}.json")
        # A heartbeat late by more than a second is not a dead kernel on a busy machine (the
        # default would say "Kernel died" while it starts).
        client.hb_channel.time_to_dead = 10.0
        client.start_channels()
        client.wait_for_ready(timeout=60)
        return client

    def run(self, code: str) -> str:
        """What the cell printed; its error, raised."""
        msg_id = self.client.execute(code)
        printed = []
        while True:
            msg = self.client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                printed.append(content["text"])
            elif kind == "error":
                raise AssertionError("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(printed)

    def restart(self) -> None:
        self.client.stop_channels()
        status, body = request(self.server, "POST", f"/api/kernels/{self.kernel_id}/restart", {})
        assert status == 200, body
        self.client = self._connect()

    def close(self) -> None:
        self.client.stop_channels()
        request(self.server, "DELETE", f"/api/sessions/{self.session_id}")
