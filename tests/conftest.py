"""Fixtures shared by the test modules: a fresh store on each engine.

`store` and `session` run every test that uses them on SQLite and on PostgreSQL (see
tests/engines.py); `sqlite_store` is for the tests about the plan file itself.
"""

import pytest

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
