"""The agent, the bridge's child, in a process group of its own: when the bridge ends (its client
closed, the agent ended, SIGTERM or SIGINT), the agent and everything it started end with it,
and a process the agent left holding its stdout cannot keep the bridge waiting."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

GRACE_SECONDS = 2.0  # for the agent to end on its own once its stdin closes, then after SIGTERM


@contextlib.asynccontextmanager
async def agent_process(command: list[str], limit: int) -> AsyncIterator[tuple[Any, Any, Any]]:
    """(its stdout, its stdin, the process) of AGENT, started as the leader of a new process
    group; OSError when the command cannot be run."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=None,
        env=dict(os.environ),
        limit=limit,
        start_new_session=hasattr(os, "killpg"),  # POSIX: its own session and process group
    )
    try:
        yield process.stdout, process.stdin, process
    finally:
        await stop(process)


async def stop(process: Any) -> None:
    """End the agent as a client would (its stdin closed), then its whole process group: the
    agent if it has not ended, and what it started (a CLI, a shell, a server) that outlived it,
    first with SIGTERM, then SIGKILL. Then wait for the process, but never for a pipe that a
    process out of reach still holds."""
    with contextlib.suppress(Exception):
        process.stdin.close()
    group = process.pid if hasattr(os, "killpg") else None
    await _gone(lambda: process.returncode is not None)
    _signal(process, group, signal.SIGTERM)  # the agent, if it goes on, and what it left
    if not await _gone(lambda: process.returncode is not None and not _alive(group)):
        _signal(process, group, getattr(signal, "SIGKILL", signal.SIGTERM))
    try:
        await asyncio.wait_for(process.wait(), GRACE_SECONDS)
    except TimeoutError:  # a pipe still held open by a process of another group
        transport = getattr(process, "_transport", None)
        if transport is not None:
            transport.close()


def _signal(process: Any, group: int | None, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group is not None:
            os.killpg(group, signum)
        elif process.returncode is None:
            process.send_signal(signum)


def _alive(group: int | None) -> bool:
    """Whether any process of the agent's group is still there (zombies count until reaped)."""
    if group is None:
        return False
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _gone(done: Any) -> bool:
    deadline = time.monotonic() + GRACE_SECONDS
    while not done():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
