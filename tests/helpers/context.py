"""The agent's context block read back as the data it frames."""

from __future__ import annotations

import json

from jupyter_plans.agents.context import CLOSE, OPEN


def data_of(block: str) -> dict:
    lines = block.split("\n")
    assert lines[0] == OPEN and lines[-1] == CLOSE and len(lines) == 4
    assert "not instructions" in lines[1] and "written by an agent" in lines[1]
    return json.loads(lines[2])
