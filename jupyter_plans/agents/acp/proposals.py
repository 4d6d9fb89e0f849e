"""The agent's request to leave plan mode as the session's proposal, and its answer: the first
of the person (any surface, seen in the session's events) and the client wins, and the other's
later answer is ignored."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp.schema import PermissionOption, RequestPermissionRequest, RequestPermissionResponse
from pydantic import ValidationError

from .options import (
    approve_option_name,
    approve_outcome,
    cancelled_outcome,
    kind_of,
    reject_outcome,
)
from .ports import PlanWords, ProposalStore, Replies
from .state import Known
from .text import clean, cut, first_paragraph, is_blank, list_items, well_formed
from .told import tell
from .wire import id_key, warn

MAX_EXPLANATION_BYTES = 500
KEPT_ANSWERED = 64  # answered requests kept, so a client's later answer is known and ignored
NO_EXPLANATION = "The agent asks to leave plan mode and start working."
# What the client is told of a request the person answered on another surface.
ANSWERED = {
    "approved": "Approved outside this chat (on the plan's card, in the panel or with %plan).",
    "changes_requested": "Changes were asked for outside this chat (on the plan's card, in the "
    "panel or with %plan); they go to the agent with your next message.",
    "left": "Plan mode was left outside this chat: the request was cancelled.",
    "dropped": "This request was superseded (plan mode was entered again, or the plan "
    "proposed anew).",
}


@dataclass
class Waiting:
    """An agent's request to leave plan mode, waiting for its answer."""

    request_id: Any  # as the agent sent it
    options: list[PermissionOption]
    digest: str  # the session's waiting proposal this request became
    seq: int  # the proposal_submitted event: decisions before it are not about this request
    session_id: Any = None  # the ACP session that asked
    tool_call_id: Any = None  # its tool call, which the client shows with the request
    state: str = "waiting"  # then "deciding" (the client's answer is being recorded), "answered"
    stashed: str | None = None  # the person's decision seen while the client's was recorded


class Proposals:
    def __init__(
        self,
        store: ProposalStore,
        agent: Replies,
        client: Replies,
        known: Known,
        mirror: PlanWords,
        person_of: Callable[[Any], dict],
    ) -> None:
        """`person_of(session_id)` is `by` of the client's answer in an ACP session."""
        self.store = store
        self.agent = agent
        self.client = client
        self.known = known
        self.mirror = mirror
        self.person_of = person_of
        self.requests: dict[str, Waiting] = {}
        self._own: set[str] = set()  # the hashes of the proposals made here
        self.conveyed: set[str] = set()  # approvals the agent received as an allow option
        self.notices: dict[str, int] = {}  # approved hash -> the message id of its notice

    def take_notices(self, events: list) -> None:
        """Note the notice each approval among the session's `events` queued (in the
        approval's own change, right after its decision and the mode's change)."""
        decided = None
        for event in events:
            if event.kind == "decision":
                decided = event
            elif (
                event.kind == "message_queued"
                and event.data.get("source") == "notice"
                and decided is not None
                and decided.data.get("action") == "approved"
                and decided.seq >= event.seq - 2
            ):
                self.notices[decided.data.get("hash")] = event.data.get("message_id")

    def told(self) -> set[int]:
        """The approval notices the agent had as the allow option of its own request: the
        queue is done with them, and repeating them would ask for the work twice (and say
        what the option the person chose may not: that edits still ask)."""
        return {m for digest, m in self.notices.items() if digest in self.conveyed}

    async def open(self, message: dict, request: RequestPermissionRequest) -> None:
        """Make the request a proposal of the session (the caller passes it on to the
        client); on a failure to store it, the request goes on as it is."""
        profile = self.known.profile
        text = proposal_text(request, profile.plan_text)
        explanation = clean(first_paragraph(text))
        explanation = (
            NO_EXPLANATION if is_blank(explanation) else cut(explanation, MAX_EXPLANATION_BYTES)
        )
        await self.store.plans_sent()  # the proposal follows the plans the agent sent before it
        items = list_items(text)
        # The agent's latest plan (None until it sent one), in the plan text's own words where
        # an entry was sent in its active form.
        steps = self.mirror.take_words(items)
        if steps is None and items:  # the plan's Markdown list, as steps
            entries = [{"content": i, "status": "pending"} for i in items]
            steps, _ = self.mirror.adapt(entries, sent=False)
        try:
            digest, seq = await self.store.submit_proposal(
                request.session_id,
                explanation,
                steps,
                text,
                approve_option_name(request.options, profile),
            )
        except Exception as exc:  # noqa: BLE001 - the agent's request still reaches the client
            warn(f"could not store the agent's proposal ({type(exc).__name__}: {exc})")
            return
        self._own.add(digest)
        for older in self.requests.values():  # a new proposal supersedes one still unanswered
            if older.state == "waiting":
                await self._answer(older, "dropped")
        self.requests[id_key(message["id"])] = Waiting(
            message["id"],
            request.options,
            digest,
            seq,
            request.session_id,
            request.tool_call.tool_call_id,
        )
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
                await self.store.withdraw_proposal(waiting.digest)
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
        action, chosen = _client_action(message, waiting.options)
        if action is not None:
            waiting.state = "deciding"
            by = self.person_of(waiting.session_id)
            asking = _asking_after(chosen)
            verdict, notice = await self.store.decide_for_client(action, waiting.digest, by, asking)
            if verdict == "lost":
                waiting.state = "waiting"
                if waiting.stashed is not None:
                    await self._answer(waiting, waiting.stashed)
                return True
            if action == "approve":
                self.conveyed.add(waiting.digest)
                if notice is not None:
                    self.notices[waiting.digest] = notice
        waiting.state = "answered"
        await self.agent.send_line(line)
        return True

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
        """Answer the agent's request with the person's decision made outside the client, and
        close the request in the client: its tool call's update says how it was answered."""
        profile = self.known.profile
        if action == "approved":
            outcome = approve_outcome(waiting.options, profile)
            self.conveyed.add(waiting.digest)
        elif action == "left":
            outcome = cancelled_outcome()
        else:  # changes_requested, or dropped when plan mode was entered again
            outcome = reject_outcome(waiting.options, profile)
        waiting.state = "answered"
        await self.agent.respond(waiting.request_id, {"outcome": outcome})
        option = outcome.get("optionId")
        name = next((o.name for o in waiting.options if o.option_id == option), None)
        line = ANSWERED.get(action, ANSWERED["dropped"])
        if name:
            line += f" The agent got its option {name!r}."
        status = "completed" if action == "approved" else "failed"
        await tell(self.client, waiting.session_id, waiting.tool_call_id, status, line, option)


