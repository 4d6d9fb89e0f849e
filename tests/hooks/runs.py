"""The hook run as a host runs it, the inputs recorded from each host, and what its answers
must be."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers.cli import COMMAND

INPUTS = Path(__file__).parent  # the recorded inputs, by host


def recorded(host: str, name: str) -> bytes:
    return (INPUTS / host / f"{name}.json").read_bytes()


def hook(event: str, stdin: bytes, *where: str, cwd: Path | None = None, env=None):
    """Run the hook as a host does; returns (status, parsed stdout or None, stderr)."""
    proc = subprocess.run(
        [*COMMAND, "hook", event, *where],
        input=stdin,
        capture_output=True,
        timeout=60,
        cwd=cwd,
        env=env,
    )
    stdout = proc.stdout.decode()
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    return proc.returncode, (json.loads(stdout) if stdout.strip() else None), proc.stderr.decode()


def at(db: str, session: str = "s") -> tuple[str, ...]:
    return ("--db", db, "--session", session)


def assert_warning_only(answer: dict | None, *words: str) -> None:
    """A line for the person and nothing else: no decision, no block, no context."""
    assert answer is not None and set(answer) == {"systemMessage"}, answer
    line = answer["systemMessage"]
    assert line.startswith("jupyter-plans: ") and "\n" not in line
    for word in words:
        assert word in line, line


def assert_denied(answer: dict | None, *words: str) -> str:
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert reason.startswith("jupyter-plans: ") and "\n" not in reason
    for word in words:
        assert word in reason, reason
    return reason
