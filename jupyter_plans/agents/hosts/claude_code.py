"""Claude Code as a host of the hooks: how it announces itself to a hook, where its settings
are, what its plan mode writes, and what `hook doctor claude-code` reads (claude_settings.py).

Imported by the hook's PreToolUse: the standard library's os alone at import time.
"""

from __future__ import annotations

import os

from ...lazy import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .reading import Finding, Plan

ID = "claude-code"
NAME = "Claude Code"  # as the card says it
SETTINGS_FILE = ".claude/settings.json"  # where `hook install --write` merges the hooks
INSTALL_FLAG = "--write"  # what `hook install` needs for the hooks to run
# Signs of this host in a hook's input, checked across hosts by rank (lowest first): Claude
# Code sets CLAUDE_PROJECT_DIR for every hook (CLAUDECODE in its shells).
SIGNS = ((1, "env", "CLAUDE_PROJECT_DIR"), (1, "env", "CLAUDECODE"))
TRUST_HELP = None  # no hook trust to record
PRINTED_NOTE = None  # nothing to say beside the printed settings
MCP_CLIENT = None  # its MCP client lists the tools again on `list_changed`
# It keeps hook output it injects into context to 10,000 characters (UTF-16 units, as
# JavaScript counts): past that the model sees a 2 KB preview and a file path instead.
CONTEXT_LIMIT = 9500

_AI_AGENT = LazyPattern(r"claude-code_(\d+(?:-\d+){1,3})(?:_|$)")


def version(environ: Any) -> str | None:
    """Its version where it says it: 2.1.3xx set `AI_AGENT=claude-code_2-1-332_...`."""
    found = _AI_AGENT.match(environ.get("AI_AGENT", ""))
    return found.group(1).replace("-", ".") if found else None


def own_plan_write(tool: str, payload: dict) -> bool:
    """True for Claude Code writing its own plan in its plan mode: a Markdown file directly in
    its plans folder ($CLAUDE_CONFIG_DIR or ~/.claude, then plans/), the file its ExitPlanMode
    proposes. Its plan mode allows that write alone; refusing it would leave no plan to propose."""
    if tool not in ("Write", "Edit", "MultiEdit") or payload.get("permission_mode") != "plan":
        return False
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(path, str) or not path.endswith(".md"):
        return False
    from pathlib import Path  # only for this write, in Claude Code's plan mode

    home = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    try:
        return Path(path).resolve().parent == (Path(home) / "plans").resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def after_install(path: Path, hooks: dict, trust: bool, checked: Any) -> int:
    """After the hooks were written: the doctor's look (`checked(said)`)."""
    return checked(None)


def guard_warning(notebook: Any, plan_file: Any, session_id: str) -> str | None:
    """The card's warning that Claude Code would not run this plan's guard: none is read."""
    return None


def diagnose(plan: Plan, unread: list[str]) -> Finding:
    """`hook doctor claude-code`: the settings files of the folders it may be started in."""
    from pathlib import Path

    from . import claude_settings as claude
    from .reading import Finding

    def layers(folder: Path) -> list[claude.Layer]:
        found = claude.layers(folder)
        unread.extend(f"{layer.path} {layer.error}" for layer in found if layer.error)
        return found

    fix = f"jupyter-plans hook install claude-code {plan.words} --write"
    candidates = []  # (folder, the file that registers ours)
    for folder in plan.folders(ID):
        for layer in layers(folder)[1:3]:
            if any(plan.ours(c) for c in claude.pre_tool_commands(layer.data)):
                candidates.append((folder, layer))
    user = layers(Path.cwd())[3]
    if not candidates and any(plan.ours(c) for c in claude.pre_tool_commands(user.data)):
        candidates.append((plan.folders(ID)[0], user))
    if not candidates:
        return Finding(
            ID,
            False,
            "claude-code: no: no settings file registers this plan's hooks (.claude/settings"
            f".json in {plan.folders(ID)[0]} or a folder above it, or "
            f"{user.path}); to fix it, run in the folder you start Claude Code in: {fix}",
            registered=False,
        )
    reasons = []
    for folder, layer in candidates:
        off = claude.why_off(layers(folder), plan.ours)
        if off is None:
            return Finding(
                ID,
                True,
                f"claude-code: yes: Claude Code runs this plan's hooks when started in {folder}:"
                f" they are registered in {layer.path}, and no settings file turns hooks off",
            )
        reasons.append((folder, *off))
    folder, layer, said = reasons[0]
    if layer.name == "managed settings":
        remedy = f"ask whoever manages {layer.path} to change it"
    elif layer.name == "local project settings":
        remedy = f'set "disableAllHooks": false in {layer.path}'
    else:
        remedy = f'set "disableAllHooks": false in {folder / ".claude" / "settings.local.json"}'
    return Finding(
        ID,
        False,
        f"claude-code: no: Claude Code started in {folder} runs none of this plan's hooks: its "
        f"{layer.name} {layer.path} {said}; to fix it, {remedy}",
    )
