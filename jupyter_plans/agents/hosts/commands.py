"""The command lines `hook install` registers, as a host's settings hold them: whether one is
this plan's PreToolUse guard, and its options."""

from __future__ import annotations

import os
import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def command_options(command: str) -> dict[str, str] | None:
    """The options of a `jupyter-plans hook PreToolUse ...` command line, or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    at = words.index("hook") if "hook" in words else -1
    if at < 0 or words[at + 1 : at + 2] != ["PreToolUse"]:
        return None
    return {words[i]: words[i + 1] for i in range(len(words) - 1) if words[i].startswith("--")}


def guards_plan(
    command: str, notebook: Path | None, plan_file: Path | None, session_id: str | None = None
) -> bool:
    """Whether a hook command is this plan's PreToolUse guard (of any session, by default)."""
    options = command_options(command)
    if options is None:
        return False
    if session_id is not None and options.get("--session", session_id) != session_id:
        return False
    for option, path in (("--notebook", notebook), ("--db", plan_file)):
        if path is not None and option in options and _same(options[option], path):
            return True
    return False


def _same(named: str, path: Path) -> bool:
    return os.path.realpath(os.path.expanduser(named)) == os.path.realpath(path)
