"""Plan mode kept with the agent, in every form it offers it: a session mode `plan`, or a select
config option with a value `plan` (the profile names which, else the first that has one).

The person's `on` and `off` (any surface) set the agent's switch; the client's own switch into or
out of plan mode is the person's `on` or `off`; the agent's own switch into it is `on` (the safe
direction), and its switch out of it without an approval is undone. Where the agent's permission
modes are apart from its plan switch, plan mode also puts the agent in a mode that asks before
each edit and command (the profile's asking modes), so the guard sees them.

What the agent offers is read from the raw messages (`modes`, `configOptions`), so any version of
the ACP schema the agent speaks is understood alike.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...plan import who
from .forms import (
    MODE,
    PLAN,
    asking_mode,
    assume,
    current_options,
    in_plan,
    learn,
    out_of_plan,
    plan_switch,
    told,
    value,
)
from .methods import CANCEL, FORK, NEW, SET_CONFIG_OPTION, SET_MODE, UPDATE
from .ports import AgentCalls, AgentSessions, ModeNews, ModeStore, Replies, Spawn, StopTurn
from .state import AgentSession
from .wire import warn


class Modes:
    def __init__(
        self,
        store: ModeStore,
        sessions: AgentSessions,
        agent: AgentCalls,
        client: Replies,
        spawn: Spawn,
        news: ModeNews,
        stop_turn: StopTurn,
    ) -> None:
        """`sessions`: the agent's ACP sessions and its profile; `news`: told when the agent's
        mode may have moved, and when it approves itself and cannot be made to ask;
        `stop_turn(session_id)`: the person's `on` reached a running turn that keeps its mode,
        which is cancelled."""
        self.store = store
        self.sessions = sessions
        self.agent = agent
        self.client = client
        self.spawn = spawn
        self.news = news
        self.stop_turn = stop_turn
        # The mode the agent had in this plan session when an earlier bridge ran it (read at
        # the bridge's start): a session it continues gets it back where it asked.
        self.earlier_mode: str | None = None

    async def begin(self) -> None:
        """The bridge starts: read the mode an earlier bridge's agent had in this session."""
        earlier = await self.store.agent_status() or {}
        self.earlier_mode = earlier.get("mode") or earlier.get("last_mode")

    def learn(self, agent_session: AgentSession, result: dict) -> None:
        learn(agent_session, result)
        self.news.moved(agent_session)

    def _assume(self, agent_session: AgentSession, switch: str, to: Any) -> None:
        assume(agent_session, switch, to)
        self.news.moved(agent_session)

    # The client's requests, passed on by the caller.

    def _client_switch(self, method: str, params: Any) -> tuple | None:
        """(session id, its AgentSession, the switch, the value) of the client's set_mode or
        set_config_option, None when it names no select the bridge knows."""
        if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
            return None
        session_id = params["sessionId"]
        agent_session = self.sessions.known(session_id)
        if method == SET_MODE:
            switch, to = MODE, params.get("modeId")
        else:
            switch, to = params.get("configId"), params.get("value")
            if switch not in agent_session.options:
                return None
        if not isinstance(to, str):
            return None
        return session_id, agent_session, switch, to

    async def client_repeats(self, message: dict, method: str, params: Any) -> bool:
        """The client's set_mode or set_config_option with the value that client sent before
        (Jupyter AI sends its mode menu's value with every message): no switch, and not passed
        on. It is answered here with the agent's modes as they are, and the client is told
        them, so its menu shows the mode the agent is in. True when answered so."""
        found = self._client_switch(method, params)
        if found is None or "id" not in message:
            return False
        session_id, agent_session, switch, to = found
        if switch not in agent_session.client_sent or agent_session.client_sent[switch] != to:
            return False
        result = {} if switch == MODE else {"configOptions": current_options(agent_session)}
        await self.client.respond(message["id"], result)
        await self.tell_client(session_id)
        return True

    async def tell_client(self, session_id: str) -> None:
        """Tell the client the agent's mode and options as the bridge last heard them."""
        agent_session = self.sessions.known(session_id)
        updates = []
        if agent_session.modes and isinstance(agent_session.mode, str):
            updates.append(
                {"sessionUpdate": "current_mode_update", "currentModeId": agent_session.mode}
            )
        if agent_session.raw_options:
            options = current_options(agent_session)
            updates.append({"sessionUpdate": "config_option_update", "configOptions": options})
        for update in updates:
            await self.client.notify(UPDATE, {"sessionId": session_id, "update": update})

    async def client_sets(self, method: str, params: Any) -> tuple | None:
        """The client's session/set_mode or session/set_config_option: into plan mode it is the
        person's `on`; out of it, the person's `off`. Returns what the agent's answer undoes
        when it refuses (the switch and its value before), None when there is nothing to do."""
        found = self._client_switch(method, params)
        if found is None:
            return None
        session_id, agent_session, switch, to = found
        agent_session.client_sent[switch] = to
        was = in_plan(agent_session)
        before = value(agent_session, switch)
        self._assume(agent_session, switch, to)
        now = in_plan(agent_session)
        if was != now:
            await self._person_switched(session_id, agent_session, switch, before, now)
        return switch, before

    async def _person_switched(self, session_id, agent_session, switch, before, now) -> None:
        by = self.sessions.person(session_id)
        try:
            snapshot = await self.store.snapshot()
            if now and snapshot["mode"] != PLAN:
                restore = plan_switch(agent_session, self.sessions.profile) or switch
                agent_session.restore[restore] = before
                await self.store.on(by)
            elif not now and (
                snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None
            ):
                await self.store.off(by)
        except Exception as exc:  # noqa: BLE001 - the client's request still goes on
            warn(f"could not follow the client's {switch} ({exc})")

    def switch_answered(self, params: Any, undo: tuple | None, message: dict) -> None:
        """The agent's answer to a client's set_mode or set_config_option; `undo` is what
        `client_sets` returned for it."""
        params = params if isinstance(params, dict) else {}
        agent_session = self.sessions.known(params.get("sessionId"))
        if undo is None:
            return
        switch, before = undo
        if "error" in message:
            self._assume(agent_session, switch, before)
        elif isinstance(message.get("result"), dict):
            self.learn(agent_session, message["result"])

    def session_answered(self, method: str, params: Any, message: dict) -> None:
        """The agent's answer to a client's session request (new, load, resume, fork)."""
        params = params if isinstance(params, dict) else {}
        result = message.get("result")
        if not isinstance(result, dict):
            return
        opened = method in (NEW, FORK)  # the answer names the session
        session_id = result.get("sessionId") if opened else params.get("sessionId")
        if not isinstance(session_id, str):
            return
        self.learn(self.sessions.known(session_id), result)
        self.spawn(self.started(session_id, continued=method != NEW))

    async def started(self, session_id: str, continued: bool = False) -> None:
        """A session the client opened: its agent is put in plan mode when the session is, and
        told where its plan mode is only its own promise. A session it continues (loaded,
        resumed, forked) whose agent comes back in a mode that approves itself, where it asked
        when an earlier bridge ran it, gets that mode back: approving a plan never silently
        removes the asking, and neither does a restart of the agent."""
        profile = self.sessions.profile
        agent_session = self.sessions.known(session_id)
        can_ask = profile.session_settings is not None or asking_mode(agent_session, profile)
        if not can_ask and agent_session.mode in profile.approves_itself:
            await self.news.unenforced(agent_session.mode)
        try:
            in_plan_mode = (await self.store.snapshot())["mode"] == PLAN
        except Exception as exc:  # noqa: BLE001 - the session goes on as it is
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return
        if in_plan_mode:
            await self.hold(session_id)
        elif continued and self._asked_before(agent_session):
            await self.set(session_id, MODE, self.earlier_mode)

    def _asked_before(self, agent_session: AgentSession) -> bool:
        profile, earlier = self.sessions.profile, self.earlier_mode
        return (
            earlier is not None
            and earlier in agent_session.modes
            and agent_session.mode != earlier
            and agent_session.mode in profile.approves_itself
            and earlier not in profile.approves_itself
        )

    async def agent_update(self, session_id: str, update: dict) -> None:
        """The agent's current_mode_update or config_option_update."""
        profile = self.sessions.profile
        agent_session = self.sessions.known(session_id)
        was = in_plan(agent_session)
        asking_before = agent_session.mode
        switch = plan_switch(agent_session, profile)
        before = None if switch is None else value(agent_session, switch)
        if update.get("sessionUpdate") == "current_mode_update":
            mode = update.get("currentModeId")
            if isinstance(mode, str):
                self._assume(agent_session, MODE, mode)
        else:
            self.learn(agent_session, update)
        if agent_session.setting:
            # An echo of the bridge's own change in flight, or the agent's own move meanwhile:
            # that one is undone once the bridge's change is answered (see `set`).
            for switch_set, to in agent_session.setting:
                said = told(update, switch_set, agent_session)
                if said is not None and said != to:
                    agent_session.strayed[switch_set] = to
            return
        now = in_plan(agent_session)
        asking = asking_mode(agent_session, profile)
        if was == now and (asking is None or agent_session.mode == asking_before):
            return
        try:
            snapshot = await self.store.snapshot()
        except Exception as exc:  # noqa: BLE001 - the update still went on
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return
        holds = snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None
        if now and not was and snapshot["mode"] != PLAN:
            # The agent entered plan mode by itself: the safe direction, the person's `on`.
            if switch is not None:
                agent_session.restore.setdefault(switch, before)
            try:
                await self.store.on(who.agent())
            except Exception as exc:  # noqa: BLE001
                warn(f"could not follow the agent into plan mode ({type(exc).__name__}: {exc})")
        elif holds:
            # Out of plan mode, or out of the mode that asks, with no approval: back again.
            await self.hold(session_id)

    # The person's decisions, from any surface.

    async def session_mode_changed(self, mode: str, approved: bool) -> None:
        """The session's mode after a batch of its events: `plan` is the person's `on`;
        `default` is the person's `off` unless an approval made it."""
        for session_id, agent_session in self.sessions.items():
            if mode == PLAN:
                await self.hold(session_id)
                if (
                    self.sessions.profile.modes_next_turn
                    and agent_session.prompts
                    and agent_session.guarded_turn is False
                ):
                    # Its running turn keeps the mode it began in, which does not ask.
                    self.stop_turn(session_id)
                    await self.agent.notify(CANCEL, {"sessionId": session_id})
            elif not approved:
                if agent_session.prompts and in_plan(agent_session):
                    await self.agent.notify(CANCEL, {"sessionId": session_id})
                await self.release(session_id)

    async def hold(self, session_id: str) -> None:
        """Put the agent in plan mode, and in the mode that asks where that is apart."""
        profile = self.sessions.profile
        agent_session = self.sessions.known(session_id)
        switch = plan_switch(agent_session, profile)
        if switch is not None and not in_plan(agent_session):
            agent_session.restore.setdefault(switch, value(agent_session, switch))
            self._change(session_id, switch, PLAN)
        asking = asking_mode(agent_session, profile)
        if asking is not None and agent_session.mode != asking:
            agent_session.restore.setdefault(MODE, agent_session.mode)
            self._change(session_id, MODE, asking)

    async def _set_again(self, session_id: str, strayed: dict[str, Any]) -> None:
        """The agent said other values of switches while the bridge set them: a move of its own,
        or an echo of the state before a set it took (an agent may tell its permission mode as
        it was when its plan switch changes). What it said last holds; plan mode, where the
        session holds it, is set again, and out of it what the bridge set is."""
        try:
            snapshot = await self.store.snapshot()
        except Exception as exc:  # noqa: BLE001 - the next update is checked again
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return
        if snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None:
            await self.hold(session_id)
            return
        agent_session = self.sessions.known(session_id)
        if in_plan(agent_session):
            return  # the agent went into plan mode itself: the safe direction, left as it is
        for switch, to in strayed.items():
            if value(agent_session, switch) != to:
                self._change(session_id, switch, to)

    async def release(self, session_id: str) -> None:
        """Give the agent back the values it had before plan mode."""
        agent_session = self.sessions.known(session_id)
        restore, agent_session.restore = agent_session.restore, {}
        switch = plan_switch(agent_session, self.sessions.profile)
        to = restore.pop(switch, None)
        if switch is not None and in_plan(agent_session):
            if to in (None, PLAN):
                to = out_of_plan(agent_session, switch)
            if to is not None:
                self._change(session_id, switch, to)
        for other, was in restore.items():
            if isinstance(was, str) and value(agent_session, other) != was:
                self._change(session_id, other, was)

    async def ready(self, session_id: str) -> None:
        """Before a prompt goes to the agent: where the session is in plan mode (or awaits the
        person's answer to a proposal), the agent is put in plan mode and in the mode that asks,
        and the bridge's changes of its switches are answered. A turn that began before the
        agent took the mode that asks would run its first edits unasked. No wait comes after
        this before the prompt goes: the turn is known to begin guarded or not."""
        agent_session = self.sessions.known(session_id)
        agent_session.guarded_turn = None  # being decided: an `on` meanwhile is waited for
        try:
            snapshot = await self.store.snapshot()
        except Exception as exc:  # noqa: BLE001 - the prompt still goes
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            snapshot = {"mode": None, "pending_proposal_hash": None}
        if snapshot["mode"] == PLAN or snapshot["pending_proposal_hash"] is not None:
            await self.hold(session_id)
        while agent_session.changes:
            await asyncio.wait(set(agent_session.changes))
        asking = asking_mode(agent_session, self.sessions.profile)
        agent_session.guarded_turn = in_plan(agent_session) and asking in (None, agent_session.mode)

    def _change(self, session_id: str, switch: str, to: str) -> None:
        """Set the agent's SWITCH to TO on a task of its own, which `ready` waits for."""
        task = asyncio.ensure_future(self.set(session_id, switch, to))
        changes = self.sessions.known(session_id).changes
        changes.add(task)
        task.add_done_callback(changes.discard)
        self.spawn(task)

    async def set(self, session_id: str, switch: str, to: str) -> None:
        """Set the agent's mode or config option, and tell the client where it is now."""
        agent_session = self.sessions.known(session_id)
        before = value(agent_session, switch)
        self._assume(agent_session, switch, to)
        if switch == MODE:
            method, params = SET_MODE, {"sessionId": session_id, "modeId": to}
        else:
            method = SET_CONFIG_OPTION
            params = {"sessionId": session_id, "configId": switch, "value": to}
        in_flight = (switch, to)
        agent_session.setting.append(in_flight)
        try:
            answer = await self.agent.call(method, params)
        except (TimeoutError, ConnectionError) as exc:
            answer = {"error": {"message": f"no answer ({type(exc).__name__})"}}
        finally:
            agent_session.setting.remove(in_flight)
        if agent_session.strayed and not agent_session.setting:
            strayed, agent_session.strayed = agent_session.strayed, {}
            self.spawn(self._set_again(session_id, strayed))
        if "error" in answer:
            if value(agent_session, switch) == to:
                self._assume(agent_session, switch, before)
            warn(f"the agent did not take {switch.lstrip('@')} {to!r}: {answer['error']}")
            return
        result = answer.get("result")
        if switch == MODE:
            update = {"sessionUpdate": "current_mode_update", "currentModeId": to}
        elif isinstance(result, dict) and isinstance(result.get("configOptions"), list):
            self.learn(agent_session, result)
            update = {
                "sessionUpdate": "config_option_update",
                "configOptions": result["configOptions"],
            }
        else:
            return
        await self.client.notify(UPDATE, {"sessionId": session_id, "update": update})
