"""The narrow ports the bridge's helpers take in place of the bridge: each names only what its
helper uses (the bridge's peers, its store port `BridgedSession` and its own requests fit them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .profiles import Profile
    from .state import AgentSession


class Replies(Protocol):
    """Answers to a peer's requests, and messages to it."""

    async def respond(self, request_id: Any, result: Any) -> None: ...

    async def respond_error(
        self, request_id: Any, code: int, message: str, data: Any = None
    ) -> None: ...

    async def send_line(self, line: bytes) -> None: ...

    async def notify(self, method: str, params: dict) -> None: ...


class GuardStore(Protocol):
    """What the guard reads and records."""

    async def snapshot(self) -> dict: ...

    async def record_refusal(self, agent_session: Any, title: str, content: str) -> None: ...

    async def record_guard_seen(self, agent: str, version: str | None, point: str) -> None: ...


class StatusStore(Protocol):
    """What the card is told of the agent: its status, and that its plan mode is unenforced."""

    async def record_status(self, status: dict) -> None: ...

    async def record_unguarded(self, agent: str, text: str) -> None: ...


class ProposalStore(Protocol):
    """What the proposals record: the agent's request to leave plan mode, and its answers."""

    async def plans_sent(self) -> None: ...

    async def submit_proposal(
        self, agent_session: Any, explanation: str, steps: Any, text: str, approve: str | None
    ) -> tuple[str, int]: ...

    async def withdraw_proposal(self, digest: str) -> None: ...

    async def decide_for_client(
        self, action: str, digest: str, by: dict, asking: str | None = None
    ) -> tuple[str, int | None]: ...


class ModeStore(Protocol):
    """What plan mode reads and decides on the person's side."""

    async def snapshot(self) -> dict: ...

    async def agent_status(self) -> dict | None: ...

    async def on(self, by: dict) -> None: ...

    async def off(self, by: dict) -> None: ...


class PlanStore(Protocol):
    """Where the agent's mirrored plans are recorded."""

    async def record_plan(
        self, agent_session: Any, steps: list, notes: list, thread: Any
    ) -> None: ...


class SessionEvents(Protocol):
    """The session's events, as the person's decisions are read from them."""

    async def cursor(self) -> int: ...

    async def events(self, after: int) -> list: ...


class Commits(Protocol):
    """What tells of the store's commits (a Store: see `store.wake`)."""

    def on_change(self, callback: Callable[..., None]) -> Callable[[], None] | None: ...

    def subscribe(self, callback: Callable[..., None]) -> Callable[[], None]: ...


class AgentCalls(Protocol):
    """The bridge's own requests and notifications to the agent (see `calls`)."""

    async def call(self, method: str, params: dict, timeout: float | None = ...) -> dict: ...

    async def notify(self, method: str, params: dict) -> None: ...


class AgentSessions(Protocol):
    """The ACP sessions the bridge has seen, and the profile of the agent that runs them (see
    `state.Sessions`)."""

    @property
    def profile(self) -> Profile: ...

    def known(self, session_id: Any) -> AgentSession: ...

    def items(self) -> list[tuple[str, AgentSession]]: ...

    def person(self, session_id: Any) -> dict: ...


class PlanWords(Protocol):
    """The agent's plan as the mirror keeps it (see `mirror`)."""

    def adapt(self, entries: list, sent: bool = True) -> tuple[list, list]: ...

    def take_words(self, items: list[str]) -> list | None: ...


class ProposalDecisions(Protocol):
    """The proposals as the person's decisions reach them (see `proposals`)."""

    def take_notices(self, events: list) -> None: ...

    async def person_decided(self, seq: int, action: str, digest: Any) -> None: ...

    async def proposal_submitted(self, digest: Any, seq: int, edited: bool) -> None: ...


class ModeNews(Protocol):
    """What plan mode tells of the agent's modes (see `status`): a session's mode may have
    moved; the agent starts in a mode that approves itself and cannot be made to ask."""

    def moved(self, agent_session: AgentSession) -> None: ...

    async def unenforced(self, mode: Any) -> None: ...


class ModeDecisions(Protocol):
    """Plan mode as the person's decisions reach it (see `modes`)."""

    async def session_mode_changed(self, mode: str, approved: bool) -> None: ...


# The person's `on` reached a running turn that keeps its mode: its end is followed up.
StopTurn = Callable[[str], None]

# Run a coroutine beside the relay, ended with the bridge.
Spawn = Callable[[Awaitable[Any]], None]