def proposal_text(request: RequestPermissionRequest, where: tuple[str, ...]) -> str:
    """The plan's Markdown from the first place of `where` that holds it: "content" (the tool
    call's text content) or "rawInput.KEY" (a text of its raw input); lone surrogates, which a
    string cut inside an emoji holds, made U+FFFD."""
    for place in where:
        found = _text_at(request, place)
        if found:
            return well_formed(found)
    return ""


def _text_at(request: RequestPermissionRequest, place: str) -> str:
    if place == "content":
        texts = []
        for item in request.tool_call.content or []:
            block = getattr(item, "content", None)
            if getattr(block, "type", None) == "text":
                texts.append(block.text)
        return "\n\n".join(texts)
    if place.startswith("rawInput."):
        raw = request.tool_call.raw_input
        value = raw.get(place.split(".", 1)[1]) if isinstance(raw, dict) else None
        return value if isinstance(value, str) else ""
    return ""


def _client_action(
    message: dict, options: list[PermissionOption]
) -> tuple[str | None, PermissionOption | None]:
    """approve for an allow option the client chose, revise for a reject one, else None; and
    the option chosen."""
    if "result" not in message:
        return None, None
    try:
        outcome = RequestPermissionResponse.model_validate(message["result"]).outcome
    except ValidationError:
        return None, None
    if outcome.outcome != "selected":
        return None, None
    chosen = next((o for o in options if o.option_id == outcome.option_id), None)
    kind = kind_of(options, outcome.option_id)
    if kind in ("allow_once", "allow_always"):
        return "approve", chosen
    if kind in ("reject_once", "reject_always"):
        return "revise", chosen
    return None, chosen


def _asking_after(chosen: PermissionOption | None) -> str | None:
    """What the approval's notice tells the agent asks from now on, where the person chose in
    the client an option that stops edits asking (an allow_always); None where each action
    still asks (the session's own words say so)."""
    if chosen is None or chosen.kind != "allow_always":
        return None
    name = " ".join(chosen.name.split())[:200]
    return (
        f"The person chose your option {name!r} in their ACP client: your edits no longer ask "
        "the person, in the mode that option put you in."
    )
