"""The reliability suite: each test records its figure, and the run prints them at the end.

Its files are on the disk where `make test` keeps the other lanes' files in memory
(JUPYTER_PLANS_DISK_TMPDIR, set by the Makefile): the kill -9 and lost-write runs race writers
whose commits take as long as on a person's disk.
"""

import os
import tempfile
from pathlib import Path

import pytest

from tests.engines import WITH_PGBOUNCER
from tests.jupyter_process import plans_server

FIGURE = "reliability figure"  # the key of a figure among a test's user_properties
DISK = os.environ.get("JUPYTER_PLANS_DISK_TMPDIR")


@pytest.fixture
def figure(request):
    """Call with one line; it is printed, with the test's name, after the run (also from
    pytest-xdist's workers: it travels with the test's report)."""

    def record(line: str) -> None:
        request.node.user_properties.append((FIGURE, f"{request.node.name}: {line}"))

    return record


def pytest_terminal_summary(terminalreporter):
    lines = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for key, value in getattr(report, "user_properties", ())
        if key == FIGURE
    ]
    if lines:
        terminalreporter.section("reliability figures")
        for line in lines:
            terminalreporter.write_line(line)


def _on_disk(prefix: str):
    return tempfile.TemporaryDirectory(prefix=prefix, dir=DISK, ignore_cleanup_errors=True)


@pytest.fixture
def tmp_path(tmp_path):
    """pytest's tmp_path, on the disk where JUPYTER_PLANS_DISK_TMPDIR names it."""
    if DISK is None:
        yield tmp_path
        return
    with _on_disk("jupyter-plans-reliability-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The suite's Jupyter server (tests/conftest.py), its root on the disk likewise."""
    if DISK is None:
        with plans_server(tmp_path_factory.mktemp("root")) as running:
            yield running
        return
    with _on_disk("jupyter-plans-reliability-server-") as folder:
        (root := Path(folder) / "root").mkdir()
        with plans_server(root) as running:
            yield running


@pytest.fixture(params=WITH_PGBOUNCER)
def engine(request):
    """The load test runs on each engine, and through PgBouncer in transaction pooling."""
    return request.param
