"""What the card and the panel say of the bridged agent, kept in the session: its name, the mode
it last announced and what edits do there (from its profile, else its own words for the mode;
where its ACP sessions run modes that differ in whether edits ask, the mode of one that does
not ask, so the card never says that edits ask while one of them runs without asking),
and whether a prompt of the client runs (else the agent waits for the person's next message
in the client). Each change is recorded as an `agent_status` event, in the order it happened
(the bridge waits for them before it tells the client a session started or a turn ended, so
a notebook that drives the bridge reads the same history on every run); at the bridge's end,
that no agent is bridged any more. And, once, that the agent starts in a mode that approves
itself and offers no way to make it ask (the card's warning that plan mode is not enforced)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from typing import Any

from .ports import StatusStore
from .state import AgentSession, Known
from .text import clean, cut
from .wire import warn

NO_AGENT = {"agent": None, "mode": None, "working": False}


class AgentStatus:
    def __init__(self, store: StatusStore, known: Known) -> None:
        self.store = store
        self.known = known
        self._told = False  # that this agent offers no way to make it ask
        self._mode: str | None = None
        self._described: str | None = None
        self._working = False
        self._ended: str | None = None  # why the bridge ended the last turn, if it did
        self._engaged = False  # an ACP session of the agent runs
        # The agent's ACP sessions with a mode, the one that moved last at the end.
        self._sessions: OrderedDict[int, AgentSession] = OrderedDict()
        self._last = NO_AGENT  # the status last queued (recorded, or about to be)
        self._due: deque[dict] = deque()
        self._task: asyncio.Task | None = None

    def moved(self, agent_session: AgentSession) -> None:
        """The agent's mode in one of its ACP sessions, as it announced it last."""
        if not isinstance(agent_session.mode, str):
            return
        self._sessions[id(agent_session)] = agent_session
        self._sessions.move_to_end(id(agent_session))
        shown = self._shown()
        self._engaged = True
        self._mode = shown.mode
        self._described = shown.described.get(shown.mode)
        self._changed()

    def _shown(self) -> AgentSession:
        """The session whose mode the card shows: the last to move among those whose mode
        lets edits go without asking, else the last to move."""
        sessions = [s for s in self._sessions.values() if isinstance(s.mode, str)]
        unasked = [s for s in sessions if self.known.profile.asks(s.mode) is False]
        return (unasked or sessions)[-1]

    def engaged(self) -> None:
        """An ACP session of the agent started (whether or not it offers modes)."""
        self._engaged = True
        self._changed()

    async def unenforced(self, mode: Any) -> None:
        """Say once, on stderr and on the card, that the agent starts in a mode that approves
        itself and offers no way to make it ask: its plan mode is its own promise."""
        if self._told:
            return
        self._told = True
        agent = self.known.profile.name
        text = (
            f"{agent} starts in mode {cut(clean(str(mode)), 40)!r}, which approves its own edits "
            "and commands, and offers no way to make it ask first: in plan mode, what it does "
            "without asking is its own promise."
        )
        warn(text)
        try:
            await self.store.record_unguarded(agent, text)
        except Exception as exc:  # noqa: BLE001 - said on stderr at least
            warn(f"could not record it on the card ({type(exc).__name__}: {exc})")

    def working(self, running: bool) -> None:
        if running:
            self._ended = None
        self._working = running
        self._changed()

    def stopped(self, why: str) -> None:
        """The bridge ended the running turn (its refusals' follow-ups stopped), for `why`."""
        self._ended = why
        self._changed()

    def data(self) -> dict:
        if not self._engaged:
            return NO_AGENT if self._mode is None else {**NO_AGENT, "last_mode": self._mode}
        profile = self.known.profile
        return {
            "agent": profile.name,
            "mode": self._mode,
            "mode_words": self._described,
            "edits": profile.edits(self._mode, self._described),
            "asks": profile.asks(self._mode),
            "working": self._working,
            "ended": self._ended,
        }

    def _changed(self) -> None:
        data = self.data()
        if data == self._last:
            return
        self._last = data
        self._due.append(data)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self._due:
            data = self._due.popleft()
            try:
                await self.store.record_status(data)
            except Exception as exc:  # noqa: BLE001 - the card says less, the relay goes on
                warn(f"could not record the agent's status ({type(exc).__name__}: {exc})")

    async def settled(self) -> None:
        """Wait until every change so far is recorded."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.shield(task)

    async def ended(self) -> None:
        """The bridge ends: no agent is bridged any more."""
        self._engaged, self._working = False, False
        self._changed()
        try:
            await asyncio.wait_for(self.settled(), 2.0)
        except TimeoutError:
            warn("the agent's last status is not recorded (the plan file is busy)")
