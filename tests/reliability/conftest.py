"""The reliability suite: each test records its figure, and the run prints them at the end.

Its files are on the disk where `make test` keeps the other lanes' files in memory
(JUPYTER_PLANS_DISK_TMPDIR, set by the Makefile): the kill -9 and lost-write runs race writers
whose commits take as long as on a person's disk.
"""

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.engines import WITH_PGBOUNCER
from tests.helpers.figures import record
from tests.jupyter_process import plans_server

DISK = os.environ.get("JUPYTER_PLANS_DISK_TMPDIR")


@pytest.fixture
def figure(request):
    """Call with one line; it is printed, with the test's name, after the run
    (tests/helpers/figures.py)."""
    return lambda line: record(request.node, line)


FAILED = pytest.StashKey[set]()  # the tests' files and the tests that failed (session stash)
KEPT = pytest.StashKey[Path]()  # a test's folder on the disk, in its item's stash


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's folder on the disk is kept, and its report says where."""
    report = yield
    if report.failed:
        item.session.stash.setdefault(FAILED, set()).update((item.path, item.nodeid))
        if KEPT in item.stash:
            report.sections.append(("kept", f"the test's files are kept in {item.stash[KEPT]}"))
    return report


@contextmanager
def _on_disk(prefix: str, node, key):
    """A new folder on the disk, removed afterwards unless NODE's KEY (its test, or its file)
    is among the failed."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=DISK))
    yield folder
    if key not in node.session.stash.get(FAILED, set()):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tmp_path(request, tmp_path):
    """pytest's tmp_path, on the disk where JUPYTER_PLANS_DISK_TMPDIR names it."""
    if DISK is None:
        yield tmp_path
        return
    with _on_disk("jupyter-plans-reliability-", request.node, request.node.nodeid) as folder:
        request.node.stash[KEPT] = folder
        yield folder


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    """The suite's Jupyter server (tests/conftest.py), its root on the disk likewise."""
    if DISK is None:
        with plans_server(tmp_path_factory.mktemp("root")) as running:
            yield running
        return
    with _on_disk("jupyter-plans-reliability-server-", request.node, request.node.path) as folder:
        (root := folder / "root").mkdir()
        with plans_server(root) as running:
            yield running


@pytest.fixture(params=WITH_PGBOUNCER)
def engine(request):
    """The load test runs on each engine, and through PgBouncer in transaction pooling."""
    return request.param
