"""update_plan on PostgreSQL against the raw psycopg floor for the same transaction, in one run.

The floor does what a correct PostgreSQL writer of one plan must: lock the session row
(`SELECT ... FOR UPDATE`), update it with the new revision and plan, insert the event, commit,
in READ COMMITTED, on one held connection, with the same JSON payload: five round trips. The
pipelined floor sends the same statements as update_plan does (BEGIN with the lock, the writes
together, the commit: three round trips), so it shows what is left of our call beside the
round trips. All sides alternate call by call. Needs a server: $JUPYTER_PLANS_TEST_POSTGRES
(`make bench` starts one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _table import ratio_table  # noqa: E402
from update_plan import SIZES, Ours, measure, plan_steps  # noqa: E402

from tests.engines import postgres_schema  # noqa: E402


class Floor:
    def __init__(self, url: str, sessions: str = "floor_s", events: str = "floor_e") -> None:
        import psycopg

        plain = url.replace("postgresql+psycopg://", "postgresql://")
        self.conn = psycopg.connect(plain, autocommit=True)
        self.conn.execute(f"DROP TABLE IF EXISTS {sessions}, {events}")
        self.conn.execute(f"CREATE TABLE {sessions} (id TEXT PRIMARY KEY, revision INT, plan TEXT)")
        self.conn.execute(
            f"CREATE TABLE {events} (sid TEXT, seq INT, kind TEXT, data TEXT, "
            "PRIMARY KEY (sid, seq))"
        )
        self.conn.execute(f"INSERT INTO {sessions} VALUES ('s', 0, NULL)")
        self.lock = f"SELECT revision FROM {sessions} WHERE id = 's' FOR UPDATE"
        self.update_row = f"UPDATE {sessions} SET revision = %s, plan = %s WHERE id = 's'"
        self.insert = f"INSERT INTO {events} VALUES ('s', %s, 'plan_updated', %s)"

    @staticmethod
    def texts(revision: int, steps: list[dict]) -> tuple[str, str]:
        """The plan's text for the session row, and the event's."""
        plan = {"revision": revision, "steps": steps}
        data = json.dumps({"name": "update_plan", "plan": plan}, separators=(",", ":"))
        return json.dumps(plan, separators=(",", ":")), data

    def update(self, steps: list[dict]) -> None:
        cur = self.conn.cursor()
        cur.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        cur.execute(self.lock)
        revision = cur.fetchone()[0] + 1
        plan, data = self.texts(revision, steps)
        cur.execute(self.update_row, (revision, plan))
        cur.execute(self.insert, (revision, data))
        cur.execute("COMMIT")


class PipelinedFloor(Floor):
    def update(self, steps: list[dict]) -> None:
        cur, pipeline = self.conn.cursor(), self.conn.pipeline
        with pipeline():
            cur.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            cur.execute(self.lock)
        revision = cur.fetchone()[0] + 1
        plan, data = self.texts(revision, steps)
        with pipeline():
            cur.execute(self.insert, (revision, data))
            cur.execute(self.update_row, (revision, plan))
        assert cur.rowcount == 1
        cur.execute("COMMIT")


def after_idle(url: str, count: int = 40) -> dict[str, float]:
    """A write after idling costs one connect: update_plan after the store let go of its
    connection, against psycopg connecting and then making the same write (pipelined as ours
    is) as the new connection's first; by turns, with update_plan on the connection it holds.
    A server process's first statements cost more than its later ones (its caches are cold),
    so the floor's write is its connection's first too."""
    import time

    import psycopg

    from jupyter_plans.store.pg_idle import IDLE

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    held, after, floor = "update_plan, connection held", "update_plan after idling", "floor"
    samples: dict[str, list[float]] = {held: [], after: [], f"{floor}: connect + write": []}
    steps = plan_steps(1, 1, False)
    ours, raw = Ours(url + "&plans_listen=off"), PipelinedFloor(url, "idle_s", "idle_e")
    ours.session = ours.session.store.session("bench-idle")
    seconds, IDLE.seconds = IDLE.seconds, 0.1  # let go of after 0.1 s, not 5 s
    try:
        ours.update(steps)
        for _ in range(count):
            closed = IDLE.closed
            while IDLE.closed == closed:  # the store let go of its connection
                time.sleep(0.01)
            for side in (after, held):
                started = time.perf_counter()
                ours.update(steps)
                samples[side].append(time.perf_counter() - started)
            raw.conn.close()
            started = time.perf_counter()
            raw.conn = psycopg.connect(plain, autocommit=True)
            raw.update(steps)
            samples[f"{floor}: connect + write"].append(time.perf_counter() - started)
    finally:
        IDLE.seconds = seconds
        ours.session.store.close()
        raw.conn.close()
    print(f"\nupdate_plan after idling on PostgreSQL (loopback), 1 step, {count} each")
    found = ratio_table(samples, held, unit="ms")
    figure = found[after] / found[f"{floor}: connect + write"]
    print(f"update_plan after idling / a connect and the write: {figure:.2f}")
    return {"after idling / connect + write": figure}


def main() -> dict[str, float]:
    try:
        schema = postgres_schema()
        url = schema.__enter__()
    except BaseException as exc:  # pytest's skip: no server here
        print(f"postgres: skipped ({str(exc).splitlines()[0]})")
        return {}
    figures = {}
    try:
        for size, large in SIZES:
            payloads = [plan_steps(i, size, large) for i in range(100)]
            ours = Ours(url)
            ours.session = ours.session.store.session(f"bench-{size}")
            sides = {
                "raw psycopg floor": Floor(url),
                "  pipelined as ours is": PipelinedFloor(url, "floor_p", "floor_q"),
                "jupyter-plans update_plan": ours,
            }
            samples = measure(sides, payloads)
            count = len(samples["raw psycopg floor"])
            print(f"\nupdate_plan on PostgreSQL, {size}-step plan, {count} each")
            found = ratio_table(samples, "raw psycopg floor")
            ours_ratio = found["jupyter-plans update_plan"]
            figures[f"jupyter-plans update_plan @{size}"] = ours_ratio
            # Against the floor that waits as often as ours does: the cost of our Python.
            figures[f"against the pipelined floor @{size}"] = (
                ours_ratio / found["  pipelined as ours is"]
            )
            if size == 12:
                figures.update(found)
        figures.update(after_idle(url))
    finally:
        schema.__exit__(None, None, None)
    return figures


if __name__ == "__main__":
    main()
