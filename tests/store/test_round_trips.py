"""On PostgreSQL a write waits for the server three times: BEGIN with the row lock, the
writes together, the commit. Counted in libpq's own trace of the protocol, where each wait is a
Sync (or a simple Query) the client sends; a server a few milliseconds away makes each one felt.
"""

import tempfile

import pytest

from jupyter_plans import PlanStore
from tests.engines import postgres_schema

pytestmark = pytest.mark.postgres

STEP = {"id": "a", "description": "Load the data"}


def _waits(store, operation) -> int:
    """How many times `operation` waited for the server on this thread's connection."""
    connection = store.connections.cursor().connection
    with tempfile.TemporaryFile() as trace:
        connection.pgconn.trace(trace.fileno())
        try:
            operation()
        finally:
            connection.pgconn.untrace()
        trace.seek(0)
        lines = trace.read().decode(errors="replace").splitlines()
    sent = [line.split("\t") for line in lines if "\tF\t" in line]
    return sum(1 for fields in sent if len(fields) > 3 and fields[3] in ("Sync", "Query"))


@pytest.mark.parametrize("call_id", [None, "call_1"])
def test_a_tool_call_waits_for_the_server_three_times(call_id):
    with postgres_schema() as url, PlanStore(url) as store:
        session = store.session("s")
        session.call_tool("update_plan", {"expected_revision": 0, "steps": []})

        def call():
            args = {"expected_revision": 1, "steps": [STEP]}
            result = session.call_tool("update_plan", args, call_id=call_id)
            assert not result.is_error, result.content

        assert _waits(store, call) == 3
        assert session.snapshot().plan.steps[0].description == "Load the data"
        assert session.snapshot().cursor == 2

        # A refused call is recorded the same way, and its refusal is what the agent sees.
        refused = []
        stale = {"expected_revision": 0, "steps": [STEP]}
        assert _waits(store, lambda: refused.append(session.call_tool("update_plan", stale))) == 3
        assert refused[0].is_error and "expected_revision" in refused[0].content
        assert [event.kind for event in session.events(after=2)] == ["tool_finished"]
