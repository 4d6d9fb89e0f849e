"""The threads the server extension's store work runs on, off the server's event loop."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

# Each thread holds one connection per plan file it touched: a few threads, not one a request.
# Pages of a long history go to one thread of their own, so that however many clients replay
# one, a snapshot or a decision never queues behind their pages; one, because decoding a page
# holds the GIL, and every thread that does so slows every other answer (measured: five
# replays of 40,000 events put another notebook's snapshot at p95 0.41 s over four shared
# threads, 0.29 s with the pages on one).
_WORKERS = ThreadPoolExecutor(4, thread_name_prefix="jupyter-plans-server")
_PAGES = ThreadPoolExecutor(1, thread_name_prefix="jupyter-plans-pages")


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """Run the store's `work` on the plan threads, so the event loop never waits for it: a long
    history read by one client must not stall every notebook of every user of the server."""
    return await asyncio.get_running_loop().run_in_executor(
        _WORKERS, functools.partial(work, *args)
    )


async def off_loop_page(work: Callable[..., T], *args: Any) -> T:
    """Run `work`, which reads a page of events, on the page thread."""
    return await asyncio.get_running_loop().run_in_executor(_PAGES, functools.partial(work, *args))
