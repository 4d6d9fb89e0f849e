"""The plan session as the bridge's helpers reach it: every read and write off the event loop, on
one store thread in order (a plan file another process holds locked never holds up the relay),
and each write with a call id of its own, after the agent's plans sent before it (which its
`PlanRecorder` records off the relay, on a thread of their own, the latest winning).

This is the store's port: the guard, the proposals, the modes and the watch take the methods
they need from it (see `ports`), never the bridge.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ...errors import CallIdTaken, DecisionRefused
from .ports import PlanStore
from .prompts import opening_blocks
from .record import MIRROR_NAME, PROPOSAL_NAME
from .wire import warn

if TYPE_CHECKING:
    from ...session import PlanSession

FLUSH_SECONDS = 2.0  # how long the bridge's end waits for the latest plan to be recorded
# Plans waiting to be recorded; past this many, the oldest are left out (the latest wins).
MAX_BACKLOG = 16


class StoreThread:
    """Runs the session's calls, one at a time and in order, off the event loop."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jupyter-plans-acp")

    async def __call__(self, function, *args):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(function, *args))

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)


class PlanRecorder:
    """The agent's plans as the session's revisions. Each update, mirrored at once in order by
    the caller (its ids depend on the ones before), is recorded in order, waiting for nothing
    the relay does; when the store falls MAX_BACKLOG plans behind (a flood of updates, a plan
    file another process holds locked), the oldest waiting are left out and the latest wins."""

    def __init__(self, store: PlanStore) -> None:
        self.store = store
        self.thread = StoreThread()
        self._due: deque[tuple[Any, list, list]] = deque()
        self._task: asyncio.Task | None = None
        self.skipped = 0  # plans left out because newer ones came faster than the store took them

    def record(self, session_id: Any, steps: list, adaptations: list) -> None:
        """Record the steps of a plan update and the adaptations made (see `mirror`)."""
        self._due.append((session_id, steps, adaptations))
        while len(self._due) > MAX_BACKLOG:  # the store is behind: the oldest wait no longer
            self._due.popleft()
            self.skipped += 1
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self._due:
            session_id, steps, adaptations = self._due.popleft()
            try:
                await self.store.record_plan(session_id, steps, adaptations, self.thread)
            except Exception as exc:  # noqa: BLE001 - the client got the plan either way
                warn(f"could not record the agent's plan ({type(exc).__name__}: {exc})")

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until the plans sent so far are recorded (a proposal builds on them)."""
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except TimeoutError:
                warn("the agent's latest plan is not recorded yet (the plan file is busy)")

    async def close(self) -> None:
        await self.flush(FLUSH_SECONDS)
        self.thread.close(wait=False)


class BridgedSession:
    def __init__(self, session: PlanSession) -> None:
        self.session = session
        self.session_id = session.session_id
        self.db = StoreThread()
        self.started_at = 0  # the session's cursor when the bridge started
        self._numbers = itertools.count(1)
        self.recorder = PlanRecorder(self)  # the agent's plans, recorded off the relay

    async def start(self) -> dict:
        """The session as the bridge starts: its snapshot, whose cursor the call ids name."""
        snapshot = await self.snapshot()
        self.started_at = snapshot["cursor"]
        return snapshot

    async def plans_sent(self) -> None:
        """Wait until the agent's plans sent so far are recorded."""
        await self.recorder.flush()

    def new_call_id(self, agent_session: Any = None) -> str:
        """A write's call id: the same on every run of a scripted agent (notebook 05's card
        shows it), and never an earlier bridge's (it started at an earlier cursor)."""
        digest = hashlib.sha256(str(agent_session).encode()).hexdigest()[:12]
        return f"acp-{self.started_at}-{digest}-{next(self._numbers)}"

    async def write(self, agent_session: Any, function, *args, thread=None) -> Any:
        """Run one of the session's writes with a new call id (on `thread`, else the store
        thread, after the plans sent before it). Two bridges started at the same point whose
        agents name their sessions alike make the same ids: the second one's write then takes
        an id of its own."""
        if thread is None:
            await self.plans_sent()
        thread = thread or self.db
        call_id = self.new_call_id(agent_session)
        try:
            return await thread(lambda: function(*args, call_id=call_id))
        except CallIdTaken:
            pass
        unique = f"{call_id}-{uuid.uuid4().hex[:8]}"
        return await thread(lambda: function(*args, call_id=unique))

    def close(self) -> None:
        self.db.close()

    # Reads.

    async def snapshot(self) -> dict:
        return await self.db(self.session.snapshot_data)

    async def in_plan_mode(self) -> bool:
        try:
            return (await self.snapshot())["mode"] == "plan"
        except Exception as exc:  # noqa: BLE001 - the request goes on as it is
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return False

    async def agent_status(self) -> dict | None:
        return await self.db(self.session.agent_status)

    async def cursor(self) -> int:
        return await self.db(self.session.cursor)

    async def events(self, after: int) -> list:
        return await self.db(self.session.event_data, after)

    async def opening_blocks(self, first: bool, told: set[int]) -> list[dict]:
        return await self.db(opening_blocks, self.session, first, told)

    # The agent's writes.

    async def record_plan(self, agent_session: Any, steps: list, notes: list, thread) -> None:
        await self.write(
            agent_session, self.session.record_agent_plan, MIRROR_NAME, steps, notes, thread=thread
        )

    async def record_refusal(self, agent_session: Any, title: str, content: str) -> None:
        await self.write(agent_session, self.session.record_refusal, title, content)

    async def record_unguarded(self, agent: str, text: str) -> None:
        await self.db(self.session.record_unguarded, agent, text)

    async def record_guard_seen(self, agent: str, version: str | None, point: str) -> None:
        """The guard's heartbeat (DESIGN section 15): no event, no revision."""
        from ...store.guards import record_seen

        def write() -> None:
            with self.session.store.write() as tx:
                record_seen(tx, agent, version, point)

        await self.db(write)

    async def record_status(self, status: dict) -> None:
        await self.db(self.session.record_agent_status, status)

    async def submit_proposal(
        self, agent_session: Any, explanation: str, steps, text: str, approve: str | None
    ) -> tuple[str, int]:
        return await self.write(
            agent_session,
            self.session.submit_agent_proposal,
            PROPOSAL_NAME,
            explanation,
            steps,
            text,
            approve,
        )

    async def withdraw_proposal(self, digest: str) -> None:
        await self.db(self.session.withdraw_agent_proposal, digest)

    # The person's decisions, as the client or the agent made them.

    async def on(self, by: dict) -> None:
        await self.db(self.session.on, by)

    async def off(self, by: dict) -> None:
        await self.db(self.session.off, by)

    async def decide_for_client(
        self, action: str, digest: str, by: dict, asking: str | None = None
    ) -> tuple[str, int | None]:
        return await self.db(self._decide_for_client, action, digest, by, asking)

    def _decide_for_client(
        self, action: str, digest: str, by: dict, asking: str | None
    ) -> tuple[str, int | None]:
        """Record the client's answer as the person's decision (in the store's thread):
        ("won", the approval notice's message id when it approved), ("lost", None) when
        another decision came first, or ("unbound", None) when the session refused it with
        the proposal still waiting (the client's answer still goes on)."""
        session = self.session
        try:
            before = session.cursor()
            if action == "approve":
                session.approve(digest, by=by, asking=asking)
            else:
                session.request_changes(digest, by=by)
            return "won", _approval_notice(session.event_data(before), digest)
        except DecisionRefused as refusal:
            if session.waiting_proposal() != digest:
                return "lost", None
            warn(f"the client's answer was passed on, but the session refused it: {refusal}")
            return "unbound", None
        except Exception as exc:  # noqa: BLE001 - the client's answer still goes on
            warn(f"could not record the client's answer ({type(exc).__name__}: {exc})")
            return "unbound", None


def _approval_notice(events: list, digest: str) -> int | None:
    """The message id of the notice an approval of `digest` queued, among `events` (it is
    queued in the approval's own change, after its decision)."""
    approved = False
    for event in events:
        if event.kind == "decision":
            approved = event.data.get("action") == "approved" and event.data.get("hash") == digest
        elif approved and event.kind == "message_queued" and event.data.get("source") == "notice":
            return event.data.get("message_id")
    return None
