"""Server-Sent Events of a session's events: resumable by Last-Event-ID, kept alive, and ended
as soon as the client goes away."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from tornado.iostream import StreamClosedError

from ..errors import PlanStoreError

if TYPE_CHECKING:
    from ..session import PlanSession
    from .handlers import PlansHandler

POLL_SECONDS = 0.1  # how often the stream looks for changes made by any process
KEEP_ALIVE_SECONDS = 15.0


async def stream_events(handler: PlansHandler, session: PlanSession | None, after: int) -> None:
    handler.set_header("Content-Type", "text/event-stream")
    handler.set_header("Cache-Control", "no-cache")
    handler.set_header("X-Accel-Buffering", "no")
    cursor, token, quiet_since = after, None, time.monotonic()
    generation = None
    try:
        await _send(handler, "retry: 1000\n\n")
        while not handler.request.connection.stream.closed():
            if session is None:  # no plan file yet: it may appear
                session, _ = handler.session()
            if session is not None:
                current = session.store.change_token()
                if current != token:
                    token = current
                    events = session.events(after=cursor)
                    if generation is not None and generation != session.store.generation:
                        # Another plan file is at the path now: its history starts again.
                        cursor, events = 0, session.events(after=0)
                    generation = session.store.generation
                    for event in events:
                        data = event.model_dump_json()
                        await _send(handler, f"id: {event.seq}\nevent: plan\ndata: {data}\n\n")
                        cursor, quiet_since = event.seq, time.monotonic()
            if time.monotonic() - quiet_since > KEEP_ALIVE_SECONDS:
                await _send(handler, ": keep-alive\n\n")
                quiet_since = time.monotonic()
            await asyncio.sleep(POLL_SECONDS)
    except StreamClosedError:
        return  # the client went away
    except PlanStoreError:
        return  # a file that is no plan file took the plan's place; a new request is refused


async def _send(handler: PlansHandler, text: str) -> None:
    handler.write(text)
    await handler.flush()
