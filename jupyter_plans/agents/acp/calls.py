"""The bridge's own requests to the agent (its helpers' switches of a mode, a follow-up prompt):
their ids are the bridge's own, and their answers never reach the client."""

from __future__ import annotations

import asyncio
import itertools
import uuid

from .ports import Replies
from .wire import encode, id_key

OWN_CALL_TIMEOUT = 30.0


class OwnCalls:
    def __init__(self, agent: Replies) -> None:
        self.agent = agent
        self._waiting: dict[str, asyncio.Future] = {}
        self._prefix = f"jupyter-plans-{uuid.uuid4().hex[:8]}"  # of the bridge's own requests
        self._numbers = itertools.count(1)

    async def call(
        self, method: str, params: dict, timeout: float | None = OWN_CALL_TIMEOUT
    ) -> dict:
        """Send a request of the bridge's own; its answer never reaches the client. A timeout
        of None waits as long as the agent takes (a follow-up prompt)."""
        request_id = f"{self._prefix}-{next(self._numbers)}"
        future = asyncio.get_running_loop().create_future()
        self._waiting[id_key(request_id)] = future
        request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        await self.agent.send_line(encode(request))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._waiting.pop(id_key(request_id), None)

    async def notify(self, method: str, params: dict) -> None:
        await self.agent.notify(method, params)

    def answered(self, key: str, message: dict) -> bool:
        """Take the agent's answer with the id `key` when it answers one of these requests."""
        own = self._waiting.pop(key, None)
        if own is None:
            return False
        if not own.done():
            own.set_result(message)
        return True

    def cancel(self) -> None:
        for future in self._waiting.values():
            future.cancel()
