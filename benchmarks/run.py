"""Run every benchmark, print its table, then the targets: `make bench`.

Every figure is a ratio taken within one run (ours against a floor or a peer measured
alongside), except the live card's latency and the hook's p95, which is what a person or an
agent waits for, a kernel's memory (what the extension adds to one with ipywidgets and
anywidget), and PostgreSQL at scale (pg_scale): connections refused and held, and the waits,
as the processes grow.
"""

import sys
import time
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# (module, figure, target, how the figure is compared)
BENCHMARKS = [
    "update_plan",
    "resume",
    "server_history",
    "load_ext",
    "memory",
    "card_latency",
    "postgres",
    "pg_scale",
    "hook",
    "cell_links",
    "checks",
    "comments",
    "team_plans",
]
TARGETS = [
    ("update_plan", "jupyter-plans update_plan @1", 1.3, "update_plan / sqlite3 floor, 1 step"),
    ("update_plan", "the same, with call ids @1", 1.3, "  with call ids, 1 step"),
    ("update_plan", "jupyter-plans update_plan", 1.3, "update_plan / sqlite3 floor, 12 steps"),
    ("update_plan", "the same, with call ids @12", 1.3, "  with call ids, 12 steps"),
    ("update_plan", "jupyter-plans update_plan @32", 1.3, "update_plan / sqlite3 floor, 32 steps"),
    ("update_plan", "the same, with call ids @32", 1.3, "  with call ids, 32 steps"),
    ("update_plan", "as JSON text, with call ids @1", 1.3, "  as JSON text with ids, 1 step"),
    ("update_plan", "as JSON text, with call ids @12", 1.3, "  as JSON text with ids, 12 steps"),
    ("update_plan", "as JSON text, with call ids @32", 1.3, "  as JSON text with ids, 32 steps"),
    ("resume", "100,000 events", 1.2, "resume with 100,000 events / with 10"),
    ("server_history", "snapshot", 1.2, "server snapshot, 100,000 events / 10"),
    ("server_history", "first page of events", 1.2, "server events page, 100,000 events / 10"),
    ("server_history", "replay stream / pages", 1.0, "  replaying 20,000: the stream / pages"),
    ("load_ext", "%load_ext jupyter_plans", 0.8, "%load_ext / import ipywidgets"),
    ("load_ext", "the same, a plan of 12 steps", 0.8, "  a notebook with 12 steps"),
    ("memory", "a new notebook, %load_ext MB", 6, "a kernel's extra MB after %load_ext"),
    ("memory", "a new notebook, %plan on MB", 8, "  and after %plan on"),
    (
        "memory",
        "a notebook with 12 steps, %load_ext MB",
        6,
        "  a notebook with 12 steps, %load_ext",
    ),
    ("memory", "a notebook with 12 steps, %plan on MB", 8, "  and after %plan on"),
    ("card_latency", "p95 ms", 100, "live card p95, ms (another process's commit)"),
    ("card_latency", "panel p95 ms", 100, "Plan panel p95, ms (another process's commit)"),
    ("card_latency", "idle cpu %", 1.0, "idle kernel CPU, % of a core"),
    ("postgres", "jupyter-plans update_plan", 1.2, "PostgreSQL / psycopg floor, 12 steps"),
    ("postgres", "jupyter-plans update_plan @1", 1.2, "PostgreSQL / psycopg floor, 1 step"),
    ("postgres", "jupyter-plans update_plan @32", 1.2, "PostgreSQL / psycopg floor, 32 steps"),
    ("postgres", "against the pipelined floor @1", 1.2, "  / pipelined psycopg floor, 1 step"),
    ("postgres", "against the pipelined floor @12", 1.2, "  / pipelined psycopg floor, 12 steps"),
    ("postgres", "against the pipelined floor @32", 1.2, "  / pipelined psycopg floor, 32 steps"),
    ("postgres", "after idling / connect + write", 1.2, "  after idling / a connect and the write"),
    ("pg_scale", "PostgreSQL held idle per process @50", 1.0, "connections an idle process holds"),
    ("pg_scale", "PgBouncer + plans_listen wake p95 @50", 100, "commit-to-wake p95 ms, 50 procs"),
    ("pg_scale", "PgBouncer, polling refused @100", 0, "refused, 100 processes, PgBouncer polling"),
    (
        "hook",
        "PreToolUse, deny (--notebook) p95 ms",
        25,
        "hook PreToolUse p95, ms, process included",
    ),
    ("hook", "PreToolUse, deny (--notebook) p95 / python -c pass", 2.5, "  / python -c pass, p95"),
    ("hook", "PreToolUse, deny (--db) p95 / python -c pass", 2.5, "  denying, named by --db"),
    ("hook", "PreToolUse, allow p95 / python -c pass", 2.5, "  allowing (default mode)"),
    ("hook", "PreToolUse, heartbeat p95 / python -c pass", 2.5, "  writing its heartbeat"),
    (
        "hook",
        "PreToolUse, heartbeat, kernel open p95 / python -c pass",
        2.5,
        "  the same, the kernel's connection open",
    ),
    ("hook", "SessionStart p95 ms", 80, "hook SessionStart p95, ms (the context block)"),
    ("cell_links", "no step in progress, us", 100, "a cell's cost, no step in progress, us"),
    ("cell_links", "a step in progress / its write", 1.0, "  with one / the link's write it skips"),
    ("checks", "checks, none due, us", 100, "a cell's cost, checks and none due, us"),
    ("checks", "a check due, ours us", 1000, "  one due: ours beyond the check's own, us"),
    ("comments", "comment / update_plan", 1.0, "a comment (64 held) / update_plan, 32 steps"),
    ("team_plans", "snapshot postgresql / sqlite", 2.0, "server snapshot, PostgreSQL / plan file"),
    ("team_plans", "card postgresql / sqlite", 3.0, "panel's card route, PostgreSQL / plan file"),
    ("team_plans", "stream wake postgresql / sqlite", 1.5, "commit to stream, PostgreSQL / file"),
    ("team_plans", "rename while writing / idle, postgresql", 3.0, "shared rename, kernel writing"),
]


def main() -> None:
    started = time.perf_counter()
    figures = {}
    for name in BENCHMARKS:
        print()
        figures[name] = import_module(name).main() or {}
    peers = figures["update_plan"]
    print(f"\ntargets ({time.perf_counter() - started:.0f} s in all)")
    for module, key, limit, label in TARGETS:
        value = figures[module].get(key)
        verdict = "not measured" if value is None else "met" if value <= limit else "NOT met"
        shown = "-" if value is None else f"{value:.2f}"
        print(f"  {label:45} {shown:>8} (target {limit}): {verdict}")
    for size in (1, 12, 32):
        ours = peers.get(f"jupyter-plans update_plan @{size}")
        for peer in ("langgraph SqliteSaver.put", "eventsourcing insert_events"):
            theirs = peers.get(f"{peer} @{size}")
            if theirs is not None and ours is not None:
                faster = "faster" if ours < theirs else "NOT faster"
                versus = f"update_plan against {peer}, {size} steps"
                print(f"  {versus:58} {ours / theirs:6.2f}x: {faster}")


if __name__ == "__main__":
    main()
