"""Fixtures shared by the test modules: a fresh store on each engine.

`store` and `session` run every test that uses them on SQLite and on PostgreSQL (see
tests/engines.py); `sqlite_store` is for the tests about the plan file itself.
"""

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_plans import PlanStore
from tests.engines import ENGINES, database
from tests.helpers.figures import pytest_terminal_summary  # noqa: F401 - the run's figures
from tests.jupyter_process import plans_server
from tests.lanes import (  # noqa: F401 - the lanes' hooks (see tests/lanes.py)
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_report_collectionfinish,
    pytest_runtest_protocol,
    pytest_sessionfinish,
    pytest_testnodedown,
)


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


@pytest.fixture
def db(engine, tmp_path):
    """Where a fresh store lives: a plan file's path, or a PostgreSQL URL."""
    with database(engine, tmp_path) as location:
        yield location


@pytest.fixture
def store(db):
    with PlanStore(db) as plan_store:
        yield plan_store


@pytest.fixture
def session(store):
    return store.session("s")


@pytest.fixture
def sqlite_store(tmp_path):
    with PlanStore(tmp_path / "a.plans.sqlite") as plan_store:
        yield plan_store


@pytest.fixture
def ip(tmp_path, monkeypatch):
    """An IPython shell working in tmp_path, with no notebook known and no card shown; the
    extension is unloaded and its settings cleared afterwards."""
    shell = InteractiveShell.instance()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    for name in ("JUPYTER_PLANS_DATABASE", "JUPYTER_PLANS_SESSION_ID", "JUPYTER_PLANS_SERVER_ROOT"):
        monkeypatch.delenv(name, raising=False)
    for name in ("__session__", "__vsc_ipynb_file__"):
        shell.user_ns.pop(name, None)
    shell.config.PlanMagics.auto_display = False
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_plans")
    shell.config.PlanMagics.clear()
    shell.config.OpenAIAgent.clear()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real `jupyter server` with the plans extension, serving a fresh root, per module."""
    with plans_server(tmp_path_factory.mktemp("root")) as running:
        yield running


@pytest.fixture
def kernel(tmp_path):
    """A real IPython kernel working in tmp_path; its client."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)
