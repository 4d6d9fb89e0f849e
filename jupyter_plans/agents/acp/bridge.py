"""The bridge: an ACP agent to its client and an ACP client to its agent, passing every message
on as it came except those DESIGN section 10 names, which it reads, answers or extends.

Store work runs on one thread of its own, so the event loop never waits on SQLite and the
session's operations keep their order.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp.schema import RequestPermissionRequest
from pydantic import ValidationError

from ...errors import PlanStoreError
from ...store.wake import Wake
from .claude import hook_command, with_guard
from .guard import GUARDED_METHODS, Guard
from .mirror import PlanMirror
from .modes import Modes, Select
from .prompts import opening_blocks
from .proposals import Proposals
from .recorder import PlanRecorder, StoreThread
from .wire import Peer, encode, id_key, warn

if TYPE_CHECKING:
    from ...session import PlanSession

SESSION_METHODS = ("session/new", "session/load", "session/resume", "session/fork")
POLL_SECONDS = 0.05  # how often the session is read for the person's decisions, untold
NOTIFIED_POLL_SECONDS = 1.0  # and where the file system tells of changes
OWN_CALL_TIMEOUT = 30.0


@dataclass
class AgentSession:
    """An ACP session the bridge has seen, as the bridge knows it."""

    modes: tuple[str, ...] = ()  # the mode ids the agent offers
    mode: str | None = None  # the agent's current mode
    options: dict[str, Select] = field(default_factory=dict)  # its select config options
    restore: dict[str, Any] = field(default_factory=dict)  # what plan mode changed, as it was
    setting: int = 0  # the bridge's own changes of its modes or options in flight
    prompts: set[str] = field(default_factory=set)  # running session/prompt requests
    prompted: bool = False  # its first prompt has gone (with the context block)


class Bridge:
    def __init__(
        self, session: PlanSession, agent: Peer, client: Peer, where: str | None = None
    ) -> None:
        self.session = session
        self.where = where  # the plan file or URL, for the hooks the agent runs
        self.claude_code = False  # the agent takes Claude Code's settings per session
        self.agent_name: str | None = None  # as its initialize result names it
        self.agent = agent
        self.client = client
        self.db = StoreThread()
        self.plans = PlanRecorder(self)  # the agent's plans, recorded off the relay
        self.sessions: dict[str, AgentSession] = {}
        self.mirror = PlanMirror()
        self.guard = Guard(self)
        self.proposals = Proposals(self)
        self.modes = Modes(self)
        self._client_calls: dict[str, tuple[str, Any, Any]] = {}  # method, params, extra
        self._own_calls: dict[str, asyncio.Future] = {}
        self._prefix = f"jupyter-plans-{uuid.uuid4().hex[:8]}"  # of the bridge's own requests
        self._own_numbers = itertools.count(1)
        self._numbers = itertools.count(1)
        self._started_at = 0  # the session's cursor when the bridge started
        self._tasks: set[asyncio.Task] = set()
        self.seen = 0  # the session's events read so far
        self.approval_notices: dict[str, int] = {}  # approved hash -> its notice's message id

    def new_call_id(self, agent_session: Any = None) -> str:
        """A write's call id: the same on every run of a scripted agent (notebook 05's card
        shows it), and never an earlier bridge's (it started at an earlier cursor)."""
        digest = hashlib.sha256(str(agent_session).encode()).hexdigest()[:12]
        return f"acp-{self._started_at}-{digest}-{next(self._numbers)}"

    async def write(self, agent_session: Any, function, *args, thread=None) -> Any:
        """Run one of the session's writes with a new call id (on `thread`, else the bridge's
        store thread). Two bridges started at the same point whose agents name their sessions
        alike make the same ids: the second one's write then takes an id of its own."""
        if thread is None:  # after the agent's plans sent before it, as the messages came
            await self.plans.flush()
        thread = thread or self.db
        call_id = self.new_call_id(agent_session)
        try:
            return await thread(lambda: function(*args, call_id=call_id))
        except PlanStoreError as exc:
            if "call_id" not in str(exc):
                raise
        unique = f"{call_id}-{uuid.uuid4().hex[:8]}"
        return await thread(lambda: function(*args, call_id=unique))

    def spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> str:
        """Relay until one side closes; returns which: "client" or "agent"."""
        snapshot = await self.db(self.session.snapshot_data)
        self.mirror = PlanMirror(snapshot["plan"]["steps"] if snapshot["plan"] else None)
        self.seen = self._started_at = snapshot["cursor"]
        loops = {
            asyncio.ensure_future(self._relay(self.client, self._from_client)): "client",
            asyncio.ensure_future(self._relay(self.agent, self._from_agent)): "agent",
        }
        watcher = asyncio.ensure_future(self._watch())
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_COMPLETED)
            return loops[next(iter(done))]
        finally:
            for task in [*loops, watcher, *self._tasks]:
                task.cancel()
            for future in self._own_calls.values():
                future.cancel()
            await self.proposals.withdraw()
            await self.plans.close()
            self.db.close()

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
        if call is not None and call[0] == "session/prompt":
            await self.plans.flush()  # a turn ends with its plan recorded
        await self.client.send_line(line)
        if call is not None:
            await self.modes.agent_answered(key, call, message)

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
        self.plans.record(session_id, entries)

    async def _permission(self, message: dict, line: bytes) -> None:
        request = _permission_request(message.get("params"))
        if request is None:
            if not await self.guard.unreadable(message):
                await self.client.send_line(line)
            return
        if await self.guard.permission(message, request):
            return
        if request.tool_call.kind == "switch_mode" and await self.in_plan_mode():
            await self.proposals.open(message, request)
        await self.client.send_line(line)

    async def in_plan_mode(self) -> bool:
        try:
            return (await self.db(self.session.snapshot_data))["mode"] == "plan"
        except Exception as exc:  # noqa: BLE001 - the request goes on as it is
            warn(f"could not read the session ({type(exc).__name__}: {exc})")
            return False

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
        if "id" in message:
            key = id_key(message["id"])
            params = message.get("params")
            if method == "session/prompt" and isinstance(params, dict):
                line = await self._prompt(message, key, params, line)
            elif method in ("session/set_mode", "session/set_config_option"):
                await self.modes.client_sets(key, method, params)
            elif method in SESSION_METHODS:
                self.track(key, method, params)
                line = self._with_guard(message, params, line)
            elif method == "initialize":
                self.track(key, method, params)
        await self.agent.send_line(line)

    def _with_guard(self, message: dict, params: Any, line: bytes) -> bytes:
        """A session request to Claude Code's agent, with the guard's hook in its settings."""
        if not self.claude_code or self.where is None or not isinstance(params, dict):
            return line
        guarded = with_guard(params, hook_command(self.where, self.session.session_id))
        return line if guarded is None else encode({**message, "params": guarded})

    async def _prompt(self, message: dict, key: str, params: dict, line: bytes) -> bytes:
        """Open the prompt with the person's queued words and, on a session's first prompt,
        the plan's context block."""
        session_id = params.get("sessionId")
        agent_session = self.known(session_id)
        agent_session.prompts.add(key)
        self.track(key, "session/prompt", params)
        first = not agent_session.prompted
        agent_session.prompted = True
        prompt = params.get("prompt")
        if not isinstance(prompt, list):
            return line
        try:
            blocks = await self.db(opening_blocks, self.session, first, self._told_already())
        except Exception as exc:  # noqa: BLE001 - the prompt still goes, without them
            warn(f"could not read the session for the prompt ({type(exc).__name__}: {exc})")
            return line
        if not blocks:
            return line
        return encode({**message, "params": {**params, "prompt": [*blocks, *prompt]}})

    def _told_already(self) -> set[int]:
        """The approval notices the agent had as the allow option of its own request: the
        queue is done with them, and repeating them would ask for the work twice."""
        conveyed = self.proposals.conveyed
        return {m for digest, m in self.approval_notices.items() if digest in conveyed}

    def track(self, key: str, method: str, params: Any, extra: Any = None) -> None:
        """Keep a client's request whose answer from the agent the bridge reads."""
        self._client_calls[key] = (method, params, extra)

    def known(self, session_id: Any) -> AgentSession:
        key = session_id if isinstance(session_id, str) else id_key(session_id)
        return self.sessions.setdefault(key, AgentSession())

    # The bridge's own requests to the agent.

    async def call_agent(self, method: str, params: dict) -> dict:
        """Send a request of the bridge's own; its answer never reaches the client."""
        request_id = f"{self._prefix}-{next(self._own_numbers)}"
        future = asyncio.get_running_loop().create_future()
        self._own_calls[id_key(request_id)] = future
        await self.agent.send(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        try:
            return await asyncio.wait_for(future, OWN_CALL_TIMEOUT)
        finally:
            self._own_calls.pop(id_key(request_id), None)

    # The person's decisions, from any surface.

    async def _watch(self) -> None:
        """Read the session's new events when it may have changed: at once when the file
        system, PostgreSQL or this process's store tells of a commit, else every
        NOTIFIED_POLL_SECONDS (every POLL_SECONDS where nothing tells: a network file system)."""
        wake = Wake(self.session.store, untold=POLL_SECONDS, told=NOTIFIED_POLL_SECONDS, own=True)
        try:
            await self._follow(wake)
        finally:
            wake.close()

    async def _follow(self, wake: Wake) -> None:
        while True:
            await wake.wait()
            try:
                cursor = await self.db(self.session.cursor)
                if cursor <= self.seen:
                    continue
                events = await self.db(self.session.event_data, self.seen)
            except Exception as exc:  # noqa: BLE001 - a busy or moved file is read again next time
                warn(f"could not read the session ({type(exc).__name__}: {exc})")
                await asyncio.sleep(1)
                continue
            if events:
                self.seen = events[-1].seq
                await self._on_events(events)

    async def _on_events(self, events: list) -> None:
        last_mode, approved, before, decided = None, False, None, None
        for event in events:
            if event.kind == "decision":
                decided = event
                data = event.data
                await self.proposals.person_decided(event.seq, data.get("action"), data.get("hash"))
            elif event.kind == "proposal_submitted":
                edited = (
                    before is not None
                    and before.kind == "plan_updated"
                    and before.data.get("author") == "user"
                )
                await self.proposals.proposal_submitted(event.data.get("hash"), event.seq, edited)
            elif event.kind == "mode_changed":
                last_mode = event.data.get("mode")
                approved = _is_approval(before)
            elif event.kind == "message_queued" and event.data.get("source") == "notice":
                # An approval queues its notice in its own change, right after its decision
                # (and the mode's change).
                if _is_approval(decided) and decided.seq >= event.seq - 2:
                    self.approval_notices[decided.data.get("hash")] = event.data["message_id"]
            before = event
        if last_mode is not None:
            await self.modes.session_mode_changed(last_mode, approved)


def _is_approval(event: Any) -> bool:
    return event is not None and event.kind == "decision" and event.data.get("action") == "approved"


def _permission_request(params: Any) -> RequestPermissionRequest | None:
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
