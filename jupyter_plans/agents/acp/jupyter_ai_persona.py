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

from pathlib import Path
from typing import Any, ClassVar

from jupyter_ai_persona_manager import PersonaDefaults, PersonaRequirementsUnmet
from traitlets import List, Unicode

try:
    from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona
except ImportError as missing:  # Jupyter AI without its ACP client: a warning, not an error
    raise PersonaRequirementsUnmet(
        "The jupyter-plans persona runs ACP agents: pip install jupyter-ai-acp-client"
    ) from missing

from . import persona as binding
from .launch import DEFAULT_AGENT

AVATAR = str(Path(__file__).with_name("persona.svg"))


class PlanCardPersona(BaseAcpPersona):
    """An ACP agent behind the bridge, one bridge per chat, bound to one notebook's plan."""

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
        await super().prepare()

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
