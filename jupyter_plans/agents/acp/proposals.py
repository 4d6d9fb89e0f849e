"""The agent's request to leave plan mode as the session's proposal, and its answer: the first
of the person (any surface, seen in the session's events) and the client wins, and the other's
later answer is ignored."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acp.schema import PermissionOption, RequestPermissionRequest, RequestPermissionResponse
from pydantic import ValidationError

from ...errors import DecisionRefused
from ...plan.who import person
from .options import (
    approve_option_name,
    approve_outcome,
    cancelled_outcome,
    kind_of,
    reject_outcome,
)
from .record import PROPOSAL_NAME
from .text import clean, cut, first_paragraph, is_blank, list_items, well_formed
from .wire import id_key, warn

if TYPE_CHECKING:
    from .bridge import Bridge

MAX_EXPLANATION_BYTES = 500
KEPT_ANSWERED = 64  # answered requests kept, so a client's later answer is known and ignored
NO_EXPLANATION = "The agent asks to leave plan mode and start working."


@dataclass
class Waiting:
    """An agent's request to leave plan mode, waiting for its answer."""

    request_id: Any  # as the agent sent it
    options: list[PermissionOption]
    digest: str  # the session's waiting proposal this request became
    seq: int  # the proposal_submitted event: decisions before it are not about this request
    state: str = "waiting"  # then "deciding" (the client's answer is being recorded), "answered"
    stashed: str | None = None  # the person's decision seen while the client's was recorded


