"""`jupyter-plans hook EVENT`: the plan at a coding agent's hook points (Claude Code, Codex CLI).

The host runs the command with its hook JSON on stdin and reads the answer on stdout. At the
start of a session (and after compaction) and with each prompt the agent gets the bounded
context block; before a tool that changes the world, plan mode or a waiting proposal denies
it with a one-line reason; before compaction and at stop the person gets a short reminder.
The hook never changes the plan and runs nothing; the one thing it writes is its heartbeat
(`guard_seen`, at most once in 10 s per agent), so the card can show that the guard runs. A
plan it cannot read is a warning, never a block: a hook that blocked every tool because of a
broken file would be worse than none. A notebook that is gone is another matter: the hook
cannot tell whether plan mode holds there, so it refuses (target.py).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from .seen import beat

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PreCompact", "Stop")
MAX_INPUT_BYTES = 1 << 20  # 1 MiB
DEFAULT_GUARD = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "apply_patch")
EXECUTE_TOOLS = ("Bash",)  # the others in the guard list write; the word is only for the reason
# Claude Code keeps hook output it injects into context to 10,000 characters (UTF-16 units,
# as JavaScript counts): past that the model sees a 2 KB preview and a file path instead.
CONTEXT_LIMIT = 9500
PROMPT_LIMIT = 2000
MIN_LIMIT = 2000


def read_input(stream: Any) -> tuple[dict | None, str | None]:
    """The host's hook JSON, or why it could not be read (one line)."""
    data = stream.read(MAX_INPUT_BYTES + 1) if stream is not None else b""
    if len(data) > MAX_INPUT_BYTES:
        return None, f"the hook input is larger than 1 MiB ({MAX_INPUT_BYTES} bytes); not read"
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else _line(exc)
        return None, f"the hook input is not JSON: {reason}"
    if not isinstance(payload, dict):
        return None, f"the hook input is not a JSON object; found {type(payload).__name__}"
    return payload, None


@dataclass
class _Plan:
    """What the hook read: the snapshot JSON, where it came from, and the agent's context."""

    snapshot: dict
    where: str
    context: str | None = None


def _read(args: argparse.Namespace, read: Any) -> tuple[Any, str | None]:
    """`read(store, label)` on the store opened read-only, or why it failed (one line)."""
    from ..store.locate import for_command
    from ..store.readonly import open_read_only

    try:
        # --notebook found as every surface finds it (JUPYTER_PLANS_DATABASE and _SESSION_ID
        # too); --db and --session win where given.
        found = for_command(args.notebook, args.db, args.session)
        args.session = found.session
        with open_read_only(found.database) as store:
            label = f"the notebook {Path(args.notebook).name}" if args.notebook else store.where
            found = read(store, label)
            beat(store, args.event, getattr(args, "payload", None))
            return found, None
    except Exception as exc:  # whatever is wrong with the store, the host gets an answer
        return None, _line(exc)


def _locate(args: argparse.Namespace, payload: dict | None) -> tuple[str | None, str | None]:
    """With --notebook: (why the hook cannot tell, as its notebook is gone; what it says once
    when it follows the plan of its renamed notebook), and args made to read that plan."""
    args.payload = payload
    if not args.notebook:
        return None, None
    from .target import locate

    target = locate(args.notebook, payload)
    if target.notebook is not None:
        args.notebook = str(target.notebook)
    return target.gone, target.followed


def _read_plan(args: argparse.Namespace, limit: int | None = None) -> tuple[Any, str | None]:
    """The session's state through PlanSession's own reads, with the context block within
    `limit` characters when one is asked for; or why it could not be read."""

    def read(store: Any, label: str) -> _Plan:
        from ..session import PlanSession

        store.check_schema()
        session = PlanSession.of(store, args.session)
        snapshot = session.snapshot().model_dump(mode="json")
        plan = _Plan(snapshot, f"{label}, session {snapshot['session_id']}")
        if limit is not None:
            from ..agents.context import context_block

            header = _header(plan)
            budget = limit - len(header) - 1
            for _ in range(4):  # a character outside the BMP counts twice for the host
                plan.context = header + "\n" + context_block(session, limit=budget)
                excess = _utf16_length(plan.context) - limit
                if excess <= 0:
                    break
                budget -= excess
            else:
                raise ValueError(f"the context block does not fit in {limit} characters")
        return plan

    return _read(args, read)


def answer(args: argparse.Namespace, payload: dict | None, problem: str | None) -> dict | None:
    event = args.event
    sent = (payload or {}).get("hook_event_name", event)
    if sent != event:
        return _warn(f"this hook is registered for {event} but the host sent {_short(sent)}")
    if event == "PreToolUse":
        return _pre_tool_use(args, payload, problem)
    gone, followed = _locate(args, payload)
    if gone:
        return _warn(gone, problem)
    problem = "; ".join(filter(None, [followed, problem])) or None
    if event in ("SessionStart", "UserPromptSubmit"):
        limit = args.limit if event == "SessionStart" else args.prompt_limit
        plan, unread = _read_plan(args, limit)
        if plan is None:
            return _warn(f"the agent did not get the plan: {unread}", problem)
        context = {"hookEventName": event, "additionalContext": plan.context}
        if event == "SessionStart" and plan.snapshot["cursor"] == 0:
            # Nothing ever happened in it: a new session, or a --session that names none.
            problem = "; ".join(filter(None, [f"{plan.where} has no history yet", problem]))
        return {"hookSpecificOutput": context} | _warn(problem)
    plan, unread = _read_plan(args)
    if plan is None:
        return _warn(f"cannot read the plan: {unread}", problem)
    return _warn(_reminder(event, plan), problem) or None


