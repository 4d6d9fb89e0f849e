"""A long session in the Jupyter Server: the snapshot route and the first page of the events
route on a session of 100,000 events, against the same on a session of 10, alternating, in one
run, through a real `jupyter server` with the extension.

The page is the same size on both sides (`limit=10`, so the short session's page is its whole
history): what is measured is whether the length of the history costs anything, not the size
of the answer. The histories are written as resume.py writes them.
"""

from __future__ import annotations

import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _table import ratio_table  # noqa: E402
from resume import LONG, SHORT, write_history  # noqa: E402

from tests.jupyter_process import jupyter  # noqa: E402

ROUNDS = 200
TOKEN = "bench-token"


def fetch(base: str, route: str, token: str = TOKEN) -> float:
    request = urllib.request.Request(f"{base}{route}", headers={"Authorization": f"token {token}"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    elapsed = time.perf_counter() - start
    assert response.status == 200 and body
    return elapsed


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        for name, events in (("short", SHORT), ("long", LONG)):
            (root / f"{name}.ipynb").write_text("{}")
            write_history(root / f"{name}.plans.sqlite", events)
        setup = time.perf_counter() - started
        extension = '--ServerApp.jpserver_extensions={"jupyter_plans": True}'
        with jupyter("server", root, TOKEN, extension, log=root / "server.log") as (_, base):
            routes = {
                "snapshot": "/api/plans/snapshot?path={}.ipynb&session=s",
                "first page of events": "/api/plans/events?path={}.ipynb&session=s&limit=10",
            }
            samples = {f"{what}, {n}": [] for what in routes for n in ("10", "100,000")}
            for route in routes.values():  # warm up: the server opens each store once
                fetch(base, route.format("short"))
                fetch(base, route.format("long"))
            for _ in range(ROUNDS):
                for what, route in routes.items():
                    samples[f"{what}, 10"].append(fetch(base, route.format("short")))
                    samples[f"{what}, 100,000"].append(fetch(base, route.format("long")))
    print(
        f"server: a session of 100,000 events against one of 10, {ROUNDS} requests each, "
        f"alternating (histories written in {setup:.0f} s)"
    )
    figures = {}
    for what in routes:
        pair = {n: samples[f"{what}, {n}"] for n in ("10", "100,000")}
        print(f"  {what} (ratio to the 10-event session)")
        figures[what] = ratio_table(pair, "10", unit="ms", tail=True)["100,000"]
    return figures


if __name__ == "__main__":
    main()
