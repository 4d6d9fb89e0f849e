"""Codex CLI as a host of the hooks: how it announces itself to a hook, where its hooks file
is, the trust it needs before it runs them (codex_trust.py reads it, codex_config.py records
it), and what `hook doctor codex` says.

Imported by the hook's PreToolUse: the standard library's os and stat alone at import time.
"""

from __future__ import annotations

import os
import stat
import sys

from ... import json_lite

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .reading import Finding, Plan

ID = "codex"
NAME = "Codex"  # as the card says it
SETTINGS_FILE = ".codex/hooks.json"  # where `hook install --write` merges the hooks
INSTALL_FLAG = "--trust"  # what `hook install` needs for the hooks to run
# Signs of this host in a hook's input, checked across hosts by rank (lowest first): Codex
# sends `turn_id` with a turn's events and `model` at session start, and its npm launcher
# sets CODEX_MANAGED_PACKAGE_ROOT, whose package.json has its version.
SIGNS = (
    (0, "payload", "turn_id"),
    (2, "env", "CODEX_MANAGED_PACKAGE_ROOT"),
    (2, "payload", "model"),
)
TRUST_HELP = (
    "codex only, implies --write: record in Codex's config.toml that you trust these "
    "hooks and this project, as Codex's own review does (Codex runs a project's hooks only "
    "once trusted, and from 0.167 only in a trusted project); then check, as hook doctor "
    "does, that Codex will run them"
)
PRINTED_NOTE = (
    "jupyter-plans: Codex runs a project's hooks only once you trust them, and "
    "`codex exec` cannot ask; with --trust this command registers them and records "
    "that trust"
)
MCP_CLIENT = ("codex-mcp-client", "Codex (0.166 to 0.171 never list the tools again)")
CONTEXT_LIMIT = None  # none known past the others'


def version(environ: Any) -> str | None:
    """Its version, from the package.json of the npm package that launched it."""
    root = environ.get("CODEX_MANAGED_PACKAGE_ROOT")
    if not root:
        return None
    try:  # a regular file's first 64 KiB, never waiting on a FIFO or reading a device
        fd = os.open(os.path.join(root, "package.json"), os.O_RDONLY | os.O_NONBLOCK)
        try:
            data = os.read(fd, 65536) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
        found = json_lite.loads(data.decode("utf-8-sig"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if isinstance(found, str) else None


def own_plan_write(tool: str, payload: dict) -> bool:
    return False  # its plan mode writes no file of its own


def after_install(path: Path, hooks: dict, trust: bool, checked: Any) -> int:
    """After the hooks were written: what the install says of Codex's trust in them, or with
    `trust`, that trust recorded and the doctor's look (`checked(said)`)."""
    from pathlib import Path

    from . import codex_config

    commands = {
        handler["command"]
        for groups in hooks.values()
        for group in groups
        for handler in group["hooks"]
    }
    config = codex_config.config_file()
    try:
        ours = codex_config.registered(path, commands)
        if not trust:
            print(f"jupyter-plans: {codex_config.note(ours, Path.cwd(), config)}")
            return 0
        said = codex_config.trust(ours, config, Path.cwd())
    except (OSError, ValueError) as exc:
        print(f"jupyter-plans: Codex's trust was not recorded: {exc}", file=sys.stderr)
        return 1
    return checked(said)


def guard_warning(notebook: Any, plan_file: Any, session_id: str) -> str | None:
    """The card's warning when this plan's guard is registered for Codex and Codex would not
    run it (codex_trust.py)."""
    from .codex_trust import guard_warning

    return guard_warning(notebook, plan_file, session_id)


def diagnose(plan: Plan, unread: list[str]) -> Finding:
    """`hook doctor codex`: the hooks files of the folders it may be started in, and its
    config.toml's trust in them and their project."""
    import shlex

    from ..config_files import ConfigError
    from .codex_trust import HOOKS_FILE, check, codex_home, registered_guards
    from .reading import Finding

    home = codex_home()
    config = home / "config.toml"
    files = [folder / HOOKS_FILE for folder in plan.folders(ID)]
    unreadable: list[ConfigError] = []
    registered = registered_guards(files, plan.notebook, plan.plan, plan.session, unreadable)
    unread.extend(str(exc) for exc in unreadable)
    try:
        checked = check(registered, home)
    except ConfigError as exc:  # its config.toml
        fix = f"make {config} a readable TOML file, then run: jupyter-plans hook doctor codex"
        return Finding(ID, False, f"codex: no: {exc}, and Codex cannot read it either; {fix}")
    if checked is None:
        fix = f"jupyter-plans hook install codex {plan.words} --trust"
        return Finding(
            ID,
            False,
            f"codex: no: no .codex/hooks.json in {plan.folders(ID)[0]} or a folder above "
            f"it registers this plan's hooks; to fix it, run in the folder you start Codex in: "
            f"{fix}",
            registered=False,
        )
    project = checked.hooks_file.parent.parent
    fix = f"cd {shlex.quote(str(project))} && jupyter-plans hook install codex {plan.words} --trust"
    if checked.runs:
        return Finding(
            ID,
            True,
            f"codex: yes: Codex runs this plan's hooks when started in {project}: they are "
            f"registered in {checked.hooks_file}, and {config} trusts them and the project",
        )
    if checked.hook_reason is not None:
        said = (
            f"this plan's guard hook in {checked.hooks_file} is {checked.hook_reason} in "
            f"{config}, and Codex skips it without a word"
        )
    else:
        said = (
            f"Codex 0.167 and later load {project}/.codex/ only in a project you trust, and "
            f"{project} is {checked.project_reason} in {config}"
        )
    return Finding(ID, False, f"codex: no: {said}; to fix it, run: {fix}")
