"""update_plan through the public API against the raw sqlite3 floor and two peers, in one run.

The floor is the least any durable store must do for the same change: one UPDATE of the
session row and one INSERT of the event, committed, in WAL mode with synchronous=FULL, with the
same JSON payload. The peers store the same plan as their users would: langgraph's
`SqliteSaver.put` (one checkpoint row) and eventsourcing's SQLite `insert_events` (one stored
event); both run in WAL mode with SQLite's default synchronous=FULL, and both do less than
update_plan (no revision check, no input validation, no snapshot row). All sides run
interleaved, one call each in turn in a shuffled order, so a noisy neighbour slows all of
them and none always follows the same code.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path

from _table import ratio_table

from jupyter_plans import PlanStore

ROUNDS = 10
PER_ROUND = 100


# The plan sizes measured: (steps, whether the plan is the large kind agents keep, with
# ~80-byte descriptions, an acceptance on a third of the steps and depends_on on a third).
SIZES = [(1, False), (12, False), (32, True)]
LONG = " and compare the result with the notes kept so far"


def plan_steps(i: int, size: int = 12, large: bool = False) -> list[dict]:
    steps = []
    for n in range(size):
        done = n < i % (size + 1)
        acceptance = "The checked column has no missing values" if large and n % 3 == 0 else None
        if large:
            depends_on = [f"step-{n - 1}"] if n % 3 == 1 else []
        else:
            depends_on = [f"step-{n - 1}"] if n else []
        steps.append(
            {
                "id": f"step-{n}",
                "description": f"Carry out part {n} of the analysis, revision {i}"
                + (LONG if large else ""),
                "status": "completed" if done else "pending",
                "acceptance": acceptance,
                "depends_on": depends_on,
                "evidence": "Checked: 0 missing of 1,204 rows" if acceptance and done else None,
            }
        )
    return steps


class Floor:
    """Raw sqlite3: UPDATE + INSERT + COMMIT, nothing else."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("CREATE TABLE s (id TEXT PRIMARY KEY, revision INT, plan TEXT)")
        self.conn.execute(
            "CREATE TABLE e (sid TEXT, seq INT, kind TEXT, data TEXT, PRIMARY KEY (sid, seq))"
        )
        self.conn.execute("INSERT INTO s VALUES ('s', 0, NULL)")
        self.revision = 0

    def update(self, steps: list[dict]) -> None:
        self.revision += 1
        plan = {"revision": self.revision, "steps": steps}
        data = json.dumps({"name": "update_plan", "plan": plan}, separators=(",", ":"))
        plan = json.dumps(plan, separators=(",", ":"))
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "UPDATE s SET revision = ?, plan = ? WHERE id = 's'", (self.revision, plan)
        )
        self.conn.execute("INSERT INTO e VALUES ('s', ?, 'plan_updated', ?)", (self.revision, data))
        self.conn.execute("COMMIT")


class LangGraph:
    """langgraph-checkpoint-sqlite: SqliteSaver.put of a checkpoint holding the plan."""

    def __init__(self, path: Path) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
        self.saver.setup()
        self.config = {"configurable": {"thread_id": "bench", "checkpoint_ns": ""}}
        self.revision = 0

    def update(self, steps: list[dict]) -> None:
        self.revision += 1
        checkpoint = {
            "v": 1,
            "id": f"{self.revision:032d}",
            "ts": "2026-11-30T00:00:00+00:00",
            "channel_values": {"plan": {"revision": self.revision, "steps": steps}},
            "channel_versions": {"plan": self.revision},
            "versions_seen": {},
        }
        self.config = self.saver.put(self.config, checkpoint, {"step": self.revision}, {})


class EventSourcing:
    """eventsourcing's SQLite application recorder: insert_events of one stored event."""

    def __init__(self, path: Path) -> None:
        from eventsourcing.persistence import StoredEvent
        from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

        self.event = StoredEvent
        self.recorder = SQLiteApplicationRecorder(SQLiteDatastore(str(path)))
        self.recorder.create_table()
        self.originator = uuid.uuid4()
        self.revision = 0

    def update(self, steps: list[dict]) -> None:
        self.revision += 1
        plan = {"revision": self.revision, "steps": steps}
        state = json.dumps({"name": "update_plan", "plan": plan}, separators=(",", ":"))
        self.recorder.insert_events(
            [self.event(self.originator, self.revision, "plan_updated", state.encode())]
        )


