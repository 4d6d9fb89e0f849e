"""The hook run by another user (DESIGN section 9, read-only): a plan file its owner made 0444,
in a folder both may write, is read by the other user's hook, which answers from it and leaves
no side file behind; so the owner, once the file is writable again, writes as before. A -wal
and a -shm of the other user, with the file's 0444 mode, kept the owner from ever writing.

Two real users: the suite runs as root, and the commands run as user nobody (the owner) and as
uid 65533 (the other), given only the capability to read and search what root can, so that
they can run this Python, never to write where the modes forbid it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
OWNER, OTHER = 65534, 65533
WRITE = {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": "x"}}


def _as(uid: int) -> list[str]:
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=+dac_read_search",
        "--ambient-caps=+dac_read_search",
    ]


@pytest.fixture
def users():
    """The command prefixes that run a process as the owner and as the other user."""
    reason = None
    if os.geteuid() != 0:
        reason = "these tests switch between two users, which needs root"
    elif shutil.which("setpriv") is None:
        reason = "these tests need setpriv (util-linux) to run as two users"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"the tests of another user's hook must run in CI: {reason}")
        pytest.skip(reason)
    return _as(OWNER), _as(OTHER)


def _run(prefix: list[str], home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, *COMMAND, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"},
    )


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_uid, stat.S_IMODE(p.stat().st_mode)) for p in folder.iterdir()}


def test_another_users_hook_on_a_0444_plan_leaves_nothing_that_blocks_its_owner(users, tmp_path):
    owner, other = users
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)  # a folder both may write, as /tmp is
    tmp_path.chmod(0o755)
    plan = folder / "nb.plans.sqlite"
    made = _run(owner, folder, "plan", "--db", str(plan), "--session", "s", "on")
    assert made.returncode == 0, made.stderr
    assert _listing(folder) == {plan.name: (OWNER, 0o644)}
    made = subprocess.run([*owner, "chmod", "0444", str(plan)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    for _ in range(3):
        hooked = _run(
            other,
            folder,
            "hook",
            "PreToolUse",
            "--db",
            str(plan),
            "--session",
            "s",
            stdin=json.dumps(WRITE),
        )
        assert hooked.returncode == 0 and "Traceback" not in hooked.stderr, hooked.stderr
        answer = json.loads(hooked.stdout)["hookSpecificOutput"]
        assert (
            answer["permissionDecision"] == "deny"
            and "plan mode" in (answer["permissionDecisionReason"])
        )
    assert _listing(folder) == {plan.name: (OWNER, 0o444)}, "no side file of the other user"
    subprocess.run([*owner, "chmod", "0644", str(plan)], check=True)
    wrote = _run(owner, folder, "plan", "--db", str(plan), "--session", "s", "off")
    assert wrote.returncode == 0, wrote.stderr
    snapshot = _run(owner, folder, "snapshot", "--db", str(plan), "--session", "s")
    assert json.loads(snapshot.stdout)["mode"] == "default"
