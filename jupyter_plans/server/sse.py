"""Server-Sent Events of a session's events: resumable by Last-Event-ID, a long backlog replayed
a page at a time off the event loop, kept alive, and ended as soon as the client goes away."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pydantic_core
from tornado import web
from tornado.iostream import StreamClosedError

from ..errors import PlanStoreError
from ..store.wake import Wake
from .threads import off_loop, off_loop_page

if TYPE_CHECKING:
    from tornado.web import RequestHandler

    from ..session import PlanSession

# The route's session and notebook name, read again while there is no plan file yet (it may
# appear); PlansHandler.session.
FindSession = Callable[[], "tuple[PlanSession | None, str]"]

# How often the stream looks for changes made by any process when nothing sends notice of them
# (a network file system); a local plan file's or PostgreSQL's notices wake it at once.
POLL_SECONDS = 0.1
# How often it looks besides where notices do come (a notice wakes it at once).
NOTIFIED_POLL_SECONDS = 2.0
KEEP_ALIVE_SECONDS = 15.0
MAX_PAGE = 1000  # events in one answer of the events route, and in one page of a replay
# A stream's first page reads this many (its first answer comes soon however large the events);
# the next ones read as many as fill a page at their size (_page).
FIRST_PAGE = 100
# What one stream holds unsent at most: a page of a replay is cut at this many characters,
# and written a chunk at a time, each once the client took the one before.
MAX_PAGE_CHARS = 1 << 18
CHUNK_BYTES = 1 << 16
# A client that takes no chunk for this long is dropped (its stream ends; it may come back
# with Last-Event-ID), so a reader that stopped reading holds nothing for long.
SLOW_READER_SECONDS = 30.0


def event_json(event: Any) -> dict:
    """An event as the routes send it: {seq, kind, data, at}."""
    return {"seq": event.seq, "kind": event.kind, "data": event.data, "at": event.at}


def _page(session: PlanSession, after: int, limit: int) -> tuple[str, int, bool, int, int]:
    """(the stream's text of the next page of at most `limit` events after `after`, the seq
    of its last event, whether more follow, the store's generation, how many events the next
    page reads), read and written on a plan thread. Each event read is decoded, so a page cut
    at MAX_PAGE_CHARS makes the next one read only as many as it held, and one that held all
    it read makes the next read as many as would fill a page at the size of these (at most
    MAX_PAGE).
    """
    generation = session.store.generation
    page, more = session.event_page(after, limit)
    parts, size, last, following = [], 0, after, limit
    for e in page:
        if parts and size >= MAX_PAGE_CHARS:
            more, following = True, len(parts)  # the rest of this page comes as the next one
            break
        data = pydantic_core.to_json(event_json(e)).decode()
        parts.append(f"id: {e.seq}\nevent: plan\ndata: {data}\n\n")
        size += len(parts[-1])
        last = e.seq
    else:
        if parts and len(parts) == limit:
            following = min(MAX_PAGE, max(limit, -(-limit * MAX_PAGE_CHARS // size)))
    return "".join(parts), last, more, generation, following


async def stream_events(
    handler: RequestHandler, find: FindSession, session: PlanSession | None, after: int
) -> None:
    """The session's events after `after` as a stream, followed as they come (`find` gives
    the session once there is none yet), until the client goes away."""
    cursor, token, quiet_since = after, None, time.monotonic()
    generation, wake, limit = None, None, FIRST_PAGE
    try:
        await _begin(handler)
        while not handler.request.connection.stream.closed():
            if session is None:  # no plan file yet: it may appear
                session, _ = await off_loop(find)
            if wake is None and session is not None:
                wake = _wake(session)
            more = False
            if session is not None:
                current = await off_loop(session.store.change_token)
                if current != token:
                    text, last, more, now, following = await off_loop_page(
                        _page, session, cursor, limit
                    )
                    if generation is not None and now != generation:
                        # Another plan file is at the path now: its history starts again.
                        text, last, more, now, following = await off_loop_page(
                            _page, session, 0, limit
                        )
                    generation, limit = now, following
                    if text:
                        await _send(handler, text)
                        cursor, quiet_since = last, time.monotonic()
                    if not more:  # caught up with what the token stands for
                        token = current
            if time.monotonic() - quiet_since > KEEP_ALIVE_SECONDS:
                await _send(handler, ": keep-alive\n\n")
                quiet_since = time.monotonic()
            if not more:
                await _pause(wake)
    except StreamClosedError:
        return  # the client went away
    except PlanStoreError:
        return  # a file that is no plan file took the plan's place; a new request is refused
    finally:
        if wake is not None:
            wake.close()


async def stream_sessions(handler: RequestHandler, find: FindSession, read: Any) -> None:
    """The file's sessions and its current one, `read()` again (off the loop) after each change
    any process commits, sent as `event: sessions` whenever they differ from the last sent:
    the Plan panel follows `%plan new` and another process's new session with it."""
    sent, token, quiet_since, wake = None, None, time.monotonic(), None
    try:
        await _begin(handler)
        session = None
        while not handler.request.connection.stream.closed():
            if session is None:  # no plan file yet: it may appear (the store follows it then)
                session, _ = await off_loop(find)
            current = None if session is None else await off_loop(session.store.change_token)
            if current is None or current != token:
                data, token = await off_loop(read), current
                text = pydantic_core.to_json(data).decode()
                if text != sent:
                    await _send(handler, f"event: sessions\ndata: {text}\n\n")
                    sent, quiet_since = text, time.monotonic()
            if wake is None and session is not None:
                wake = _wake(session)
            if time.monotonic() - quiet_since > KEEP_ALIVE_SECONDS:
                await _send(handler, ": keep-alive\n\n")
                quiet_since = time.monotonic()
            await _pause(wake)
    except (StreamClosedError, PlanStoreError, web.HTTPError):
        return  # the client went away, or the notebook and its plan file did
    finally:
        if wake is not None:
            wake.close()


async def _begin(handler: RequestHandler) -> None:
    handler.set_header("Content-Type", "text/event-stream")
    handler.set_header("Cache-Control", "no-cache")
    handler.set_header("X-Accel-Buffering", "no")
    await _send(handler, "retry: 1000\n\n")


async def _pause(wake: Wake | None) -> None:
    """Until the store's notices tell of a change, or the poll's interval has passed."""
    if wake is None:
        await asyncio.sleep(POLL_SECONDS)
    else:
        await wake.wait()


def _wake(session: PlanSession) -> Wake:
    """Woken when the file system or PostgreSQL tells of a change to the session's store;
    polled every POLL_SECONDS where no notice comes."""
    return Wake(session.store, untold=POLL_SECONDS, told=NOTIFIED_POLL_SECONDS)


async def _send(handler: RequestHandler, text: str) -> None:
    """Write `text` a chunk at a time, each once the client took the one before; a client
    that takes none for SLOW_READER_SECONDS is dropped (StreamClosedError)."""
    data = text.encode()
    for start in range(0, len(data), CHUNK_BYTES):
        handler.write(data[start : start + CHUNK_BYTES])
        try:
            await asyncio.wait_for(handler.flush(), SLOW_READER_SECONDS)
        except TimeoutError:
            handler.request.connection.stream.close()
            raise StreamClosedError() from None
