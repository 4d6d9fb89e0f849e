"""Jupyter AI v3's persona for the ACP bridge, registered as the `jupyter_ai.personas` entry point
`jupyter-plans`: Claude Code (or another ACP agent) in the chat, run as
`jupyter-plans acp --notebook NB -- claude-agent-acp`, so its plan and plan mode live on the card
of the notebook the chat is bound to (see `persona` for how a chat picks it).

Only this module imports Jupyter AI (`jupyter-ai-acp-client`); nothing in the package imports it.
Settings, in `jupyter_server_config.py`:

    c.PlanCardPersona.agent = ["codex-acp"]              # default: ["claude-agent-acp"]
    c.PlanCardPersona.notebook = "analysis.ipynb"        # bind every chat to one notebook
    c.PlanCardPersona.bridge = ["/opt/plans/bin/jupyter-plans"]  # another environment's
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any, ClassVar

from jupyter_ai_persona_manager import (
    PersonaDefaults,
    PersonaNotAuthenticated,
    PersonaRequirementsUnmet,
)
from traitlets import List, Unicode

try:
    from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona
    from jupyter_ai_acp_client.default_acp_client import JaiAcpClient
except ImportError as missing:  # Jupyter AI without its ACP client: a warning, not an error
    raise PersonaRequirementsUnmet(
        "The jupyter-plans persona runs ACP agents: pip install jupyter-ai-acp-client"
    ) from missing

from ...plan.who import jupyter_name
from . import persona as binding
from .launch import DEFAULT_AGENT
from .told import META_KEY

AVATAR = str(Path(__file__).with_name("persona.svg"))
STOP_SECONDS = 5.0


class SessionNotStarted(RuntimeError):
    """The agent could not start the chat's session; its one line is the chat's message."""


class PlanCardClient(JaiAcpClient):
    """Jupyter AI's ACP client, closing a permission request the person decided on another
    surface: the bridge's update of the request's tool call names the option the agent got
    (`_meta`), and the chat's request is answered with it, so its buttons give way to the
    answer (else they would wait until the next message, then answer 404)."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await super().session_update(session_id, update, **kwargs)
        meta = getattr(update, "field_meta", None)
        ours = meta.get(META_KEY) if isinstance(meta, dict) else None
        answered = ours.get("answered") if isinstance(ours, dict) else None
        tool_call_id = getattr(update, "tool_call_id", None)
        if isinstance(answered, str) and isinstance(tool_call_id, str):
            self.resolve_permission(session_id, tool_call_id, answered)


