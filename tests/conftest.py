"""Fixtures shared by the test modules: a real plan file in a temporary folder."""

import pytest

from jupyter_plans import PlanStore


@pytest.fixture
def store(tmp_path):
    with PlanStore(tmp_path / "a.plans.sqlite") as plan_store:
        yield plan_store


@pytest.fixture
def session(store):
    return store.session("s")