def _pre_tool_use(args: argparse.Namespace, payload: dict | None, problem: str | None):
    tool = (payload or {}).get("tool_name")
    if not isinstance(tool, str):
        tool = None
        problem = problem or "the hook input has no tool_name"
    elif not _guarded(tool, args.guard) or _claude_plan_file(tool, payload):
        return None  # not a tool the plan holds, or Claude Code's own plan: allowed, quickly
    gone, followed = _locate(args, payload)
    if gone:  # plan mode or not: what cannot be checked is refused
        return _deny(f"jupyter-plans: {_short(tool or 'the tool')} is refused: {gone}")
    answered = _gated(args, tool, problem) or {}
    if followed:  # said beside the decision, or before the warning there was
        said = answered.pop("systemMessage", "").removeprefix("jupyter-plans: ")
        answered |= _warn(followed, said or None)
    return answered or None


def _gated(args: argparse.Namespace, tool: str | None, problem: str | None) -> dict | None:
    """PreToolUse's answer for a guarded tool, from the plan's mode and waiting proposal."""
    gate, unread = _read(args, lambda store, label: store.gate(args.session))
    if gate is None:
        if getattr(args, "ask", False):  # the one who is asked reads the plan again
            return _decision("ask", f"jupyter-plans: {unread}")
        return _warn(f"{_short(tool or 'a tool')} ran unchecked: {unread}", problem)
    mode, pending = gate
    waiting = pending is not None
    if mode != "plan" and not waiting:
        return _warn(problem) or None
    if getattr(args, "ask", False):
        state = "a proposal waits for the person's decision" if waiting else "plan mode"
        return _decision("ask", f"jupyter-plans: {state}; the client decides")
    if tool is None:
        return _deny(
            f"jupyter-plans: {problem}, so the tool cannot be told apart from one that changes "
            "the world, and the session is in plan mode or waits for the person's decision"
        )
    from ..plan.guard import guard_refusal

    risk = "execute" if tool in EXECUTE_TOOLS or tool.startswith("mcp__") else "write"
    reason = f"jupyter-plans: {guard_refusal(_short(tool), risk, mode, waiting)}"
    if not waiting:
        reason += (
            " (plan_submit is a tool of the jupyter-plans MCP server; without it, describe the "
            "plan in your reply and let the person decide)"
        )
    return _deny(reason)


def _claude_plan_file(tool: str, payload: dict | None) -> bool:
    """True for Claude Code writing its own plan in its plan mode: a Markdown file directly in
    its plans folder ($CLAUDE_CONFIG_DIR or ~/.claude, then plans/), the file its ExitPlanMode
    proposes. Its plan mode allows that write alone; refusing it would leave no plan to propose."""
    if tool not in ("Write", "Edit", "MultiEdit") or payload.get("permission_mode") != "plan":
        return False
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(path, str) or not path.endswith(".md"):
        return False
    home = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    try:
        return Path(path).resolve().parent == (Path(home) / "plans").resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def _guarded(tool: str, patterns: tuple[str, ...]) -> bool:
    from ..plan.guard import RESERVED_NAMES

    # The plan tools themselves (plan_submit above all) must get through in plan mode.
    if tool in RESERVED_NAMES or (
        tool.startswith("mcp__") and tool.split("__")[-1] in RESERVED_NAMES
    ):
        return False
    return any(fnmatchcase(tool, pattern) for pattern in patterns)


def _header(plan: _Plan) -> str:
    """jupyter-plans' own words before the context block: at most about 510 characters, so
    even the smallest block of the largest state fits beside it in 2,000."""
    snapshot = plan.snapshot
    header = (
        f"jupyter-plans keeps the plan of this work ({_short(plan.where, 160)}); the person "
        "reads it beside the notebook and decides on proposals. Keep it current with update_plan."
    )
    if snapshot["pending_proposal_hash"]:
        header += (
            " A proposal waits for the person's decision: tools that change the world are "
            "refused until they approve it; end your turn and wait."
        )
    elif snapshot["mode"] == "plan":
        header += (
            " The session is in plan mode: tools that change the world are refused; research "
            "with read-only tools, then propose with plan_submit and wait for the decision."
        )
    return header


def _reminder(event: str, plan: _Plan) -> str | None:
    """One line for the person at PreCompact and Stop, or None when there is nothing to say."""
    snapshot, current = plan.snapshot, plan.snapshot["plan"]
    if snapshot["pending_proposal_hash"]:
        return (
            f"proposal {snapshot['pending_proposal_hash'][:12]} ({plan.where}) waits for your "
            "decision: %plan approve, %plan revise NOTES or %plan off in the notebook"
        )
    if event == "Stop" and snapshot["mode"] == "plan":
        return f"plan mode ({plan.where}): no proposal waits yet"
    if current is None:
        return None
    steps = current["steps"]
    done = sum(step["status"] == "completed" for step in steps)
    progress = f"plan revision {current['revision']}: {done} of {len(steps)} steps completed"
    doing = next((step["id"] for step in steps if step["status"] == "in_progress"), None)
    if doing:
        progress += f", {doing} in progress"
    unfinished = done < len(steps)
    if event == "PreCompact":
        record = "; record this turn's progress with update_plan" if unfinished else ""
        return f"{progress}{record}; the plan is given back to the agent after compaction"
    if not unfinished:
        return None
    return f"{progress}; progress made this turn belongs in the plan (update_plan)"


def _deny(reason: str) -> dict:
    return _decision("deny", reason)


def _decision(decision: str, reason: str) -> dict:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def _warn(*parts: str | None) -> dict:
    """A line for the person (`systemMessage`), never a decision or a block; {} for none."""
    text = "; ".join(filter(None, parts))
    return {"systemMessage": f"jupyter-plans: {text}"} if text else {}


def _short(value: Any, most: int = 80) -> str:
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