class PlanCardPersona(BaseAcpPersona):
    """An ACP agent behind the bridge, one bridge per chat, bound to one notebook's plan."""

    acp_client_class = PlanCardClient

    agent = List(
        Unicode(),
        default_value=list(DEFAULT_AGENT),
        config=True,
        help="The ACP agent's command line, run behind the bridge.",
    )
    notebook = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The notebook whose plan every chat keeps, relative to the server's root "
        "(default: the one each chat picks).",
    )
    bridge = List(
        Unicode(),
        default_value=[],
        config=True,
        help="How to run `jupyter-plans` (default: the one beside the server's Python).",
    )

    # Jupyter AI keeps one agent process per persona class, shared by its chats; the bridge is
    # bound to one notebook, so each chat gets a class of its own (same name, same persona id).
    _per_chat: ClassVar[dict[str, type]] = {}
    # Per chat's class: the instance the chat uses now (a chat's persona is made again when its
    # page reloads or the persona manager is), and the chat's running ACP session.
    _current: ClassVar[Any] = None
    _running: ClassVar[tuple | None] = None

    def __new__(cls, *args: Any, **kwargs: Any):
        if "_chat_key" not in cls.__dict__:
            parent = kwargs.get("parent")
            key = str(parent.get_chat_path()) if parent is not None else str(id(kwargs.get("chat")))
            if key not in PlanCardPersona._per_chat:
                namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
                PlanCardPersona._per_chat[key] = type(cls)(
                    cls.__name__, (cls,), {**namespace, "_chat_key": key}
                )
            cls = PlanCardPersona._per_chat[key]
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The base class keeps this very list as the command it runs; it is filled in once the
        # chat's notebook is known, before the agent starts.
        self._command: list[str] = []
        super().__init__(*args, executable=self._command, **kwargs)
        self.bound_notebook: Path | None = None
        type(self)._current = self
        self._bind()

    @property
    def defaults(self) -> PersonaDefaults:
        label = binding.agent_label(self.agent)
        return PersonaDefaults(
            name=f"{label} with plans",
            description=f"{label} as an ACP agent, with its plan and plan mode on the card "
            "of the chat's notebook (jupyter-plans acp).",
            avatar_path=AVATAR,
            system_prompt="unused",
        )

    async def on_message(self, message: Any) -> None:
        was_bound = self.bound_notebook is not None
        if not self._bind(message):
            self.send_message(binding.HOW_TO_CHOOSE)
            return
        if not was_bound:
            where = binding.relative_to_root(self.bound_notebook, self.parent.root_dir)
            self.send_message(binding.bound_message(where))
        missing = binding.missing_agent(self.agent)
        if missing is not None:
            self.send_message(missing)
            return
        await super().on_message(message)

    async def prepare(self) -> None:
        if not self._bind():  # an eager start, before the chat knows its notebook
            raise RuntimeError(binding.HOW_TO_CHOOSE)
        try:
            await super().prepare()
        except PersonaNotAuthenticated:
            raise
        except Exception as exc:  # the session did not start: nothing is left running
            await self._stop_agent()
            label = binding.agent_label(self.agent)
            raise SessionNotStarted(binding.not_started(label, exc)) from exc

    async def handle_uncaught_exception(self, exc: Exception) -> None:
        if isinstance(exc, SessionNotStarted):
            self.send_message(str(exc))  # one line, in the chat
            return
        await super().handle_uncaught_exception(exc)

    async def apply_specs_in_message(self, message: Any) -> None:
        # The chat's mode menu travels with the message: its switch is the sender's too.
        await self._name_the_sender(message)
        await super().apply_specs_in_message(message)

    async def process_message(self, message: Any) -> None:
        await self._name_the_sender(message)
        await super().process_message(message)

    async def _name_the_sender(self, message: Any) -> None:
        """Tell the bridge who writes (the message's sender, the chat's Jupyter user): an
        answer given in this chat is that person's decision."""
        sender = getattr(message, "sender", None)
        if not isinstance(sender, str) or not sender:
            return
        # Named as the card's clicks and the server's routes name the same person.
        try:
            user = self.chat.get_users().get(sender)
        except Exception:  # noqa: BLE001 - a chat that cannot list its users: the sender's id
            user = None
        display = getattr(user, "display_name", None) or getattr(user, "name", None)
        name = jupyter_name(sender, display) or sender
        try:
            client = await self.get_client()
            connection = await client.get_connection()
            params = {"sessionId": await self.get_session_id(), "name": name}
            if isinstance(display, str) and display != name:
                params["display"] = display  # shown beside the name, never in its place
            await connection.ext_notification(binding.PERSON_METHOD.lstrip("_"), params)
        except Exception:  # noqa: BLE001 - the message still goes; its answers are the server's user's
            self.log.warning("%s: could not tell the bridge who writes", self.name, exc_info=True)

    async def _init_client_session(self) -> Any:
        """One chat, one ACP session: a persona made again for the chat while its agent runs
        takes the session that agent runs, rather than opening or loading another."""
        cls = type(self)
        client = await self.get_client()
        running = cls.__dict__.get("_running")
        if running is not None and running[0] is client:
            _, session_id, response = running
            client._personas_by_session[session_id] = self  # where the agent's updates go
            self._set_acp_mode_state(response.modes)
            self.update_acp_config_options(response.config_options)
            self._sync_awareness_config()
            return response
        response = await super()._init_client_session()
        cls._running = (client, self._get_existing_sessions().get(self.id), response)
        return response

    async def _shutdown(self) -> None:
        """A persona the chat no longer uses leaves the agent to the one it uses now."""
        if type(self).__dict__.get("_current") is not self:
            self.log.info("%s: a newer persona of this chat runs its agent", self.name)
            return
        type(self)._running = None
        await super()._shutdown()

    async def _stop_agent(self) -> None:
        """Stop the chat's agent and its bridge (their process group), and forget them, so the
        next message starts them again."""
        cls = type(self)
        started = cls.__dict__.get("_subprocess_future")
        if started is not None and started.done() and not started.cancelled():
            process = started.result() if started.exception() is None else None
            if process is not None and process.returncode is None:
                with contextlib.suppress(OSError):
                    os.killpg(os.getpgid(process.pid), signal.SIGTERM)
                try:
                    await asyncio.wait_for(process.wait(), STOP_SECONDS)
                except TimeoutError:
                    with contextlib.suppress(OSError):
                        os.killpg(os.getpgid(process.pid), signal.SIGKILL)
        for name in ("_before_subprocess_future", "_subprocess_future", "_client_future"):
            setattr(cls, name, None)
        cls._running = None
        self._client_session_future = None

    def _bind(self, message: Any = None) -> bool:
        """Bind the chat to its notebook once; True when it is bound."""
        if self.bound_notebook is not None:
            return True
        root = self.parent.root_dir
        attached: list[str] = []
        if message is not None and message.attachments:
            known = self.chat.get_attachments()
            attached = binding.attached_notebooks(
                known[a] for a in message.attachments if a in known
            )
        notebook = binding.choose_notebook(
            root,
            self.get_chat_path(),
            configured=self.notebook,
            bound=self.chat.get_metadata().get(binding.METADATA_KEY),
            attached=attached,
        )
        if notebook is None:
            return False
        self.bound_notebook = notebook
        self._command[:] = binding.persona_command(self.agent, notebook, self.bridge)
        self.chat.set_metadata(binding.METADATA_KEY, binding.relative_to_root(notebook, root))
        self.log.info("%s: this chat keeps the plan of %s", self.name, notebook)
        return True
