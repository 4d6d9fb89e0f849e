"""Plan mode kept with the agent's modes: the person's `on` and `off` (any surface) set the
agent's mode, and the client's own switch into or out of `plan` is the person's `on` or `off`."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from acp.schema import SessionModeState, SetSessionModeRequest
from pydantic import ValidationError

from .wire import warn

if TYPE_CHECKING:
    from .bridge import Bridge

PLAN = "plan"
DEFAULT = "default"


class Modes:
    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    async def client_sets(self, key: str, params: Any) -> None:
        """The client's session/set_mode (passed on by the caller): into `plan` it is the
        person's `on`; out of `plan` it is the person's `off`."""
        try:
            request = SetSessionModeRequest.model_validate(params)
        except ValidationError:
            return
        bridge = self.bridge
        agent_session = bridge.known(request.session_id)
        before = agent_session.mode
        # Known at once, so the decision's own event is not taken for another surface's.
        agent_session.mode = request.mode_id
        bridge.track(key, "session/set_mode", params, before)
        session = bridge.session
        try:
            snapshot = await bridge.db(session.snapshot_data)
            if request.mode_id == PLAN and snapshot["mode"] != PLAN:
                await bridge.db(session.on)
            elif (
                request.mode_id != PLAN
                and before == PLAN
                and (snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None)
            ):
                await bridge.db(session.off)
        except Exception as exc:  # noqa: BLE001 - the client's request still goes on
            warn(f"could not follow the client's mode {request.mode_id!r} ({exc})")

    async def agent_answered(self, key: str, call: tuple, message: dict) -> None:
        """The agent's answer to a client request the bridge keeps track of."""
        method, params, before = call
        params = params if isinstance(params, dict) else {}
        bridge = self.bridge
        if method == "session/prompt":
            bridge.known(params.get("sessionId")).prompts.discard(key)
            return
        if method == "session/set_mode":
            if "error" in message:
                agent_session = bridge.known(params.get("sessionId"))
                if agent_session.mode == params.get("modeId"):
                    agent_session.mode = before
            return
        result = message.get("result")
        if not isinstance(result, dict):
            return
        session_id = (
            result.get("sessionId")
            if method in ("session/new", "session/fork")
            else (params.get("sessionId"))
        )
        if not isinstance(session_id, str):
            return
        agent_session = bridge.known(session_id)
        try:
            modes = SessionModeState.model_validate(result.get("modes"))
        except ValidationError:
            return
        agent_session.modes = tuple(mode.id for mode in modes.available_modes)
        agent_session.mode = modes.current_mode_id
        if PLAN in agent_session.modes and agent_session.mode != PLAN:
            if await bridge.in_plan_mode():
                bridge.spawn(self.set_agent_mode(session_id, PLAN))

    async def session_mode_changed(self, mode: str, approved: bool) -> None:
        """The session's mode after a batch of its events: `plan` is the person's `on`;
        `default` is the person's `off` unless an approval made it."""
        bridge = self.bridge
        for session_id, agent_session in list(bridge.sessions.items()):
            if mode == PLAN:
                if PLAN in agent_session.modes and agent_session.mode != PLAN:
                    bridge.spawn(self.set_agent_mode(session_id, PLAN))
            elif not approved and agent_session.mode == PLAN:
                if agent_session.prompts:
                    await bridge.agent.notify("session/cancel", {"sessionId": session_id})
                if DEFAULT in agent_session.modes:
                    bridge.spawn(self.set_agent_mode(session_id, DEFAULT))

    async def set_agent_mode(self, session_id: str, mode: str) -> None:
        """Set the agent's mode, and tell the client the mode it is in now."""
        bridge = self.bridge
        agent_session = bridge.known(session_id)
        before, agent_session.mode = agent_session.mode, mode
        try:
            answer = await bridge.call_agent(
                "session/set_mode", {"sessionId": session_id, "modeId": mode}
            )
        except (asyncio.TimeoutError, ConnectionError) as exc:
            answer = {"error": {"message": f"no answer ({type(exc).__name__})"}}
        if "error" in answer:
            if agent_session.mode == mode:
                agent_session.mode = before
            warn(f"the agent did not take mode {mode!r}: {answer['error']}")
            return
        await bridge.client.notify(
            "session/update",
            {
                "sessionId": session_id,
                "update": {"sessionUpdate": "current_mode_update", "currentModeId": mode},
            },
        )
