"""The reliability suite: each test records its figure, and the run prints them at the end."""

import pytest

from tests.engines import WITH_PGBOUNCER

_FIGURES: list[str] = []


@pytest.fixture
def figure(request):
    """Call with one line; it is printed, with the test's name, after the run."""

    def record(line: str) -> None:
        _FIGURES.append(f"{request.node.name}: {line}")

    return record


def pytest_terminal_summary(terminalreporter):
    if _FIGURES:
        terminalreporter.section("reliability figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture(params=WITH_PGBOUNCER)
def engine(request):
    """The load test runs on each engine, and through PgBouncer in transaction pooling."""
    return request.param
