"""One process of the scale benchmark (pg_scale.py): a store of the team's database with a live
watcher of its own session as a kernel's card has (woken by the server's notices, else polling,
then reading the session's cursor), writing to that session now and then, on one thread as a
kernel does. Commands come on stdin, one JSON object a line; each gets one line of JSON back.

    {"open": URL}           open the store; watch its own session
    {"write_every": S}      write to its own session every S seconds or so
    {"report": true}        stop writing; what it measured since the last report
    {"close": true}         close the store (its listening connection goes with it)
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sys
import threading
import time

from jupyter_plans import PlanStore
from jupyter_plans.errors import PlanStoreError
from jupyter_plans.notebook.watch import NOTIFIED_POLL_SECONDS
from jupyter_plans.store.wake import Wake

POLL_SECONDS = 0.2  # a card's poll_interval, where nothing tells


class Said(logging.Handler):
    """What jupyter-plans says on its logger (a listener that cannot listen, ...)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


class Worker:
    def __init__(self, name: str) -> None:
        self.name = name
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.said = Said()
        logging.getLogger("jupyter_plans").addHandler(self.said)
        self.store = None
        self.writes: list[float] = []
        self.errors: list[str] = []
        self.seen: list[tuple[int, float]] = []  # (a cursor, when the watcher first saw it)
        self._watching = None
        self._writing = None

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def open(self, url: str) -> dict:
        try:
            self.store = PlanStore(url)
            self.own = self.store.session(self.name)
            # A kernel that has been used: the first write's imports and statements are behind.
            self.own.call_tool("record_decision", {"title": "opened", "rationale": "r"})
        except PlanStoreError as exc:
            self.errors.append(str(exc))
            return {"opened": False}
        self._watching = asyncio.get_running_loop().create_task(self.watch())
        stop = self.store.on_change(lambda: None)
        if stop is not None:
            stop()
        return {"opened": True, "told": stop is not None}

    async def watch(self) -> None:
        """As CardWatcher does: on each wake read the token; when it moved, the cursor of the
        session shown, unless the notices told of no change to that session."""
        wake = Wake(self.store, untold=POLL_SECONDS, told=NOTIFIED_POLL_SECONDS)
        token, told = self.store.change_token(), self.store.session_token(self.name)
        cursor = self.own.cursor()
        try:
            while True:
                await wake.wait()
                try:
                    now = self.store.change_token()
                    if now == token:
                        continue
                    token, was, told = now, told, self.store.session_token(self.name)
                    if told is not None and told == was:
                        continue
                    seen = self.own.cursor()
                except PlanStoreError as exc:
                    self.errors.append(str(exc))
                    continue
                if seen != cursor:
                    cursor = seen
                    self.seen.append((seen, time.time()))
        finally:
            wake.close()

    async def write_now_and_then(self, every: float) -> None:
        n = 0
        while True:
            await asyncio.sleep(random.uniform(0.5, 1.5) * every)
            started = time.perf_counter()
            try:
                self.own.call_tool("record_decision", {"title": f"d{n}", "rationale": "r"})
                self.writes.append(time.perf_counter() - started)
            except PlanStoreError as exc:
                self.errors.append(str(exc))
            n += 1

    async def start_writing(self, every: float) -> dict:
        self._writing = asyncio.get_running_loop().create_task(self.write_now_and_then(every))
        return {"writing": True}

    async def report(self) -> dict:
        if self._writing is not None:
            self._writing.cancel()
            self._writing = None
        found = {"writes": self.writes, "errors": self.errors, "seen": self.seen}
        found["said"], self.said.lines = self.said.lines, []
        self.writes, self.errors, self.seen = [], [], []
        return found

    async def close(self) -> dict:
        for task in (self._watching, self._writing):
            if task is not None:
                task.cancel()
        self._watching = self._writing = None
        if self.store is not None:
            self.store.close()
            self.store = None
        return {"closed": True}


def main() -> None:
    worker = Worker(sys.argv[1])
    print(json.dumps({"ready": True}), flush=True)  # imported: it costs the machine no more
    for line in sys.stdin:
        command = json.loads(line)
        if "open" in command:
            reply = worker.run(worker.open(command["open"]))
        elif "write_every" in command:
            reply = worker.run(worker.start_writing(command["write_every"]))
        elif "report" in command:
            reply = worker.run(worker.report())
        else:
            reply = worker.run(worker.close())
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
