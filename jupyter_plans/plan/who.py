"""Who decided (DESIGN section 12): the person behind an act on a plan, and where it was made.

Every event a person's act appends carries `by: {"name": str | None, "via": V}`. The name is
the person's: Jupyter's identity of a request on the server routes, `JUPYTERHUB_USER` or the
operating system's user in a kernel, the CLI's `--by`, the API's `by=`.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import DecisionRefused
from .intake import person_text_refusal, unseen_character

VIAS = ("magic", "card", "panel", "palette", "server", "cli", "api", "acp-client", "agent")
MAX_NAME_CHARS = 200
# The event kinds a person's act appends (a message_queued only when the person wrote it, a
# plan_updated only when the person edited): they read back with by null when written before.
PERSON_KINDS = ("decision", "mode_changed", "message_queued", "plan_updated")

# Where, in words: "approved by alice in the panel".
_WHERE = {
    "magic": "with %plan",
    "card": "on the card",
    "panel": "in the panel",
    "palette": "from the command palette",
    "server": "through the server",
    "cli": "on the command line",
    "api": "through the Python API",
    "acp-client": "in the ACP client",
    "agent": "by the agent",
}


def local_person() -> str | None:
    """The person at this process: `JUPYTERHUB_USER` when set, else the operating system's
    user name; None where neither can be told."""
    hub = os.environ.get("JUPYTERHUB_USER", "").strip()
    if hub:
        return hub[:MAX_NAME_CHARS]
    try:
        import getpass  # here: most processes never ask

        return getpass.getuser()[:MAX_NAME_CHARS] or None
    except Exception:  # noqa: BLE001 - no user entry (a container's numeric uid)
        return None


def person(by: Any = None, via: str = "api", *, entering_plan_mode: bool = False) -> dict:
    """`by` as events store it. None: this process's person; a str: that name; a dict: its
    name and via (checked), and the person's display name (`display`, Jupyter's identity's
    `display_name`), kept beside the name where it says another. A name that no person has is
    refused in one line, and so is the agent (via "agent") for any act but
    `entering_plan_mode`, the one it may take."""
    display = None
    if isinstance(by, dict):
        name, via, display = by.get("name"), by.get("via", via), by.get("display")
    elif by is None:
        name = local_person()
    else:
        name = by
    if via not in VIAS:
        raise DecisionRefused(f"by.via is {via!r}; it must be one of {', '.join(VIAS)}")
    if via == "agent" and not entering_plan_mode:
        raise DecisionRefused(
            "by.via is 'agent', but the one act an agent may take on the person's side is "
            "entering plan mode; this is the person's act, so it names the person"
        )
    if name is not None:
        if not isinstance(name, str):
            raise DecisionRefused(f"by: the name must be text; found {type(name).__name__}")
        problem = None
        if not name.strip() or "\n" in name or "\t" in name:
            problem = f"by: the name must be one line of text, not blank; found {name[:40]!r}"
        elif len(name) > MAX_NAME_CHARS:
            problem = f"by: the name is {len(name)} characters; at most {MAX_NAME_CHARS}"
        else:
            problem = _unseen(name) or person_text_refusal("by: the name", name)
        if problem:
            raise DecisionRefused(problem)
    found = {"name": name, "via": via}
    display = display_name(display)
    if name is not None and display is not None and display != name:
        found["display"] = display
    return found


def display_name(display: Any) -> str | None:
    """A display name fit to show beside a name (one visible line, the bounds of a name), else
    None: it is shown, never recorded in the name's place."""
    if not isinstance(display, str) or not display.strip():
        return None
    try:
        return person(display.strip())["name"]
    except DecisionRefused:
        return None


def _unseen(name: str) -> str | None:
    """What a name may not hold beyond a person's text (section 9): a character that does not
    show as itself (intake.unseen_character), so that the name a person reads ("alice") is
    the name that was recorded; nor a leading or trailing space."""
    found = unseen_character(name)
    if found:
        index, char, _kind = found
        return (
            f"by: the name contains U+{ord(char):04X} at character {index}, which does not "
            "show as itself; a name is visible characters and spaces"
        )
    if name != name.strip():
        return f"by: the name {name[:40]!r} begins or ends with a space"
    return None


def jupyter_name(username: Any, display: Any) -> str | None:
    """The name a person's act records for a Jupyter identity: its `username`, except where
    Jupyter made the identity up for a shared token (a random 32-hex username beside the name
    "Anonymous Io"), where its readable display name is the better name."""
    username = username if isinstance(username, str) and username else None
    display = display if isinstance(display, str) and display else None
    if (
        username is not None
        and display is not None
        and len(username) == 32
        and all(c in "0123456789abcdef" for c in username)
        and display.startswith("Anonymous ")
    ):
        return display
    return username


def agent() -> dict:
    """The one act an agent may take on the person's side: entering plan mode."""
    return {"name": None, "via": "agent"}


def said(by: dict | None) -> str:
    """Who and where, after a verb: "by alice in the panel", the same for every reader (a saved
    notebook is read by others); "" when the event says nobody (written before it was kept)."""
    if not isinstance(by, dict):
        return ""
    where = _WHERE.get(by.get("via"), "")
    if by.get("via") == "agent":
        return where
    return f"by {shown_name(by) or 'someone'} {where}".strip()


def shown_name(by: dict | None) -> str | None:
    """The recorded name, with the display name beside it where it says another: "dana (Dana
    Scully)"."""
    if not isinstance(by, dict) or not by.get("name"):
        return None
    display = by.get("display")
    return f"{by['name']} ({display})" if display and display != by["name"] else by["name"]


def who_and_where(by: dict | None) -> tuple[str | None, str]:
    """(the name, with the display name beside it, or None; where, in words) of an event's
    `by`, for the journal."""
    if not isinstance(by, dict):
        return None, ""
    return shown_name(by), _WHERE.get(by.get("via"), "")
