"""Plan mode kept with the agent, in every form it offers it: a session mode `plan`, or a select
config option with a value `plan` (Claude Code's `mode`, Codex's `collaboration_mode`).

The person's `on` and `off` (any surface) set the agent's switch; the client's own switch into or
out of plan mode is the person's `on` or `off`; the agent's own switch into it is `on` (the safe
direction), and its switch out of it without an approval is undone. Where the agent's permission
modes are apart from its plan switch (Codex), plan mode also puts the agent in a mode that asks
before each edit and command, so the guard sees them.

What the agent offers is read from the raw messages (`modes`, `configOptions`), so any version of
the ACP schema the agent speaks is understood alike.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...plan import who
from .claude import offers_settings
from .text import clean, cut, is_blank
from .wire import warn

if TYPE_CHECKING:
    from .bridge import AgentSession, Bridge

PLAN = "plan"
DEFAULT = "default"
MODE = "@mode"  # the switch that is the session mode, beside config option ids
# Modes in which the agent asks before each edit and command (Codex's read-only).
ASKING_MODES = ("read-only",)
# Modes in which an agent approves its own edits or commands.
SELF_APPROVING = ("auto", "agent", "agent-full-access", "bypassPermissions", "dontAsk")


@dataclass
class Select:
    values: tuple[str, ...]
    current: Any


def read_modes(raw: Any) -> tuple[tuple[str, ...], Any] | None:
    """(the mode ids, the current one) of a `modes` object, or None when it is not one."""
    if not isinstance(raw, dict) or not isinstance(raw.get("availableModes"), list):
        return None
    ids = tuple(
        mode["id"]
        for mode in raw["availableModes"]
        if isinstance(mode, dict) and isinstance(mode.get("id"), str)
    )
    return ids, raw.get("currentModeId")


def read_options(raw: Any) -> dict[str, Select] | None:
    """The select config options of a `configOptions` list by id, or None when it is not one."""
    if not isinstance(raw, list):
        return None
    found = {}
    for option in raw:
        if not isinstance(option, dict) or option.get("type") != "select":
            continue
        if not isinstance(option.get("id"), str) or not isinstance(option.get("options"), list):
            continue
        values = []
        for choice in option["options"]:  # values, or groups of values
            inner = choice.get("options") if isinstance(choice, dict) else None
            for value in inner if isinstance(inner, list) else [choice]:
                if isinstance(value, dict) and isinstance(value.get("value"), str):
                    values.append(value["value"])
        found[option["id"]] = Select(tuple(values), option.get("currentValue"))
    return found


def plan_switch(agent_session: AgentSession) -> str | None:
    """The switch to plan mode: a config option with a value `plan`, else the session mode
    (MODE), else None when the agent offers no plan mode."""
    for option_id, select in agent_session.options.items():
        if PLAN in select.values:
            return option_id
    return MODE if PLAN in agent_session.modes else None


def in_plan(agent_session: AgentSession) -> bool:
    if agent_session.mode == PLAN:
        return True
    return any(
        PLAN in select.values and select.current == PLAN
        for select in agent_session.options.values()
    )


def asking_mode(agent_session: AgentSession) -> str | None:
    """The mode that makes the agent ask, where its permission modes are apart from plan mode."""
    if PLAN in agent_session.modes:
        return None
    return next((mode for mode in ASKING_MODES if mode in agent_session.modes), None)


def approves_itself(agent_session: AgentSession) -> bool:
    """True when the agent starts in a mode that approves its own edits or commands."""
    return agent_session.mode in SELF_APPROVING


class Modes:
    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def learn(self, agent_session: AgentSession, result: dict) -> None:
        """Take what a result or an update says of the agent's modes and config options."""
        modes = read_modes(result.get("modes"))
        if modes is not None:
            agent_session.modes = modes[0]
            self._assume(agent_session, MODE, modes[1])
        options = read_options(result.get("configOptions"))
        if options is not None:
            agent_session.options = options
            mirror = _mirror(agent_session)
            if mirror is not None:
                agent_session.mode = options[mirror].current

    def _value(self, agent_session: AgentSession, switch: str) -> Any:
        if switch == MODE:
            return agent_session.mode
        select = agent_session.options.get(switch)
        return None if select is None else select.current

    def _assume(self, agent_session: AgentSession, switch: str, value: Any) -> None:
        """Known at once, before the agent answers, so its echo is not taken for its own act.
        The session mode and the config option that mirrors it (both agents offer one) move
        together, whichever of them the agent tells."""
        mirror = _mirror(agent_session)
        if switch in (MODE, mirror):
            agent_session.mode = value
            switch = mirror
        if switch in agent_session.options:
            agent_session.options[switch].current = value

    # The client's requests, passed on by the caller.

    async def client_sets(self, key: str, method: str, params: Any) -> None:
        """The client's session/set_mode or session/set_config_option: into plan mode it is the
        person's `on`; out of it, the person's `off`."""
        if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
            return
        bridge = self.bridge
        agent_session = bridge.known(params["sessionId"])
        if method == "session/set_mode":
            switch, value = MODE, params.get("modeId")
        else:
            switch, value = params.get("configId"), params.get("value")
            if switch not in agent_session.options:
                return
        if not isinstance(value, str):
            return
        was = in_plan(agent_session)
        before = self._value(agent_session, switch)
        self._assume(agent_session, switch, value)
        bridge.track(key, method, params, (switch, before))
        now = in_plan(agent_session)
        if was == now:
            return
        session = bridge.session
        try:
            snapshot = await bridge.db(session.snapshot_data)
            if now and snapshot["mode"] != PLAN:
                agent_session.restore[plan_switch(agent_session) or switch] = before
                await bridge.db(session.on, who.person(None, "acp-client"))
            elif not now and (
                snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None
            ):
                await bridge.db(session.off, who.person(None, "acp-client"))
        except Exception as exc:  # noqa: BLE001 - the client's request still goes on
            warn(f"could not follow the client's {switch} {value!r} ({exc})")

    async def agent_answered(self, key: str, call: tuple, message: dict) -> None:
        """The agent's answer to a client request the bridge keeps track of."""
        method, params, extra = call
        params = params if isinstance(params, dict) else {}
        bridge = self.bridge
        if method == "session/prompt":
            bridge.known(params.get("sessionId")).prompts.discard(key)
            return
        if method == "initialize":
            result = message.get("result")
            bridge.claude_code = offers_settings(result)
            info = result.get("agentInfo") if isinstance(result, dict) else None
            name = info.get("name") if isinstance(info, dict) else None
            if isinstance(name, str) and not is_blank(clean(name)):
                bridge.agent_name = cut(clean(name), 80)
            bridge.agent_version = info.get("version") if isinstance(info, dict) else None
            return
        if method in ("session/set_mode", "session/set_config_option"):
            agent_session = bridge.known(params.get("sessionId"))
            switch, before = extra
            if "error" in message:
                self._assume(agent_session, switch, before)
            elif isinstance(message.get("result"), dict):
                self.learn(agent_session, message["result"])
            return
        result = message.get("result")
        if not isinstance(result, dict):
            return
        session_id = (
            result.get("sessionId")
            if method in ("session/new", "session/fork")
            else params.get("sessionId")
        )
        if not isinstance(session_id, str):
            return
        agent_session = bridge.known(session_id)
        self.learn(agent_session, result)
        bridge.spawn(self.started(session_id))

    async def started(self, session_id: str) -> None:
        """A session the client opened: its agent is put in plan mode when the session is, and
        told where its plan mode is only its own promise."""
        bridge = self.bridge
        agent_session = bridge.known(session_id)
        if not (bridge.claude_code or asking_mode(agent_session)) and approves_itself(
            agent_session
        ):
            await bridge.guard.unenforced(agent_session.mode)
        if await bridge.in_plan_mode():
            await self.hold(session_id)

    async def agent_update(self, session_id: str, update: dict) -> None:
        """The agent's current_mode_update or config_option_update."""
        bridge = self.bridge
        agent_session = bridge.known(session_id)
        was = in_plan(agent_session)
        asking_before = agent_session.mode
        switch = plan_switch(agent_session)
        before = None if switch is None else self._value(agent_session, switch)
        if update.get("sessionUpdate") == "current_mode_update":
            mode = update.get("currentModeId")
            if isinstance(mode, str):
                self._assume(agent_session, MODE, mode)
        else:
            self.learn(agent_session, update)
        if agent_session.setting:
            return  # an echo of the bridge's own change, which may be late
        now = in_plan(agent_session)
        asking = asking_mode(agent_session)
        if was == now and (asking is None or agent_session.mode == asking_before):
            return
        try:
            snapshot = await bridge.db(bridge.session.snapshot_data)
        except Exception as exc:  # noqa: BLE001 - the update still went on
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return
        holds = snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None
        if now and not was and snapshot["mode"] != PLAN:
            # The agent entered plan mode by itself: the safe direction, the person's `on`.
            if switch is not None:
                agent_session.restore.setdefault(switch, before)
            try:
                await bridge.db(bridge.session.on, who.agent())
            except Exception as exc:  # noqa: BLE001
                warn(f"could not follow the agent into plan mode ({type(exc).__name__}: {exc})")
        elif holds:
            # Out of plan mode, or out of the mode that asks, with no approval: back again.
            await self.hold(session_id)

    # The person's decisions, from any surface.

    async def session_mode_changed(self, mode: str, approved: bool) -> None:
        """The session's mode after a batch of its events: `plan` is the person's `on`;
        `default` is the person's `off` unless an approval made it."""
        bridge = self.bridge
        for session_id, agent_session in list(bridge.sessions.items()):
            if mode == PLAN:
                await self.hold(session_id)
            elif not approved:
                if agent_session.prompts and in_plan(agent_session):
                    await bridge.agent.notify("session/cancel", {"sessionId": session_id})
                await self.release(session_id)

    async def hold(self, session_id: str) -> None:
        """Put the agent in plan mode, and in the mode that asks where that is apart."""
        agent_session = self.bridge.known(session_id)
        switch = plan_switch(agent_session)
        if switch is not None and not in_plan(agent_session):
            agent_session.restore.setdefault(switch, self._value(agent_session, switch))
            self.bridge.spawn(self.set(session_id, switch, PLAN))
        asking = asking_mode(agent_session)
        if asking is not None and agent_session.mode != asking:
            agent_session.restore.setdefault(MODE, agent_session.mode)
            self.bridge.spawn(self.set(session_id, MODE, asking))

    async def release(self, session_id: str) -> None:
        """Give the agent back the values it had before plan mode."""
        agent_session = self.bridge.known(session_id)
        restore, agent_session.restore = agent_session.restore, {}
        switch = plan_switch(agent_session)
        value = restore.pop(switch, None)
        if switch is not None and in_plan(agent_session):
            if value in (None, PLAN):
                value = _out_of_plan(agent_session, switch)
            if value is not None:
                self.bridge.spawn(self.set(session_id, switch, value))
        for other, value in restore.items():
            if isinstance(value, str) and self._value(agent_session, other) != value:
                self.bridge.spawn(self.set(session_id, other, value))

    async def set(self, session_id: str, switch: str, value: str) -> None:
        """Set the agent's mode or config option, and tell the client where it is now."""
        bridge = self.bridge
        agent_session = bridge.known(session_id)
        before = self._value(agent_session, switch)
        self._assume(agent_session, switch, value)
        if switch == MODE:
            method, params = "session/set_mode", {"sessionId": session_id, "modeId": value}
        else:
            method = "session/set_config_option"
            params = {"sessionId": session_id, "configId": switch, "value": value}
        agent_session.setting += 1
        try:
            answer = await bridge.call_agent(method, params)
        except (asyncio.TimeoutError, ConnectionError) as exc:
            answer = {"error": {"message": f"no answer ({type(exc).__name__})"}}
        finally:
            agent_session.setting -= 1
        if "error" in answer:
            if self._value(agent_session, switch) == value:
                self._assume(agent_session, switch, before)
            warn(f"the agent did not take {switch.lstrip('@')} {value!r}: {answer['error']}")
            return
        result = answer.get("result")
        if switch == MODE:
            update = {"sessionUpdate": "current_mode_update", "currentModeId": value}
        elif isinstance(result, dict) and isinstance(result.get("configOptions"), list):
            self.learn(agent_session, result)
            update = {
                "sessionUpdate": "config_option_update",
                "configOptions": result["configOptions"],
            }
        else:
            return
        await bridge.client.notify("session/update", {"sessionId": session_id, "update": update})


def _mirror(agent_session: AgentSession) -> str | None:
    """The config option that mirrors the session modes (same values), if one does."""
    if not agent_session.modes:
        return None
    modes = set(agent_session.modes)
    return next(
        (key for key, select in agent_session.options.items() if set(select.values) == modes),
        None,
    )


def _out_of_plan(agent_session: AgentSession, switch: str) -> str | None:
    values = agent_session.modes if switch == MODE else agent_session.options[switch].values
    if DEFAULT in values:
        return DEFAULT
    return next((value for value in values if value != PLAN), None)
