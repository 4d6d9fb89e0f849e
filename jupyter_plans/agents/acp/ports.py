"""The narrow ports the bridge's helpers take in place of the bridge: each names only what its
helper uses (the bridge's peers, its store port `BridgedSession` and its own requests fit them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol


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

    async def record_unguarded(self, agent: str, text: str) -> None: ...

    async def record_guard_seen(self, agent: str, version: str | None, point: str) -> None: ...


class ProposalStore(Protocol):
    """What the proposals record: the agent's request to leave plan mode, and its answers."""

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

    async def on(self, by: dict) -> None: ...

    async def off(self, by: dict) -> None: ...


class PlanStore(Protocol):
    """Where the agent's mirrored plans are recorded."""

    async def record_plan(
        self, agent_session: Any, steps: list, notes: list, thread: Any
    ) -> None: ...


# The bridge's own request to the agent (its answer never reaches the client); a timeout of
# None waits as long as the agent takes.
CallAgent = Callable[..., Awaitable[dict]]
# Run a coroutine beside the relay, ended with the bridge.
Spawn = Callable[[Awaitable[Any]], None]