class Ours:
    """update_plan through the public API, as a Python caller makes it (no call id)."""

    def __init__(self, path: Path) -> None:
        self.session = PlanStore(path).session("bench")
        self.revision = 0

    def call_id(self) -> str | None:
        return None

    def update(self, steps: list[dict]) -> None:
        args = {"expected_revision": self.revision, "steps": steps}
        result = self.session.call_tool("update_plan", args, call_id=self.call_id())
        assert not result.is_error, result.content
        self.revision += 1


class OursWithIds(Ours):
    """update_plan as agents call it: each call with its provider's id, recorded (and
    indexed) so that a retry under the same id returns the recorded result."""

    def call_id(self) -> str | None:
        return f"call_{self.revision}"


class OursAsText(OursWithIds):
    """update_plan as the OpenAI-compatible loop and a Toolbox pass it: the arguments as the
    provider's JSON text, with its call id. The texts are made ahead, in the order `measure`
    sends the payloads, as a provider's reply holds them before the call."""

    def __init__(self, path: Path, payloads: list) -> None:
        super().__init__(path)
        order = payloads[:20] + payloads * ROUNDS
        self.texts = [
            (id(steps), json.dumps({"expected_revision": revision, "steps": steps}))
            for revision, steps in enumerate(order)
        ]
        self.texts.reverse()

    def update(self, steps: list[dict]) -> None:
        made_for, text = self.texts.pop()
        assert made_for == id(steps), "the texts follow measure()'s order"
        result = self.session.call_tool("update_plan", text, call_id=self.call_id())
        assert not result.is_error, result.content
        self.revision += 1


class OurStatements:
    """update_plan's statements alone on raw sqlite3, as the store runs them (the shipped
    compiled forms), with the texts update_plan stored for the same payloads: what is left
    of our call when none of our Python runs."""

    def __init__(self, path: Path, payloads: list) -> None:
        from jupyter_plans.store.compiled import shipped_forms

        forms = shipped_forms()
        self.statements = forms["UPDATE_STATE"]["sql"], forms["INSERT_EVENT"]["sql"]
        store = PlanStore(path)  # update_plan makes and stores the texts, one session each
        for n, steps in enumerate(payloads):
            store.session(f"texts-{n}").call_tool(
                "update_plan", {"expected_revision": 0, "steps": steps}
            )
        store.session("bench").call_tool(
            "update_plan", {"expected_revision": 0, "steps": payloads[0]}
        )
        store.close()
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA synchronous=FULL")
        read = "SELECT data, result FROM plans_events WHERE session_id = ? AND seq = 1"
        self.texts = {
            id(steps): self.conn.execute(read, (f"texts-{n}",)).fetchone()
            for n, steps in enumerate(payloads)
        }
        self.cursor = 1

    def update(self, steps: list[dict]) -> None:
        (update, insert), (data, result) = self.statements, self.texts[id(steps)]
        cursor = self.cursor
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("PRAGMA data_version").fetchone()
        state = (cursor + 1, cursor + 1, "default", None, None, cursor + 1, None, 0, 0, None)
        self.conn.execute(update, (*state, "bench", cursor))
        at = int(time.time() * 1000)
        # The columns of INSERT_EVENT: no call id here, so no call digest either.
        event = ("bench", cursor + 1, "plan_updated", data, at, None, result, None)
        self.conn.execute(insert, event)
        self.conn.execute("COMMIT")
        self.cursor += 1


class OurCheck:
    """update_plan's input check alone (the tool's parse, which also makes the plan's stored
    text), with no store."""

    def __init__(self, path: Path) -> None:
        from jupyter_plans.plan.catalog import CATALOG

        self.parse = CATALOG["update_plan"].parse

    def update(self, steps: list[dict]) -> None:
        self.parse({"expected_revision": 0, "steps": steps})


PAYLOADS = [plan_steps(i) for i in range(PER_ROUND)]


