import pytest

from .harness import Person, bridge_sdk  # noqa: F401 - the fixture, for every test here


@pytest.fixture
def person(tmp_path):
    """The person's own view of the plan file the bridge writes (see harness.Person)."""
    viewer = Person(tmp_path / "a.plans.sqlite")
    yield viewer
    viewer.close()
