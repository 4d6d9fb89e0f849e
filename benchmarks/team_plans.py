"""A team's plan in PostgreSQL through the server (DESIGN section 16), against a plan file beside
the notebook, in one run: the panel's reads (the card and the snapshot routes) and the wake-up
of the events stream after another process's commit, alternating between a server configured
with --JupyterPlansApp.database and one with the default; and a rename through the contents
API while the notebook's kernel writes, against the same rename while it is idle.

Needs a server: $JUPYTER_PLANS_TEST_POSTGRES (make bench starts one).
"""

from __future__ import annotations

import contextlib
import http.client
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _table import ratio_table  # noqa: E402
from server_history import fetch  # noqa: E402

from jupyter_plans import PlanStore  # noqa: E402
from tests.conftest import SERVER_TOKEN  # noqa: E402
from tests.engines import postgres_schema  # noqa: E402
from tests.jupyter_process import jupyter  # noqa: E402
from tests.server._kernel import WRITING, Kernel  # noqa: E402
from tests.server.test_server import _next_event  # noqa: E402

TOKEN = SERVER_TOKEN  # the token the tests' Kernel and request() send
ROUNDS, CHANGES, RENAMES = 200, 60, 20
EXTENSION = '--ServerApp.jpserver_extensions={"jupyter_plans": True}'
PROPOSAL = {
    "explanation": "why",
    "findings": ["the data has gaps"],
    "objectives": ["a chart"],
    "steps": [{"id": f"s{n}", "description": f"step {n}"} for n in range(12)],
}
LOAD = "get_ipython().config.PlanMagics.auto_display = False\n%load_ext jupyter_plans\n"


def patch(base: str, old: str, new: str) -> float:
    connection = http.client.HTTPConnection(base.split("//")[1], timeout=60)
    body = f'{{"path": "{new}"}}'
    start = time.perf_counter()
    connection.request(
        "PATCH",
        f"/api/contents/{old}",
        body=body,
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    answer = connection.getresponse()
    answer.read()
    elapsed = time.perf_counter() - start
    connection.close()
    assert answer.status == 200, answer.status
    return elapsed


@contextlib.contextmanager
def servers(folder: Path, url: str):
    """{"sqlite": a server with plan files beside, "postgresql": one told the team's database}:
    each with a notebook nb.ipynb whose plan waits for a decision; and their writers."""
    sides = {}
    with contextlib.ExitStack() as stack:
        for side, options in (
            ("sqlite", ()),
            (
                "postgresql",
                (
                    f"--JupyterPlansApp.database={url}",
                    "--JupyterPlansApp.session_id={notebook_path}",
                ),
            ),
        ):
            root = folder / side
            root.mkdir()
            (root / "nb.ipynb").write_text(
                '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
            )
            where = root / "nb.plans.sqlite" if side == "sqlite" else url
            store = stack.enter_context(PlanStore(where))
            writer = store.session("default" if side == "sqlite" else "nb.ipynb")
            writer.on()
            writer.call_tool("plan_submit", PROPOSAL, turn_id="t1")
            log = folder / f"{side}.log"
            _, base = stack.enter_context(
                jupyter("server", root, TOKEN, EXTENSION, *options, log=log)
            )
            sides[side] = {"base": base, "root": root, "writer": writer, "database": where}
        yield sides


def reads(sides: dict) -> dict[str, float]:
    figures = {}
    for route in ("card", "snapshot"):
        samples = {side: [] for side in sides}
        for side in sides:  # warm up: each server opens its store once
            fetch(sides[side]["base"], f"/api/plans/{route}?path=nb.ipynb", TOKEN)
        for _ in range(ROUNDS):
            for side, served in sides.items():
                samples[side].append(
                    fetch(served["base"], f"/api/plans/{route}?path=nb.ipynb", TOKEN)
                )
        print(f"  the panel's {route} route, {ROUNDS} each, alternating (ratio to the file beside)")
        figures[f"{route} postgresql / sqlite"] = ratio_table(samples, "sqlite", unit="ms")[
            "postgresql"
        ]
    return figures


def wake_ups(sides: dict) -> dict[str, float]:
    streams = {}
    for side, served in sides.items():
        connection = http.client.HTTPConnection(served["base"].split("//")[1], timeout=30)
        connection.request(
            "GET",
            f"/api/plans/events?path=nb.ipynb&after={served['writer'].cursor()}",
            headers={"Accept": "text/event-stream", "Authorization": f"token {TOKEN}"},
        )
        streams[side] = (connection, connection.getresponse())
    samples = {side: [] for side in sides}
    for n in range(CHANGES):
        for side, served in sides.items():
            writer = served["writer"]
            start = time.perf_counter()
            writer.call_tool("record_decision", {"title": f"d{n}", "rationale": "r"})
            cursor = writer.cursor()
            while _next_event(streams[side][1])[0] < cursor:
                pass
            samples[side].append(time.perf_counter() - start)
            time.sleep(0.05)
    for connection, _ in streams.values():
        connection.close()
    print(f"  commit to the events stream, {CHANGES} each, alternating (ratio to the file beside)")
    return {
        "stream wake postgresql / sqlite": ratio_table(samples, "sqlite", unit="ms")["postgresql"]
    }


def renames(served: dict, side: str) -> dict[str, float]:
    """Renames back and forth while the notebook's kernel writes, then while it is idle."""
    root, names = served["root"], ["r0.ipynb", "r1.ipynb"]
    (root / names[0]).write_text(
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    kernel = Kernel({"base": served["base"]}, names[0])
    samples: dict[str, list[float]] = {"idle": [], "kernel writing": []}
    try:
        kernel.run(LOAD + WRITING)
        at = 0
        for label in ("kernel writing", "idle"):
            if label == "idle":
                kernel.run("_stop.set(); _writer.join()")
            for _ in range(RENAMES):
                time.sleep(0.05)
                samples[label].append(patch(served["base"], names[at], names[1 - at]))
                at = 1 - at
        written = int(kernel.run("print(len(_accepted))"))
        sid = kernel.run("print(_session.session_id)").strip()  # default, or r0.ipynb
    finally:
        kernel.close()
    where = root / f"{names[at][:-6]}.plans.sqlite" if side == "sqlite" else served["database"]
    with PlanStore(where) as store:
        kept = len(store.session(sid).snapshot().decisions)
    print(
        f"  a rename through the contents API, {side}: {RENAMES} while the kernel wrote "
        f"({written} writes, {kept} kept), {RENAMES} while it was idle"
    )
    assert kept == written, "a write was lost"
    return ratio_table(samples, "idle", unit="ms")


def main() -> dict[str, float]:
    try:
        schema = postgres_schema()
        url = schema.__enter__()
    except BaseException as exc:  # pytest's skip: no server here
        print(f"team_plans: skipped ({str(exc).splitlines()[0]})")
        return {}
    figures = {}
    try:
        with tempfile.TemporaryDirectory() as folder, servers(Path(folder), url) as sides:
            print(
                "a team's plan in PostgreSQL against a plan file beside the notebook, "
                "through the server"
            )
            figures |= reads(sides)
            figures |= wake_ups(sides)
            for side in ("postgresql", "sqlite"):
                found = renames(sides[side], side)
                figures[f"rename while writing / idle, {side}"] = found["kernel writing"]
    finally:
        schema.__exit__(None, None, None)
    return figures


if __name__ == "__main__":
    main()