def measure(sides: dict, payloads: list | None = None) -> dict[str, list[float]]:
    """Time each side on the same payloads, one call each in turn, so noise falls on all."""
    samples: dict[str, list[float]] = {name: [] for name in sides}
    payloads = payloads or PAYLOADS
    for side in sides.values():  # warm up caches and the WAL file
        for steps in payloads[:20]:
            side.update(steps)
    clock = time.perf_counter
    order, shuffle = list(sides), random.Random(0).shuffle
    for _ in range(ROUNDS):
        for steps in payloads:
            shuffle(order)  # no side always runs after the same neighbour's code
            for name in order:
                start = clock()
                sides[name].update(steps)
                samples[name].append(clock() - start)
    return samples


def one_size(folder: Path, size: int, large: bool) -> dict[str, float]:
    """The mix at one plan size; the figures are each side's p50 over the floor's."""
    folder = folder / f"{size}-steps"
    folder.mkdir()
    sides = {
        "raw sqlite3 floor": Floor(folder / "floor.sqlite"),
        "jupyter-plans update_plan": Ours(folder / "ours.plans.sqlite"),
        "  the same, with call ids": OursWithIds(folder / "ids.plans.sqlite"),
    }
    for name, peer in (
        ("langgraph SqliteSaver.put", LangGraph),
        ("eventsourcing insert_events", EventSourcing),
    ):
        try:
            sides[name] = peer(folder / f"{peer.__name__.lower()}.sqlite")
        except ImportError:
            print(f"({name} is not installed: pip install -e '.[bench]')")
    payloads = [plan_steps(i, size, large) for i in range(PER_ROUND)]
    samples = measure(sides, payloads)
    count = len(samples["raw sqlite3 floor"])
    kind = ", ~80-byte descriptions, acceptance and depends_on on a third" if large else ""
    print(f"\nupdate_plan, {size}-step plan{kind}, WAL + synchronous=FULL, {count} commits each")
    return ratio_table(samples, "raw sqlite3 floor")


def main() -> dict[str, float]:
    """Every size; the 12-step figures also under their plain names (the targets' table)."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        for size, large in SIZES:
            found = one_size(folder, size, large)
            figures.update({f"{name.strip()} @{size}": value for name, value in found.items()})
            if size == 12:
                figures.update(found)
            text = as_text(folder, size, large)["  as JSON text, with call ids"]
            figures[f"as JSON text, with call ids @{size}"] = text
        if "langgraph SqliteSaver.put" in figures:
            for size, large in SIZES[1:]:
                found = parts(folder, size, large)
                figures.update({f"{name} @{size}": value for name, value in found.items()})
    return figures


def as_text(folder: Path, size: int, large: bool) -> dict[str, float]:
    """Agents' calls as their providers send them (JSON text, a call id), in a mix of their
    own with the floor and the same calls as Python objects."""
    payloads = [plan_steps(i, size, large) for i in range(PER_ROUND)]
    folder = folder / f"text-{size}"
    folder.mkdir()
    sides = {
        "raw sqlite3 floor": Floor(folder / "floor.sqlite"),
        "  with call ids": OursWithIds(folder / "ids.plans.sqlite"),
        "  as JSON text, with call ids": OursAsText(folder / "text.plans.sqlite", payloads),
    }
    print(f"\nupdate_plan as agents send it, {size} step(s), in a mix of its own")
    return ratio_table(measure(sides, payloads), "raw sqlite3 floor")


def parts(folder: Path, size: int, large: bool) -> dict[str, float]:
    """Where our call's time goes, against langgraph's put: a second mix, without our call
    (its check would warm the caches for it), of its statements alone and its check alone."""
    payloads = [plan_steps(i, size, large) for i in range(PER_ROUND)]
    folder = folder / f"parts-{size}"
    folder.mkdir()
    sides = {
        "raw sqlite3 floor": Floor(folder / "floor.sqlite"),
        "our statements alone": OurStatements(folder / "statements.plans.sqlite", payloads),
        "our input check alone": OurCheck(folder),
        "langgraph SqliteSaver.put": LangGraph(folder / "langgraph.sqlite"),
    }
    print(f"\nthe parts of update_plan, {size} steps, in a mix of their own")
    figures = ratio_table(measure(sides, payloads), "raw sqlite3 floor")
    both = figures["our statements alone"] + figures["our input check alone"]
    print(f"  statements + input check: {both:.2f} of the floor, before any session logic")
    return figures


if __name__ == "__main__":
    main()
