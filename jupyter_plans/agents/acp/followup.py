"""A refusal never ends the person's turn. Where the only reject an agent offers ends its turn (an
answer the agent's profile names as turn-ending, or `cancelled`), and the agent then ends the
client's prompt `cancelled`, the bridge holds that answer and at once sends the agent a
follow-up prompt of its own that opens with the refusal's words, so the model hears why and
goes on (in plan mode: to its proposal). The client's prompt is answered when the follow-up
ends, with the follow-up's outcome. At most MAX_FOLLOW_UPS a turn; past them the turn ends with
the refusals recorded. A turn the client or the person cancelled gets none. The person's `on`
during a turn that keeps the mode it began in is followed up alike (the bridge cancels that
turn: `STOPPED`); each follow-up goes once the agent has taken plan mode."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp import text_block

from .methods import PROMPT
from .ports import AgentCalls, Spawn
from .wire import warn

MAX_FOLLOW_UPS = 3
AFTER = (
    "This is the plan guard of jupyter-plans, not the person: that ended your turn, "
    "so go on from where you were. In plan mode, keep researching with what reads, then "
    "propose your plan for the person to approve."
)

# Where the person's `on` reached a turn that keeps the mode it began in (the profile's
# `modes_next_turn`): the bridge cancels the turn and follows it up with these words.
STOPPED = (
    "Stopped by the plan guard: the person turned plan mode on while your turn ran, and a turn "
    "keeps the mode it began in, so the turn was ended before your next step."
)

ENDED = (
    f"The turn ended: the plan guard refused what the agent tried after {MAX_FOLLOW_UPS} "
    "follow-ups, the most one turn gets. Send your next message to go on."
)


def follow_up_prompt(refusals: list[str]) -> list[dict]:
    """The follow-up's prompt: the refusals' words first, then what to do."""
    text = "\n\n".join([*refusals, AFTER])
    return [text_block(text).model_dump(mode="json", by_alias=True, exclude_none=True)]


class FollowUps:
    def __init__(
        self,
        agent: AgentCalls,
        spawn: Spawn,
        finish: Callable[[str, Any, dict], Awaitable[None]],
        stopped: Callable[[str, str, Any], Awaitable[None]],
        ready: Callable[[str], Awaitable[None]],
    ) -> None:
        """`finish(key, session_id, answer)` answers the client's prompt `key` with the
        agent's `answer` (its id made the client's); `stopped(session_id, why, tool_call_id)`
        says that the follow-ups stopped, and why, before the turn's end is answered;
        `ready(session_id)` is awaited before each follow-up goes (see modes.ready)."""
        self.agent = agent
        self.spawn = spawn
        self.finish = finish
        self.stopped = stopped
        self.ready = ready
        self._refused: dict[str, list[str]] = {}  # session -> turn-ending refusals' words
        self._last_call: dict[str, Any] = {}  # session -> the tool call last refused
        self._sent: dict[str, int] = {}  # session -> follow-ups sent this turn
        self._stopped: set[str] = set()  # sessions whose turn the client or person cancelled

    def turn_started(self, session_id: Any) -> None:
        if isinstance(session_id, str):
            self._refused.pop(session_id, None)
            self._sent[session_id] = 0
            self._stopped.discard(session_id)

    def refused(self, session_id: Any, words: str, tool_call_id: Any = None) -> None:
        """The guard answered with a reject that ends the agent's turn."""
        if isinstance(session_id, str):
            self._refused.setdefault(session_id, []).append(words)
            self._last_call[session_id] = tool_call_id

    def cancelled(self, session_id: Any) -> None:
        """The client or the person cancelled the running turn: no follow-up goes."""
        if isinstance(session_id, str):
            self._stopped.add(session_id)

    def _due(self, session_id: str, answer: dict) -> list[str] | str:
        """The refusals a follow-up must tell, when the turn ended because of them; where the
        turn had its follow-ups, why it ends (a str)."""
        refusals = self._refused.pop(session_id, [])
        result = answer.get("result")
        if (
            not refusals
            or not isinstance(result, dict)
            or result.get("stopReason") != "cancelled"
            or session_id in self._stopped
        ):
            return []
        if self._sent.get(session_id, 0) >= MAX_FOLLOW_UPS:
            warn(f"the turn ended after {MAX_FOLLOW_UPS} follow-ups of refusals; it ends here")
            return ENDED
        return refusals

    def hold(self, key: str, session_id: Any, answer: dict) -> bool:
        """The agent answered the client's prompt `key`: True when the answer is held and a
        follow-up sent (the refusals ended the turn), False when it goes to the client."""
        if not isinstance(session_id, str):
            return False
        refusals = self._due(session_id, answer)
        if not refusals:
            return False
        self.spawn(self._follow(key, session_id, refusals, answer))
        return True

    async def _say_stopped(self, session_id: str) -> None:
        try:
            await self.stopped(session_id, ENDED, self._last_call.get(session_id))
        except Exception as exc:  # noqa: BLE001 - the turn's end is answered either way
            warn(f"could not say why the turn ended ({type(exc).__name__}: {exc})")

    async def _follow(
        self, key: str, session_id: str, refusals: list[str] | str, held: dict
    ) -> None:
        answer = held
        while isinstance(refusals, list) and refusals:
            self._sent[session_id] = self._sent.get(session_id, 0) + 1
            params = {"sessionId": session_id, "prompt": follow_up_prompt(refusals)}
            try:
                await self.ready(session_id)
                answer = await self.agent.call(PROMPT, params, None)
            except Exception as exc:  # noqa: BLE001 - the client gets the turn's first end
                warn(f"the follow-up prompt got no answer ({type(exc).__name__}: {exc})")
                answer = held
                break
            refusals = self._due(session_id, answer)
        if refusals == ENDED:
            await self._say_stopped(session_id)
        await self.finish(key, session_id, answer)
