"""Locks (DESIGN section 9) in a real Jupyter server that has a plan file open: none of its checks
and none of the contents service's operations (a Duplicate of the open plan above all) drops
the server's lock on the file, and a Duplicate while other processes write loses nothing."""

from __future__ import annotations

import json
import uuid

from tests.http import request
from tests.locks import duplicates_under_writers, held, inode, needs_proc_locks

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
PROPOSAL = {
    "explanation": "why",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load the data"}],
}


def _notebook(server: dict, stem: str) -> str:
    name = f"{stem}-{uuid.uuid4().hex[:8]}.ipynb"
    (server["root"] / name).write_text(json.dumps(NOTEBOOK))
    return name


def test_no_route_or_contents_operation_drops_the_servers_lock_on_an_open_plan(server):
    needs_proc_locks()
    name = _notebook(server, "locks")
    other = _notebook(server, "beside")
    plan = server["root"] / name.replace(".ipynb", ".plans.sqlite")
    status, body = request(server, "POST", f"/api/plans/decision?path={name}", {"action": "on"})
    assert status == 200, body
    pid, file = server["pid"], inode(plan)
    assert held(pid, file), "the server, having answered a decision, holds its plan file open"
    steps = [{"id": "load", "description": "Load the data"}]
    from jupyter_plans import PlanStore

    with PlanStore(plan) as store:
        store.session("default").call_tool("plan_submit", {**PROPOSAL, "steps": steps})
    plans = "/api/plans"
    asked = [
        ("GET", f"{plans}/sessions?path={name}", None),
        ("GET", f"{plans}/snapshot?path={name}", None),
        ("GET", f"{plans}/events?path={name}", None),
        ("GET", f"{plans}/card?path={name}", None),
        ("POST", f"{plans}/comment?path={name}", {"step_id": "load", "text": "mind the header"}),
        ("POST", f"{plans}/decision?path={name}", {"action": "revise", "notes": "smaller"}),
        ("GET", f"{plans}/snapshot?path={other}", None),  # a notebook beside it, no plan
        ("GET", f"/api/contents/{name}", None),
        ("GET", "/api/contents/", None),
        ("PUT", f"/api/contents/{name}", {"type": "notebook", "content": NOTEBOOK}),
        ("POST", "/api/contents", {"copy_from": name}),  # Duplicate
        ("PATCH", f"/api/contents/{other}", {"path": "renamed-" + other}),
        ("DELETE", f"/api/contents/renamed-{other}", None),
    ]
    for method, route, body in asked:
        status, answer = request(server, method, route, body)
        assert status < 300, (method, route, status, answer)
        assert held(pid, file), f"{method} {route} dropped the server's lock on the open plan"


def test_duplicates_while_processes_write_keep_every_accepted_write(server):
    name = _notebook(server, "duplicated")
    outcome = duplicates_under_writers(server, name, rounds=4)
    assert [status for status, _ in outcome["answered"]] == [200] * 4
    assert outcome["kept"] == [mode for _, mode in outcome["answered"]]
    assert set(outcome["accepted"]) <= set(outcome["kept_titles"])
