"""What the bridge knows of its agent and the ACP sessions it has seen: the agent's profile (from
its `initialize`), and per session its modes, select config options, running prompts, and the
person at the client (the chat's user, when the client says who it is)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ...errors import DecisionRefused
from ...plan import who
from .profiles import Profile, choose, default
from .wire import id_key, warn


@dataclass
class Select:
    values: tuple[str, ...]
    current: Any


@dataclass
class AgentSession:
    """An ACP session the bridge has seen, as the bridge knows it."""

    modes: tuple[str, ...] = ()  # the mode ids the agent offers
    described: dict[str, str] = field(default_factory=dict)  # mode id -> the agent's words
    mode: str | None = None  # the agent's current mode
    options: dict[str, Select] = field(default_factory=dict)  # its select config options
    raw_options: list = field(default_factory=list)  # its config options as it last sent them
    restore: dict[str, Any] = field(default_factory=dict)  # what plan mode changed, as it was
    # The bridge's own changes of its modes or options in flight: (switch, value) each.
    setting: list[tuple[str, Any]] = field(default_factory=list)
    # The tasks that make those changes, from when each is decided: a prompt waits for them.
    changes: set[asyncio.Task] = field(default_factory=set)
    # The switches the agent said other values of meanwhile -> the value the bridge set.
    strayed: dict[str, Any] = field(default_factory=dict)
    client_sent: dict[str, Any] = field(default_factory=dict)  # switch -> the client's last value
    prompts: set[str] = field(default_factory=set)  # running session/prompt requests
    prompted: bool = False  # its first prompt has gone (with the context block)
    # Whether its running turn began in plan mode (and the mode that asks); None while the
    # bridge readies a prompt (see modes.ready).
    guarded_turn: bool | None = False
    person: str | None = None  # the client's person, as the client named them
    display: str | None = None  # and their display name, where the client gave one


@dataclass
class Known:
    """The agent as it said it is: its profile, chosen at initialize (the default until then)."""

    profile: Profile = field(default_factory=default)

    def introduced(self, result: Any) -> None:
        """The agent's initialize result: the profile of the agent it names."""
        self.profile = choose(result)


class Sessions:
    """The ACP sessions the bridge has seen, by id, and the agent that runs them (`known`)."""

    def __init__(self, known: Known) -> None:
        self.by_id: dict[str, AgentSession] = {}
        self._known = known

    @property
    def profile(self) -> Profile:
        """The profile of the agent, as it said it is (the default until its initialize)."""
        return self._known.profile

    def known(self, session_id: Any) -> AgentSession:
        key = session_id if isinstance(session_id, str) else id_key(session_id)
        return self.by_id.setdefault(key, AgentSession())

    def items(self) -> list[tuple[str, AgentSession]]:
        return list(self.by_id.items())

    def person(self, session_id: Any) -> dict:
        """`by` of an answer or a switch in the client for this session: the person the client
        named (with their display name beside, where it says another), else the bridge's own
        user; via acp-client either way."""
        found = self.by_id.get(session_id) if isinstance(session_id, str) else None
        if found is not None and found.person is not None:
            try:
                named = {"name": found.person, "display": found.display}
                return who.person({**named, "via": "acp-client"})
            except DecisionRefused as refusal:
                warn(f"the client named its person with what no name may hold ({refusal})")
        return who.person(None, "acp-client")

    def running(self) -> bool:
        """Whether a prompt of the client runs in any session."""
        return any(s.prompts for s in self.by_id.values())
