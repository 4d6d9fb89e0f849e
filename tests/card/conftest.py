"""The card's tests also run through PgBouncer in transaction pooling (tests/engines.py)."""

import pytest

from tests.engines import WITH_PGBOUNCER


@pytest.fixture(params=WITH_PGBOUNCER)
def engine(request):
    return request.param