class Proposals:
    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.requests: dict[str, Waiting] = {}
        self._own: set[str] = set()  # the hashes of the proposals made here
        self.conveyed: set[str] = set()  # approvals the agent received as an allow option

    async def open(self, message: dict, request: RequestPermissionRequest) -> None:
        """Make the request a proposal of the session (the caller passes it on to the
        client); on a failure to store it, the request goes on as it is."""
        bridge = self.bridge
        text = proposal_text(request)
        explanation = clean(first_paragraph(text))
        explanation = (
            NO_EXPLANATION if is_blank(explanation) else cut(explanation, MAX_EXPLANATION_BYTES)
        )
        await bridge.plans.flush()  # the proposal follows the plans the agent sent before it
        items = list_items(text)
        # The agent's latest plan (None until it sent one), in the plan text's own words where
        # an entry was sent in its active form.
        steps = bridge.mirror.take_words(items)
        if steps is None and items:  # the plan's Markdown list, as steps
            steps, _ = bridge.mirror.adapt(
                [{"content": item, "status": "pending"} for item in items]
            )
        try:
            digest, seq = await bridge.write(
                request.session_id,
                bridge.session.submit_agent_proposal,
                PROPOSAL_NAME,
                explanation,
                steps,
                text,
                approve_option_name(request.options),
            )
        except Exception as exc:  # noqa: BLE001 - the agent's request still reaches the client
            warn(f"could not store the agent's proposal ({type(exc).__name__}: {exc})")
            return
        self._own.add(digest)
        for older in self.requests.values():  # a new proposal supersedes one still unanswered
            if older.state == "waiting":
                await self._answer(older, "dropped")
        self.requests[id_key(message["id"])] = Waiting(message["id"], request.options, digest, seq)
        answered = [key for key, w in self.requests.items() if w.state == "answered"]
        for key in answered[:-KEPT_ANSWERED]:  # the oldest: a client's late answer is rare
            del self.requests[key]

    async def withdraw(self) -> None:
        """At the bridge's end: the proposals its agent still waits on are dropped, as nobody
        is left to answer them."""
        for waiting in self.requests.values():
            if waiting.state != "waiting":
                continue
            try:
                await self.bridge.db(self.bridge.session.withdraw_agent_proposal, waiting.digest)
            except Exception as exc:  # noqa: BLE001 - the bridge ends either way
                warn(f"could not drop the gone agent's proposal ({type(exc).__name__}: {exc})")

    def forget(self, request_id: Any) -> None:
        """Drop an answered request whose id the agent uses again for a new one."""
        key = id_key(request_id)
        waiting = self.requests.get(key)
        if waiting is not None and waiting.state == "answered":
            del self.requests[key]

    async def client_answered(self, message: dict, line: bytes) -> bool:
        """Take the client's answer to a request made a proposal: the person's decision on it
        when it comes first (passed on to the agent as the client chose), ignored when the
        person answered first. False when the message answers no such request."""
        waiting = self.requests.get(id_key(message.get("id")))
        if waiting is None:
            return False
        if waiting.state != "waiting":
            return True  # the person answered first: this later answer is ignored
        action = _client_action(message, waiting.options)
        if action is not None:
            waiting.state = "deciding"
            verdict = await self.bridge.db(self._decide_for_client, action, waiting.digest)
            if verdict == "lost":
                waiting.state = "waiting"
                if waiting.stashed is not None:
                    await self._answer(waiting, waiting.stashed)
                return True
            if action == "approve":
                self.conveyed.add(waiting.digest)
        waiting.state = "answered"
        await self.bridge.agent.send_line(line)
        return True

    def _decide_for_client(self, action: str, digest: str) -> str:
        """Record the client's answer as the person's decision (in the store's thread):
        "won", or "lost" when another decision came first, or "unbound" when the session
        refused it with the proposal still waiting (the client's answer still goes on)."""
        session = self.bridge.session
        try:
            by = person(None, "acp-client")  # the bridge's user answered in the client
            if action == "approve":
                session.approve(digest, by=by)
            else:
                session.request_changes(digest, by=by)
            return "won"
        except DecisionRefused as refusal:
            if session.waiting_proposal() != digest:
                return "lost"
            warn(f"the client's answer was passed on, but the session refused it: {refusal}")
            return "unbound"
        except Exception as exc:  # noqa: BLE001 - the client's answer still goes on
            warn(f"could not record the client's answer ({type(exc).__name__}: {exc})")
            return "unbound"

    async def person_decided(self, seq: int, action: str, digest: Any) -> None:
        """A `decision` event of the session: answer the agent's waiting request with it when
        it names that request's proposal, else as superseded."""
        for waiting in list(self.requests.values()):
            if waiting.state == "answered" or seq < waiting.seq:
                continue
            verdict = action if digest == waiting.digest else "dropped"
            if waiting.state == "deciding":
                waiting.stashed = verdict
                continue
            await self._answer(waiting, verdict)

    async def proposal_submitted(self, digest: Any, seq: int, edited: bool) -> None:
        """A proposal the bridge did not make: the person's edit of the waiting one (the
        requests still waiting now wait for it), or another's (another bridge's agent, a
        plan_submit), which supersedes them."""
        if digest in self._own:
            return
        for waiting in list(self.requests.values()):
            if waiting.state != "waiting" or waiting.seq >= seq:
                continue
            if edited:
                waiting.digest, waiting.seq = digest, seq
            else:
                await self._answer(waiting, "dropped")

    async def _answer(self, waiting: Waiting, action: str) -> None:
        if action == "approved":
            outcome = approve_outcome(waiting.options)
            self.conveyed.add(waiting.digest)
        elif action == "left":
            outcome = cancelled_outcome()
        else:  # changes_requested, or dropped when plan mode was entered again
            outcome = reject_outcome(waiting.options)
        waiting.state = "answered"
        await self.bridge.agent.respond(waiting.request_id, {"outcome": outcome})


def proposal_text(request: RequestPermissionRequest) -> str:
    """The plan's Markdown: the text content of the tool call, else its raw input's plan (lone
    surrogates, which a string cut inside an emoji holds, made U+FFFD)."""
    return well_formed(_proposal_text(request))


def _proposal_text(request: RequestPermissionRequest) -> str:
    texts = []
    for item in request.tool_call.content or []:
        block = getattr(item, "content", None)
        if getattr(block, "type", None) == "text":
            texts.append(block.text)
    if texts:
        return "\n\n".join(texts)
    raw = request.tool_call.raw_input
    plan = raw.get("plan") if isinstance(raw, dict) else None
    return plan if isinstance(plan, str) else ""


def _client_action(message: dict, options: list[PermissionOption]) -> str | None:
    """approve for an allow option the client chose, revise for a reject one, else None."""
    if "result" not in message:
        return None
    try:
        outcome = RequestPermissionResponse.model_validate(message["result"]).outcome
    except ValidationError:
        return None
    if outcome.outcome != "selected":
        return None
    kind = kind_of(options, outcome.option_id)
    if kind in ("allow_once", "allow_always"):
        return "approve"
    if kind in ("reject_once", "reject_always"):
        return "revise"
    return None
