"""The guard at the bridge: while the session is in plan mode or a proposal waits, the agent's
writes, terminals and edit permissions are answered here, never passed on, and are recorded as
refused calls. A refusal whose answer ends the agent's turn is told to the follow-ups, so the
turn goes on (see `followup`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from acp.schema import CreateTerminalRequest, RequestPermissionRequest, WriteTextFileRequest
from pydantic import ValidationError

from .methods import REQUEST_PERMISSION, WRITE_TEXT_FILE
from .options import cancelled_outcome, reject_choice
from .ports import GuardStore, Replies
from .seen import Heartbeat
from .state import Known
from .text import well_formed
from .told import tell
from .wire import REFUSED_BY_GUARD, warn

GUARDED_KINDS = ("edit", "delete", "move", "execute")
REFUSED = "Refused by the plan guard"  # how each refusal's words open
GO_ON = "Propose the plan and wait for the person's approval before changing anything."


class Guard:
    def __init__(
        self,
        store: GuardStore,
        agent: Replies,
        client: Replies,
        known: Known,
        turn_ended: Callable[[Any, str, Any], None],
    ) -> None:
        """`turn_ended(session_id, words, tool_call_id)`: a refusal ended the agent's turn."""
        self.store = store
        self.agent = agent
        self.client = client
        self.known = known
        self.turn_ended = turn_ended
        self.heartbeat = Heartbeat(store)  # the card shows that the guard runs

    async def why(self) -> str | None:
        """Why the agent may not change the world now, or None when it may."""
        self.heartbeat.beat()
        try:
            snapshot = await self.store.snapshot()
        except Exception as exc:  # noqa: BLE001 - unable to tell, the guard holds
            warn(f"could not read the session; the guard holds ({type(exc).__name__}: {exc})")
            return "the plan session could not be read"
        if snapshot["pending_proposal_hash"] is not None:
            return "a proposal waits for the person's decision"
        if snapshot["mode"] == "plan":
            return "the session is in plan mode"
        return None

    async def permission(self, message: dict, request: RequestPermissionRequest) -> bool:
        """Answer a permission request for an edit, delete, move or execute with its reject
        option while the guard holds; True when answered here."""
        call = request.tool_call
        if call.kind not in GUARDED_KINDS:
            return False
        reason = await self.why()
        if reason is None:
            return False
        title = call.title or f"{call.kind} tool call {call.tool_call_id}"
        outcome, ends = reject_choice(request.options, self.known.profile)
        await self.agent.respond(message["id"], {"outcome": outcome})
        line = (
            f"{REFUSED}: {reason}, so the agent's {call.kind} {title!r} was answered with "
            "its reject option."
        )
        words = f"{line} {GO_ON}"
        # The client may have shown the call (the agent's tool_call): it shows it refused.
        await tell(self.client, request.session_id, call.tool_call_id, "failed", line)
        await self._record(request.session_id, title, words)
        if ends:
            self.turn_ended(request.session_id, words, call.tool_call_id)
        return True

    async def unreadable(self, message: dict) -> bool:
        """Answer a permission request the bridge cannot read `cancelled` while the guard
        holds (what it cannot read it cannot let through); True when answered here."""
        reason = await self.why()
        if reason is None:
            return False
        await self.agent.respond(message["id"], {"outcome": cancelled_outcome()})
        params = message.get("params")
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        words = (
            f"{REFUSED}: {reason}, and the agent's permission request could not be read, so "
            f"it was answered cancelled. {GO_ON}"
        )
        await self._record(session_id, REQUEST_PERMISSION, words)
        if isinstance(session_id, str):
            self.turn_ended(session_id, words, None)
        return True

    async def call(self, message: dict) -> bool:
        """Answer fs/write_text_file and terminal/create with an error while the guard holds;
        True when answered here."""
        reason = await self.why()
        if reason is None:
            return False
        method = message["method"]
        what = _what(method, message.get("params"))
        text = (
            f"refused by jupyter-plans: {reason}; {what} is not allowed until the person "
            "approves a plan"
        )
        if "id" in message:
            await self.agent.respond_error(message["id"], REFUSED_BY_GUARD, text)
        params = message.get("params")
        await self._record(
            params.get("sessionId") if isinstance(params, dict) else None,
            method,
            f"{REFUSED}: {reason}, so the agent's {method} ({what}) was answered with an error.",
        )
        return True

    async def batch(self, line: bytes) -> bool:
        """While the guard holds, refuse a line from the agent that holds no one message (a
        JSON-RPC batch, or what is no JSON): each request in a batch gets an error, and none of
        it is passed on. True when refused here."""
        try:
            batch = json.loads(line)
        except (ValueError, RecursionError):
            batch = None
        reason = await self.why()
        if reason is None:
            return False
        requests = batch if isinstance(batch, list) else []
        for item in requests:
            if isinstance(item, dict) and "method" in item and "id" in item:
                text = f"refused by jupyter-plans: {reason}; a batch is not allowed in plan mode"
                await self.agent.respond_error(item["id"], REFUSED_BY_GUARD, text)
        what = f"a batch of {len(requests)} messages" if isinstance(batch, list) else "a line"
        await self._record(
            None,
            "jsonrpc batch" if isinstance(batch, list) else "unreadable line",
            f"{REFUSED}: {reason}, and the agent sent {what} the guard cannot read message by "
            "message, so none of it was passed on.",
        )
        return True

    async def _record(self, agent_session: Any, title: str, content: str) -> None:
        title, content = well_formed(title), well_formed(content)
        try:
            await self.store.record_refusal(agent_session, title, content)
        except Exception as exc:  # noqa: BLE001 - the refusal stands even when it cannot be stored
            warn(f"could not record a refused call ({type(exc).__name__}: {exc})")


def _what(method: str, params: Any) -> str:
    try:
        if method == WRITE_TEXT_FILE:
            return f"writing {WriteTextFileRequest.model_validate(params).path}"
        request = CreateTerminalRequest.model_validate(params)
        return f"running {' '.join([request.command, *(request.args or [])])[:200]}"
    except ValidationError:
        return "the call"


def read_permission_request(params: Any) -> RequestPermissionRequest | None:
    """The permission request, or what the guard and the proposal read of it when the SDK's
    models refuse it whole (0.11's refuse a content item, a location or a status they do not
    know); None when even that cannot be read."""
    try:
        return RequestPermissionRequest.model_validate(params)
    except ValidationError:
        pass
    if not isinstance(params, dict) or not isinstance(params.get("toolCall"), dict):
        return None
    call = params["toolCall"]
    kept = {key: call[key] for key in ("toolCallId", "kind", "title", "rawInput") if key in call}
    content = [
        item
        for item in call.get("content") or []
        if isinstance(item, dict)
        and item.get("type") == "content"
        and isinstance(item.get("content"), dict)
        and item["content"].get("type") == "text"
    ]
    try:
        return RequestPermissionRequest.model_validate(
            {**params, "toolCall": {**kept, "content": content}}
        )
    except ValidationError:
        return None
