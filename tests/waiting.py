"""Waiting on a condition rather than for a fixed time: a test goes on as soon as what it waits
for has happened, and fails, naming it, when it has not happened by the deadline.

A fixed sleep belongs in a test only where time passing is the point (a timeout that must run
out, writers idle past an interval on purpose); each says so beside it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
TIMEOUT = 30.0  # generous: a loaded machine is slow, and a test that passes does not wait it
EVERY = 0.02


def wait_until(
    check: Callable[[], T], what: str, timeout: float = TIMEOUT, every: float = EVERY
) -> T:
    """Call CHECK until it gives something true, and give that; fail saying WHAT was awaited
    when TIMEOUT seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


async def until(
    check: Callable[[], Any],
    what: str,
    timeout: float = TIMEOUT,
    every: float = EVERY,
    *,
    in_thread: bool = False,
) -> Any:
    """wait_until in a coroutine: the event loop runs on while it waits; IN_THREAD runs CHECK
    in a thread (one that reads a store, which may wait for a lock)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = await asyncio.to_thread(check) if in_thread else check()
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(every)


def next_millisecond() -> None:
    """Return once the wall clock's millisecond has changed: what is made after this is later
    than what was recorded before it (a rename's move keeps its time in ms, so a notebook made
    in the same millisecond could be told from one made before it by nothing)."""
    start = int(time.time() * 1000)
    wait_until(lambda: int(time.time() * 1000) > start, "the next millisecond", every=0.0005)
