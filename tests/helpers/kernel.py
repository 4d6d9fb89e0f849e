"""Code run in a real kernel through its client, as a notebook's cell runs."""

from __future__ import annotations


def run(client, code):
    """Run code in the kernel; return the iopub messages it produced."""
    seen = []
    reply = client.execute_interactive(code, timeout=60, output_hook=seen.append)
    assert reply["content"]["status"] == "ok", reply["content"]
    return seen
