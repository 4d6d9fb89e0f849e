"""The bridge: an ACP agent to its client and an ACP client to its agent, passing every message
on as it came except those DESIGN section 10 names, which it reads, answers or extends.

The bridge routes messages by tables keyed on their ACP methods (`methods`); its helpers keep
the rules (`modes`, `guard`, `proposals`, `plans`, `followup`, `status`), each made here with
the narrow ports it needs (`ports`). What differs between agents is the agent's profile
(`profiles`), chosen from its `initialize` answer.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .calls import OwnCalls
from .followup import STOPPED, FollowUps
from .guard import Guard, read_permission_request
from .methods import (
    CANCEL,
    CREATE_TERMINAL,
    INITIALIZE,
    NEW,
    PROMPT,
    REQUEST_PERMISSION,
    SESSION_STARTS,
    SET_CONFIG_OPTION,
    SET_MODE,
    UPDATE,
    WRITE_TEXT_FILE,
)
from .mirror import PlanMirror
from .modes import Modes
from .plans import BridgedSession
from .proposals import Proposals
from .settings import hook_command, with_guard
from .state import AgentSession, Known, Sessions
from .status import AgentStatus
from .told import tell
from .watch import DecisionWatch
from .wire import PERSON_METHOD, Peer, encode, id_key, warn

if TYPE_CHECKING:
    from ...session import PlanSession

# Reads what a message holds and passes on the line it came as (or what the bridge made of it).
Route = Callable[[dict, bytes], Awaitable[None]]
# Reads a client's message: the line to pass on to the agent, None when answered here.
ClientRoute = Callable[[dict, Any, bytes], Awaitable[bytes | None]]


class Bridge:
    def __init__(
        self, session: PlanSession, agent: Peer, client: Peer, where: str | None = None
    ) -> None:
        self.where = where  # the plan file or URL, for the hooks the agent runs
        self.agent = agent
        self.client = client
        self.known = Known()
        self.plans = BridgedSession(session)
        self.recorder = self.plans.recorder
        self.sessions = Sessions(self.known)
        self.mirror = PlanMirror()
        self.own = OwnCalls(agent)
        self.status = AgentStatus(self.plans, self.known)
        self.follow_ups = FollowUps(
            self.own,
            self.spawn,
            self._finish_turn,
            self._follow_ups_stopped,
            lambda session_id: self.modes.ready(session_id),
        )
        self.guard = Guard(self.plans, agent, client, self.known, self.follow_ups.refused)
        self.proposals = Proposals(
            self.plans, agent, client, self.known, self.mirror, self.sessions.person
        )
        self.modes = Modes(
            self.plans, self.sessions, self.own, client, self.spawn, self.status, self._stop_turn
        )
        self.watch = DecisionWatch(
            session.store, self.plans, self.proposals, self.modes, self._cancel_turns
        )
        # The routes, by the message's method: the agent's requests and notifications, and
        # the client's. A method no table names is passed on as it came.
        guarded = {WRITE_TEXT_FILE: self._guarded, CREATE_TERMINAL: self._guarded}
        self._agent_requests: dict[str, Route] = {REQUEST_PERMISSION: self._permission, **guarded}
        self._agent_notices: dict[str, Route] = {UPDATE: self._update, **guarded}
        self._client_notices: dict[str, ClientRoute] = {
            PERSON_METHOD: self._person,
            CANCEL: self._cancel,
        }
        self._client_requests: dict[str, ClientRoute] = {
            **self._client_notices,
            INITIALIZE: self._initialize,
            PROMPT: self._prompt,
            SET_MODE: self._switch,
            SET_CONFIG_OPTION: self._switch,
            **dict.fromkeys(SESSION_STARTS, self._session_request),
        }
        # The client's requests whose answer from the agent the bridge reads: the reader of each.
        self._client_calls: dict[str, Route] = {}
        self._tasks: set[asyncio.Task] = set()
        self._stop = asyncio.Event()
        self.started = 0  # ACP sessions the agent opened
        self.failed: str | None = None  # why the agent's first session failed to start

    def stop(self) -> None:
        """End the relay (a signal to stop): `run` returns, and cleans up as for a close."""
        self._stop.set()

    def spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> str:
        """Relay until one side closes, or the agent's first session fails to start; returns
        which ended it: "client" or "agent"."""
        snapshot = await self.plans.start()
        self.mirror.seed(snapshot["plan"]["steps"] if snapshot["plan"] else None)
        await self.modes.begin()
        loops = {
            asyncio.ensure_future(self._relay(self.client, self._from_client)): "client",
            asyncio.ensure_future(self._relay(self.agent, self._from_agent)): "agent",
            asyncio.ensure_future(self._stop.wait()): "agent",
        }
        watcher = asyncio.ensure_future(self.watch.run(snapshot["cursor"]))
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_COMPLETED)
            return loops[next(iter(done))]
        finally:
            for task in [*loops, watcher, *self._tasks]:
                task.cancel()
            self.own.cancel()
            await self.proposals.withdraw()
            await self.recorder.close()
            await self.status.ended()
            self.plans.close()

    async def _relay(self, peer: Peer, handle) -> None:
        async for message, line in peer.messages():
            try:
                await handle(message, line)
            except Exception as exc:  # noqa: BLE001 - one message must not stop the bridge
                warn(f"a message from the {peer.name} failed here ({type(exc).__name__}: {exc})")

    # The agent's messages.

    async def _from_agent(self, message: dict | None, line: bytes) -> None:
        if message is None:
            if not await self.guard.batch(line):
                await self.client.send_line(line)
            return
        method = message.get("method")
        if method is None:
            if "id" in message:
                await self._agent_answered(message, line)
            else:
                await self.client.send_line(line)
            return
        routes = self._agent_notices
        if "id" in message:
            # JSON-RPC lets a peer use an id again once it was answered.
            self.proposals.forget(message["id"])
            routes = self._agent_requests
        route = routes.get(method) if isinstance(method, str) else None
        await (route or self._to_client)(message, line)

    async def _to_client(self, message: dict, line: bytes) -> None:
        await self.client.send_line(line)

    async def _agent_answered(self, message: dict, line: bytes) -> None:
        key = id_key(message.get("id"))
        if self.own.answered(key, message):
            return
        read = self._client_calls.pop(key, None)
        await (read or self._to_client)(message, line)

    async def _answer_read(self, line: bytes) -> None:
        """Pass on the agent's answer the bridge read (the agent stops where its first session
        failed to start)."""
        await self.client.send_line(line)
        if self.failed is not None:
            self._stop.set()

    async def _turn_answered(self, key: str, session_id: Any, message: dict, line: bytes) -> None:
        await self.recorder.flush()  # a turn ends with its plan recorded
        if not self.follow_ups.hold(key, session_id, message):
            await self._finish_turn(key, session_id, message, line)

    async def _introduced(self, message: dict, line: bytes) -> None:
        self.known.introduced(message.get("result"))
        self.guard.heartbeat.introduced(message.get("result"))
        await self._answer_read(line)

    async def _switched(self, params: Any, undo: Any, message: dict, line: bytes) -> None:
        self.modes.switch_answered(params, undo, message)
        await self._answer_read(line)

    async def _session_answered(self, method: str, params: Any, message: dict, line: bytes):
        """The agent's session: its modes known and its status recorded before the client
        hears of it (so what the client does next comes after them in the history)."""
        if "error" in message:
            if method == NEW and self.started == 0:
                self._first_session_failed(message["error"])
        else:
            self.started += 1
            self.modes.session_answered(method, params, message)
            self.status.engaged()  # an agent that offers no modes is engaged too
            await self.status.settled()
        await self._answer_read(line)

    def _first_session_failed(self, error: Any) -> None:
        """The agent could not start a session and runs none: it and the bridge stop, as
        nothing can come of them (the client got the error)."""
        said = error.get("message") if isinstance(error, dict) else None
        data = error.get("data") if isinstance(error, dict) else None
        if isinstance(data, (dict, list)):
            data = json.dumps(data, ensure_ascii=False)
        reason = " ".join(str(part) for part in (said, data) if part)
        self.failed = " ".join(reason.split())[:300] or "no reason given"
        warn(
            f"{self.known.profile.name} could not start a session ({self.failed}); the agent "
            "and the bridge stop"
        )

    async def _finish_turn(
        self, key: str, session_id: Any, answer: dict, line: bytes | None = None
    ) -> None:
        """Answer the client's prompt `key` with the agent's answer: the turn is over (and
        recorded so before the client hears it)."""
        if line is None:  # an answer to the bridge's own follow-up, as the client's
            reply = {k: v for k, v in answer.items() if k in ("result", "error")}
            line = encode({"jsonrpc": "2.0", "id": json.loads(key), **reply})
        self.sessions.known(session_id).prompts.discard(key)
        self.status.working(self.sessions.running())
        await self.status.settled()
        await self.client.send_line(line)

    async def _follow_ups_stopped(self, session_id: str, why: str, tool_call_id: Any) -> None:
        """The turn ends with its refusals: said in the chat (the last refused call's update)
        and on the card (the agent's status), before the client hears the turn is over."""
        self.status.stopped(why)
        await tell(self.client, session_id, tool_call_id, "failed", why)

    async def _update(self, message: dict, line: bytes) -> None:
        """Pass the update on, then record what it tells: the agent's plan, and its modes and
        options (passed on first: recording it may wait)."""
        await self.client.send_line(line)
        params = message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        if not isinstance(update, dict) or not isinstance(params.get("sessionId"), str):
            return
        session_id, kind = params["sessionId"], update.get("sessionUpdate")
        if kind in ("current_mode_update", "config_option_update"):
            await self.modes.agent_update(session_id, update)
            return
        if kind == "plan":
            entries = update.get("entries")
        elif kind == "plan_update" and isinstance(update.get("plan"), dict):
            plan = update["plan"]
            entries = plan.get("entries") if plan.get("type") == "items" else None
        else:
            return
        if not isinstance(entries, list):
            return
        self.recorder.record(session_id, *self.mirror.adapt(entries))

    async def _guarded(self, message: dict, line: bytes) -> None:
        if not await self.guard.call(message):
            await self.client.send_line(line)

    async def _permission(self, message: dict, line: bytes) -> None:
        request = read_permission_request(message.get("params"))
        if request is None:
            if not await self.guard.unreadable(message):
                await self.client.send_line(line)
            return
        if await self.guard.permission(message, request):
            return
        if request.tool_call.kind == "switch_mode" and await self.plans.in_plan_mode():
            await self.proposals.open(message, request)
        await self.client.send_line(line)

    # The client's messages.

    async def _from_client(self, message: dict | None, line: bytes) -> None:
        method = None if message is None else message.get("method")
        if message is None or (method is None and "id" not in message):
            await self.agent.send_line(line)
            return
        if method is None:
            if not await self.proposals.client_answered(message, line):
                await self.agent.send_line(line)
            return
        routes = self._client_requests if "id" in message else self._client_notices
        route = routes.get(method) if isinstance(method, str) else None
        if route is not None:
            line = await route(message, message.get("params"), line)
        if line is not None:
            await self.agent.send_line(line)

    async def _person(self, message: dict, params: Any, line: bytes) -> None:
        """The client names the person at it for a session (Jupyter AI's persona: the sender
        of the chat's message), whose answers there are that person's decisions. It goes to
        no agent."""
        if isinstance(params, dict) and isinstance(params.get("sessionId"), str):
            name, display = params.get("name"), params.get("display")
            known = self.sessions.known(params["sessionId"])
            known.person = name if isinstance(name, str) else None
            known.display = display if isinstance(display, str) else None
        if "id" in message:
            await self.client.respond(message["id"], {})

    async def _cancel(self, message: dict, params: Any, line: bytes) -> bytes:
        if isinstance(params, dict):
            self.follow_ups.cancelled(params.get("sessionId"))
        return line

    async def _initialize(self, message: dict, params: Any, line: bytes) -> bytes:
        self.track(message, self._introduced)
        return line

    async def _switch(self, message: dict, params: Any, line: bytes) -> bytes | None:
        method = message["method"]
        if await self.modes.client_repeats(message, method, params):
            return None  # the value the client sent before: no switch, answered here
        undo = await self.modes.client_sets(method, params)
        self.track(message, functools.partial(self._switched, params, undo))
        return line

    async def _session_request(self, message: dict, params: Any, line: bytes) -> bytes:
        """A session request, with the guard's hook in the settings the agent takes at session
        start (where its profile says it takes them)."""
        self.track(message, functools.partial(self._session_answered, message["method"], params))
        settings = self.known.profile.session_settings
        if settings is None or self.where is None or not isinstance(params, dict):
            return line
        command = hook_command(settings["hook"], self.where, self.plans.session_id)
        guarded = with_guard(params, settings, command)
        return line if guarded is None else encode({**message, "params": guarded})

    async def _prompt(self, message: dict, params: Any, line: bytes) -> bytes:
        """Open the prompt with the person's queued words and, on a session's first prompt,
        the plan's context block."""
        if not isinstance(params, dict):
            return line
        key, session_id = id_key(message["id"]), params.get("sessionId")
        agent_session = self.sessions.known(session_id)
        agent_session.prompts.add(key)
        self.follow_ups.turn_started(session_id)
        self.status.working(True)
        self.track(message, functools.partial(self._turn_answered, key, session_id))
        line = await self._opened(message, params, line, agent_session)
        # The last wait before the prompt goes: the agent has taken plan mode where it holds.
        await self.modes.ready(session_id)
        return line

    async def _opened(
        self, message: dict, params: dict, line: bytes, agent_session: AgentSession
    ) -> bytes:
        """The prompt, opened with the blocks it takes."""
        first = not agent_session.prompted
        agent_session.prompted = True
        prompt = params.get("prompt")
        if not isinstance(prompt, list):
            return line
        try:
            blocks = await self.plans.opening_blocks(first, self.proposals.told())
        except Exception as exc:  # noqa: BLE001 - the prompt still goes, without them
            warn(f"could not read the session for the prompt ({type(exc).__name__}: {exc})")
            return line
        if not blocks:
            return line
        return encode({**message, "params": {**params, "prompt": [*blocks, *prompt]}})

    def _stop_turn(self, session_id: str) -> None:
        """The person's `on` reached a turn that keeps the mode it began in: the turn is
        cancelled, and its end followed up in plan mode with the guard's words."""
        warn(
            "plan mode went on while the agent's turn ran, which keeps the mode it began in: "
            "the turn is stopped and followed up in plan mode"
        )
        self.follow_ups.refused(session_id, STOPPED)

    def _cancel_turns(self) -> None:
        """The person's off cancels the running turns: no follow-up goes after them."""
        for session_id, _ in self.sessions.items():
            self.follow_ups.cancelled(session_id)

    def track(self, message: dict, read: Route) -> None:
        """Keep a client's request whose answer from the agent the bridge reads (with `read`,
        which passes it on)."""
        self._client_calls[id_key(message["id"])] = read
