"""Fixtures shared by the test modules: a fresh store on each engine.

`store` and `session` run every test that uses them on SQLite and on PostgreSQL (see
tests/engines.py); `sqlite_store` is for the tests about the plan file itself.
"""

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_plans import PlanStore

from .engines import ENGINES, database


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
    for name in ("__session__", "__vsc_ipynb_file__"):
        shell.user_ns.pop(name, None)
    shell.config.PlanMagics.auto_display = False
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_plans")
    shell.config.PlanMagics.clear()
    shell.config.OpenAIAgent.clear()
