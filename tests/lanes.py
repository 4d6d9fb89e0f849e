"""The suite's lanes: what each test needs, and the one lane it runs in.

A test's markers say what it needs beyond this virtual environment (they are registered in
pyproject.toml):

  browser      Debian's Chromium and JupyterLab (`make chromium`)
  real_agents  the npm ACP adapters and the Claude Code and Codex CLIs (`make agents`)
  postgres     a PostgreSQL server and PgBouncer (`scripts/with-postgres.sh`)
  jupyter_ai   the second environment, with Jupyter AI 3.2 (`make jupyter-ai-env`)
  slow         the stress and reliability suite

`mark` gives them by where a test lives, the parameters it runs with and the fixtures it takes
(explicit marks are kept), so that a new test lands in its lane without a mark of its own. The
helpers that reach those things (tests/engines.py, tests/e2e/conftest.py, tests/agents/acp/
real.py, tests/hooks/real_clis.py, tests/e2e/jupyter_ai.py) call `needs` first: a test that
reaches one without its marker fails at once, in every lane, saying which marker it lacks.

Each test runs in exactly one lane, the first of LANES whose marker it has, else `fast`; so
the lanes together are the whole suite. `pytest --lane NAME` runs one (Makefile: test-NAME).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

FAST = "fast"
# The lane markers, the first a test has being its lane: a lane has what its tests need (the
# Jupyter AI chat's browser journey runs a real agent; the reliability suite runs on PostgreSQL).
LANES = ("jupyter_ai", "browser", "real_agents", "slow", "postgres")
# Where a test lives (a glob of its path from the repository's root) -> its marker.
BY_PATH = [
    ("tests/e2e/*", "browser"),
    ("tests/*/test_jupyter_ai*.py", "jupyter_ai"),
    ("tests/reliability/*", "slow"),
    ("tests/*/test_*_real.py", "real_agents"),
    ("tests/agents/acp/test_conformance.py", "real_agents"),
    ("tests/*/test_pg_*.py", "postgres"),
    ("tests/*/test_pgbouncer*.py", "postgres"),
]
# A fixture a test takes -> its marker.
BY_FIXTURE = {"lab": "browser", "page": "browser"}
# The parameter `engine` (tests/engines.py) -> its marker.
BY_ENGINE = {"postgresql": "postgres", "pgbouncer": "postgres"}
ROOT = Path(__file__).resolve().parents[1]

_running: list[pytest.Item] = []  # the test now running in this process


def markers(item: pytest.Item) -> set[str]:
    """The lane markers ITEM has or is given here."""
    found = {m.name for m in item.iter_markers() if m.name in LANES}
    try:
        where = item.path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # outside the repository (nbval's copies of notebooks/ are inside it)
        where = ""
    found |= {marker for glob, marker in BY_PATH if fnmatch.fnmatch(where, glob)}
    found |= {BY_FIXTURE[name] for name in getattr(item, "fixturenames", ()) if name in BY_FIXTURE}
    callspec = getattr(item, "callspec", None)
    engine = callspec.params.get("engine") if callspec is not None else None
    if engine in BY_ENGINE:
        found.add(BY_ENGINE[engine])
    return found


def lane_of(found: set[str]) -> str:
    return next((lane for lane in LANES if lane in found), FAST)


def needs(marker: str, what: str) -> None:
    """Fail the running test unless it is marked MARKER (it is about to reach WHAT)."""
    if not _running or _running[-1].get_closest_marker(marker) is not None:
        return
    pytest.fail(
        f"{_running[-1].nodeid} needs {what} but is not marked {marker}: mark it "
        f"(@pytest.mark.{marker}) or move it where tests/lanes.py marks it, so that it leaves "
        "the fast lane",
        pytrace=False,
    )


def pytest_addoption(parser):
    choices = ", ".join([FAST, *LANES])
    parser.addoption(
        "--lane",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only the tests of lane NAME ({choices}); repeat for several",
    )


def pytest_collection_modifyitems(config, items):
    wanted = config.getoption("lane")
    unknown = sorted(set(wanted) - {FAST, *LANES})
    if unknown:
        raise pytest.UsageError(f"--lane: no lane {unknown[0]!r} ({FAST}, {', '.join(LANES)})")
    kept, left = [], []
    for item in items:
        found = markers(item)
        for marker in sorted(found):
            item.add_marker(marker)
        lane = lane_of(found)
        item.stash[LANE] = lane
        (kept if not wanted or lane in wanted else left).append(item)
    config.stash[_LEFT] = len(left)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_report_collectionfinish(config, items):
    counts = {lane: 0 for lane in [FAST, *reversed(LANES)]}
    for item in items:
        counts[item.stash.get(LANE, FAST)] += 1
    return "lanes: " + ", ".join(f"{lane} {n}" for lane, n in counts.items())


LANE = pytest.StashKey[str]()
_LEFT = pytest.StashKey[int]()  # the tests collected here that are in other lanes


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist: a worker's tests left to other lanes, counted where the run ends."""
    left = getattr(node, "workeroutput", {}).get("lane_left", 0)
    node.config.stash[_LEFT] = node.config.stash.get(_LEFT, 0) + left


def pytest_sessionfinish(session, exitstatus):
    """A lane that selects nothing is never pytest's exit 5: where the paths given hold only
    tests of other lanes it says so and passes; where they hold no test at all, it fails."""
    config = session.config
    if hasattr(config, "workeroutput"):  # a pytest-xdist worker
        config.workeroutput["lane_left"] = config.stash.get(_LEFT, 0)
    wanted = config.getoption("lane")
    if not wanted or exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
        return
    left = config.stash.get(_LEFT, 0)
    if left:
        line = f"no test of lane {', '.join(wanted)} here: the {left} here are in other lanes"
        session.exitstatus = pytest.ExitCode.OK
    else:
        line = f"lane {', '.join(wanted)}: no test collected"
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
