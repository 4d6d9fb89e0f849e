"""A long session in the Jupyter Server: the snapshot route and the first page of the events
route on a session of 100,000 events, against the same on a session of 10, alternating, in one
run, through a real `jupyter server` with the extension.

The page is the same size on both sides (`limit=10`, so the short session's page is its whole
history): what is measured is whether the length of the history costs anything, not the size
of the answer. The histories are written as resume.py writes them.

Then the first REPLAYED events of the long session replayed whole, as the Plan panel's event
stream replays them, against the same events read a page at a time from the events route,
alternating: a stream of large events costs no more than the pages do.
"""

from __future__ import annotations

import json
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
REPLAYED, REPLAYS = 20_000, 3
TOKEN = "bench-token"


def fetch(base: str, route: str, token: str = TOKEN) -> float:
    request = urllib.request.Request(f"{base}{route}", headers={"Authorization": f"token {token}"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    elapsed = time.perf_counter() - start
    assert response.status == 200 and body
    return elapsed


def replay_pages(base: str, route: str) -> float:
    """Seconds to read the first REPLAYED events a page at a time."""
    start, after = time.perf_counter(), 0
    while after < REPLAYED:
        request = urllib.request.Request(
            f"{base}{route}&after={after}", headers={"Authorization": f"token {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            page = json.loads(response.read())
        after = page["events"][-1]["seq"]
    return time.perf_counter() - start


def replay_stream(base: str, route: str) -> float:
    """Seconds to read the first REPLAYED events from the event stream."""
    headers = {"Authorization": f"token {TOKEN}", "Accept": "text/event-stream"}
    request = urllib.request.Request(f"{base}{route}&after=0", headers=headers)
    start, last = time.perf_counter(), 0
    with urllib.request.urlopen(request, timeout=60) as response:
        while last < REPLAYED:
            line = response.readline()
            assert line, f"the stream ended at event {last}"
            if line.startswith(b"id: "):
                last = int(line[4:])
    return time.perf_counter() - start


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
            replays: dict[str, list[float]] = {"pages": [], "stream": []}
            events = "/api/plans/events?path=long.ipynb&session=s"
            for _ in range(REPLAYS):
                replays["pages"].append(replay_pages(base, events))
                replays["stream"].append(replay_stream(base, events))
    print(
        f"server: a session of 100,000 events against one of 10, {ROUNDS} requests each, "
        f"alternating (histories written in {setup:.0f} s)"
    )
    figures = {}
    for what in routes:
        pair = {n: samples[f"{what}, {n}"] for n in ("10", "100,000")}
        print(f"  {what} (ratio to the 10-event session)")
        figures[what] = ratio_table(pair, "10", unit="ms", tail=True)["100,000"]
    print(f"  replaying {REPLAYED:,} events, {REPLAYS} times each (ratio to the pages route)")
    figures["replay stream / pages"] = ratio_table(replays, "pages", unit="ms", tail=False)[
        "stream"
    ]
    return figures


if __name__ == "__main__":
    main()
