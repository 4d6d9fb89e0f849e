"""The bridge: an ACP agent to its client and an ACP client to its agent, passing every message
on as it came except those DESIGN section 10 names, which it reads, answers or extends.

The bridge routes messages; its helpers keep the rules (`modes`, `guard`, `proposals`,
`recorder`, `followup`, `status`), each taking the narrow ports it needs (`ports`). What differs
between agents is the agent's profile (`profiles`), chosen from its `initialize` answer.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from typing import TYPE_CHECKING, Any

from .followup import FollowUps
from .guard import GUARDED_METHODS, Guard, read_permission_request
from .mirror import PlanMirror
from .modes import Modes
from .plans import BridgedSession
from .profiles import choose
from .proposals import Proposals
from .recorder import PlanRecorder
from .settings import hook_command, with_guard
from .state import Known, Sessions
from .status import AgentStatus
from .told import tell
from .watch import DecisionWatch
from .wire import PERSON_METHOD, Peer, encode, id_key, warn

if TYPE_CHECKING:
    from ...session import PlanSession

SESSION_METHODS = ("session/new", "session/load", "session/resume", "session/fork")
OWN_CALL_TIMEOUT = 30.0


class Bridge:
    def __init__(
        self, session: PlanSession, agent: Peer, client: Peer, where: str | None = None
    ) -> None:
        self.where = where  # the plan file or URL, for the hooks the agent runs
        self.agent = agent
        self.client = client
        self.known = Known()
        self.plans = BridgedSession(session)
        self.sessions = Sessions()
        self.mirror = PlanMirror()
        self.recorder = PlanRecorder(self.mirror.adapt, self.plans)
        self.plans.plans_sent = self.recorder.flush
        self.status = AgentStatus(self.plans.record_status, self.known)
        self.follow_ups = FollowUps(
            self.call_agent, self.spawn, self._finish_turn, self._follow_ups_stopped
        )
        self.guard = Guard(self.plans, agent, client, self.known, self.follow_ups.refused)
        self.proposals = Proposals(
            self.plans,
            agent,
            client,
            self.known,
            self.mirror,
            self.recorder.flush,
            self.sessions.person,
        )
        self.modes = Modes(
            self.plans,
            self.sessions,
            self.known,
            self.call_agent,
            agent,
            client,
            self.spawn,
            self.guard.unenforced,
            self.status.moved,
        )
        self.watch = DecisionWatch(
            session.store,
            self.plans.cursor,
            self.plans.events,
            self.proposals,
            self.modes,
            self._cancel_turns,
        )
        self._client_calls: dict[str, tuple[str, Any, Any]] = {}  # method, params, extra
        self._own_calls: dict[str, asyncio.Future] = {}
        self._prefix = f"jupyter-plans-{uuid.uuid4().hex[:8]}"  # of the bridge's own requests
        self._own_numbers = itertools.count(1)
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
        snapshot = await self.plans.snapshot()
        self.mirror.seed(snapshot["plan"]["steps"] if snapshot["plan"] else None)
        earlier = await self.plans.agent_status() or {}
        self.modes.earlier_mode = earlier.get("mode") or earlier.get("last_mode")
        self.watch.seen = self.plans.started_at = snapshot["cursor"]
        loops = {
            asyncio.ensure_future(self._relay(self.client, self._from_client)): "client",
            asyncio.ensure_future(self._relay(self.agent, self._from_agent)): "agent",
            asyncio.ensure_future(self._stop.wait()): "agent",
        }
        watcher = asyncio.ensure_future(self.watch.run())
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_COMPLETED)
            return loops[next(iter(done))]
        finally:
            for task in [*loops, watcher, *self._tasks]:
                task.cancel()
            for future in self._own_calls.values():
                future.cancel()
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
        method = None if message is None else message.get("method")
        if method is not None and "id" in message:
            # JSON-RPC lets a peer use an id again once it was answered.
            self.proposals.forget(message["id"])
        if message is None:
            if not await self.guard.batch(line):
                await self.client.send_line(line)
        elif method is None and "id" not in message:
            await self.client.send_line(line)
        elif method is None:
            await self._agent_answered(message, line)
        elif method == "session/update" and "id" not in message:
            await self.client.send_line(line)  # passed on first: recording it may wait
            await self._update(message)
        elif method == "session/request_permission" and "id" in message:
            await self._permission(message, line)
        elif method in GUARDED_METHODS:
            if not await self.guard.call(message):
                await self.client.send_line(line)
        else:
            await self.client.send_line(line)

    async def _agent_answered(self, message: dict, line: bytes) -> None:
        key = id_key(message.get("id"))
        own = self._own_calls.pop(key, None)
        if own is not None:
            if not own.done():
                own.set_result(message)
            return
        call = self._client_calls.pop(key, None)
        if call is None:
            await self.client.send_line(line)
            return
        method, params, extra = call
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if method == "session/prompt":
            await self.recorder.flush()  # a turn ends with its plan recorded
            if not self.follow_ups.hold(key, session_id, message):
                await self._finish_turn(key, session_id, message, line)
            return
        if method == "initialize":
            self.known.profile = choose(message.get("result"))
            self.guard.heartbeat.introduced(message.get("result"))
        elif method in SESSION_METHODS:
            await self._session_answered(method, params, message)
        else:
            await self.modes.answered(method, params, extra, message)
        await self.client.send_line(line)
        if self.failed is not None:
            self._stop.set()

    async def _session_answered(self, method: str, params: Any, message: dict) -> None:
        """The agent's session: its modes known and its status recorded before the client
        hears of it (so what the client does next comes after them in the history)."""
        if "error" in message:
            if method == "session/new" and self.started == 0:
                self._first_session_failed(message["error"])
            return
        self.started += 1
        await self.modes.answered(method, params, None, message)
        self.status.engaged()  # an agent that offers no modes is engaged too
        await self.status.settled()

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

    async def _update(self, message: dict) -> None:
        """Record what an update tells: the agent's plan, and its modes and options."""
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
        self.recorder.record(session_id, entries)

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
        params = message.get("params")
        if method == PERSON_METHOD:
            self._person(message, params)
            if "id" in message:
                await self.client.respond(message["id"], {})
            return
        if method == "session/cancel" and isinstance(params, dict):
            self.follow_ups.cancelled(params.get("sessionId"))
        if "id" in message:
            key = id_key(message["id"])
            if method == "session/prompt" and isinstance(params, dict):
                line = await self._prompt(message, key, params, line)
            elif method in ("session/set_mode", "session/set_config_option"):
                if await self.modes.client_repeats(message, method, params):
                    return  # the value the client sent before: no switch, answered here
                self.track(key, method, params, await self.modes.client_sets(method, params))
            elif method in SESSION_METHODS:
                self.track(key, method, params)
                line = self._with_guard(message, params, line)
            elif method == "initialize":
                self.track(key, method, params)
        await self.agent.send_line(line)

    def _person(self, message: dict, params: Any) -> None:
        """The client names the person at it for a session (Jupyter AI's persona: the sender
        of the chat's message), whose answers there are that person's decisions."""
        if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
            return
        name, display = params.get("name"), params.get("display")
        known = self.sessions.known(params["sessionId"])
        known.person = name if isinstance(name, str) else None
        known.display = display if isinstance(display, str) else None

    def _with_guard(self, message: dict, params: Any, line: bytes) -> bytes:
        """A session request, with the guard's hook in the settings the agent takes at session
        start (where its profile says it takes them)."""
        settings = self.known.profile.session_settings
        if settings is None or self.where is None or not isinstance(params, dict):
            return line
        command = hook_command(settings["hook"], self.where, self.plans.session_id)
        guarded = with_guard(params, settings, command)
        return line if guarded is None else encode({**message, "params": guarded})

    async def _prompt(self, message: dict, key: str, params: dict, line: bytes) -> bytes:
        """Open the prompt with the person's queued words and, on a session's first prompt,
        the plan's context block."""
        session_id = params.get("sessionId")
        agent_session = self.sessions.known(session_id)
        agent_session.prompts.add(key)
        self.follow_ups.turn_started(session_id)
        self.status.working(True)
        self.track(key, "session/prompt", params)
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

    def _cancel_turns(self) -> None:
        """The person's off cancels the running turns: no follow-up goes after them."""
        for session_id, _ in self.sessions.items():
            self.follow_ups.cancelled(session_id)

    def track(self, key: str, method: str, params: Any, extra: Any = None) -> None:
        """Keep a client's request whose answer from the agent the bridge reads."""
        self._client_calls[key] = (method, params, extra)

    # The bridge's own requests to the agent.

    async def call_agent(
        self, method: str, params: dict, timeout: float | None = OWN_CALL_TIMEOUT
    ) -> dict:
        """Send a request of the bridge's own; its answer never reaches the client. A timeout
        of None waits as long as the agent takes (a follow-up prompt)."""
        request_id = f"{self._prefix}-{next(self._own_numbers)}"
        future = asyncio.get_running_loop().create_future()
        self._own_calls[id_key(request_id)] = future
        await self.agent.send(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._own_calls.pop(id_key(request_id), None)
