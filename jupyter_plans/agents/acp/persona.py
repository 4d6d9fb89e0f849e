"""What Jupyter AI's persona for the bridge decides, without Jupyter AI: which notebook's plan a
chat is bound to, and the command line it runs (`jupyter-plans acp --notebook NB -- AGENT`).
The persona itself, which imports Jupyter AI, is `jupyter_ai_persona`.

A chat is bound to one notebook, in this order: the notebook the server's configuration names;
the one the chat was bound to before (kept in the chat's metadata); the notebook attached to the
message that starts the agent (Jupyter AI attaches the active notebook's cells that way); the
notebook beside the chat with the chat's name (`analysis.chat` -> `analysis.ipynb`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .launch import bridge_command
from .profiles import by_command
from .wire import PERSON_METHOD

__all__ = ["PERSON_METHOD"]  # the persona names the chat's person to the bridge with it

METADATA_KEY = "jupyter_plans_notebook"  # the chat's notebook, relative to the server's root

HOW_TO_CHOOSE = (
    "Which notebook's plan should I keep? Attach the notebook to your message (the chat's "
    "attach button, or a cell of the active notebook), or name this chat after it "
    "(`analysis.chat` for `analysis.ipynb`). The agent starts once the chat knows its notebook."
)


def bound_message(notebook: str) -> str:
    """What the chat is told when it is bound to its notebook."""
    return (
        f"This chat keeps the agent's plan on the card of `{notebook}`: plan mode, the agent's "
        f"proposal and your approval are there (`%plan approve`, or the card's Approve button)."
    )


def agent_label(agent: Sequence[str]) -> str:
    """The agent's name for people: its profile's short name, else its command's name."""
    name = Path(agent[0]).name if agent else "agent"
    profile = by_command(name)
    return profile.short_label if profile is not None and profile.short_label else name


def attached_notebooks(attachments: Iterable[Any]) -> list[str]:
    """The notebook paths among a message's attachments (Jupyter AI's attachment objects or
    their dicts), in order: notebook attachments and files that are notebooks."""
    found = []
    for attachment in attachments:
        get = (
            attachment.get
            if isinstance(attachment, dict)
            else (lambda key, a=attachment: getattr(a, key, None))
        )
        value = get("value")
        if isinstance(value, str) and (get("type") == "notebook" or value.endswith(".ipynb")):
            found.append(value)
    return found


def _inside(root: Path, relative: str | None) -> Path | None:
    """`root / relative` when it is an existing notebook inside `root`, else None."""
    if not relative or not relative.endswith(".ipynb"):
        return None
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


def choose_notebook(
    root_dir: str | Path,
    chat_path: str | Path | None,
    *,
    configured: str | None = None,
    bound: str | None = None,
    attached: Iterable[str] = (),
) -> Path | None:
    """The notebook a chat's plan is kept for (see the module's docstring), or None when the
    chat does not know one yet. Paths from the chat must stay inside the server's root."""
    root = Path(root_dir).resolve()
    if configured:
        path = Path(configured).expanduser()
        return (path if path.is_absolute() else root / path).resolve()
    for candidate in (bound, *attached):
        path = _inside(root, candidate)
        if path is not None:
            return path
    if chat_path:
        return _inside(root, str(Path(chat_path).with_suffix(".ipynb")))
    return None


def relative_to_root(notebook: Path, root_dir: str | Path) -> str:
    """How the chat's metadata keeps its notebook."""
    root = Path(root_dir).resolve()
    return notebook.relative_to(root).as_posix() if notebook.is_relative_to(root) else str(notebook)


def persona_command(
    agent: Sequence[str], notebook: Path, bridge: Sequence[str] | None = None
) -> list[str]:
    """The command the persona runs: the agent behind the bridge, bound to `notebook`."""
    return bridge_command(agent, notebook=str(notebook), bridge=bridge or None)


MAX_REASON_CHARS = 300


def not_started(label: str, error: BaseException) -> str:
    """The chat's one line when the agent could not start the chat's session."""
    data = getattr(error, "data", None)
    if isinstance(data, dict):
        data = " ".join(str(v) for v in data.values())
    reason = " ".join(str(part) for part in (error, data) if part)
    reason = " ".join(reason.split())[:MAX_REASON_CHARS] or type(error).__name__
    return (
        f"{label} could not start its session here: {reason}. Its agent and the bridge were "
        "stopped; send a message to try again."
    )


def missing_agent(agent: Sequence[str]) -> str | None:
    """A sentence for the chat when the agent's command cannot be found, else None."""
    if agent and shutil.which(agent[0]) is not None:
        return None
    name = agent[0] if agent else "(none)"
    profile = by_command(name)
    hint = f" Install it with `{profile.install}`." if profile and profile.install else ""
    return (
        f"The agent's command `{name}` is not installed on the server.{hint} Another agent is "
        "set with `c.PlanCardPersona.agent = [...]` in `jupyter_server_config.py`."
    )
