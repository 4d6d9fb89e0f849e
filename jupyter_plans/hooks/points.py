"""`jupyter-plans hook EVENT`: the plan at a coding agent's hook points (its host:
agents/hosts/).

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

import os

from ..agents.hosts.registry import context_limit
from . import tool_use
from .tool_use import DEFAULT_GUARD, EVENTS, locate, read_store, sent_another, short, warn

TYPE_CHECKING = False  # typing is not loaded at run time: see tool_use.py
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["DEFAULT_GUARD", "EVENTS", "answer"]

# Hook output a host injects into context is kept whole up to a limit (each host's, in
# agents/hosts/): past it the model may see a preview and a file path instead.
CONTEXT_LIMIT = context_limit()
PROMPT_LIMIT = 2000
MIN_LIMIT = 2000


class _Plan:
    """What the hook read: the snapshot JSON, where it came from, and the agent's context."""

    def __init__(self, snapshot: dict, where: str) -> None:
        self.snapshot, self.where, self.context = snapshot, where, None


def _read_plan(args: argparse.Namespace, limit: int | None = None) -> tuple[Any, str | None]:
    """The session's state through PlanSession's own reads, with the context block within
    `limit` characters when one is asked for; or why it could not be read."""

    def read(store: Any) -> _Plan:
        from ..session.reads import SessionReads  # reads only: not the store that writes

        label = f"the notebook {_file_name(args.notebook)}" if args.notebook else store.where
        store.check_schema()
        session = SessionReads.of(store, args.session)
        snapshot = session.snapshot_data()  # the snapshot's JSON, made without the models
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

    return read_store(args, read)


def answer(args: argparse.Namespace, payload: dict | None, problem: str | None) -> dict | None:
    """The answer at every hook point but PreToolUse (tool_use.py's): the context block, or
    a reminder for the person."""
    event = args.event
    if event == "PreToolUse":
        return tool_use.answer(args, payload, problem)
    other = sent_another(event, payload)
    if other is not None:
        return other
    gone, followed = locate(args, payload)
    if gone:
        return warn(gone, problem)
    problem = "; ".join(filter(None, [followed, problem])) or None
    if event in ("SessionStart", "UserPromptSubmit"):
        limit = args.limit if event == "SessionStart" else args.prompt_limit
        plan, unread = _read_plan(args, limit)
        if plan is None:
            return warn(f"the agent did not get the plan: {unread}", problem)
        context = {"hookEventName": event, "additionalContext": plan.context}
        if event == "SessionStart" and plan.snapshot["cursor"] == 0:
            # Nothing ever happened in it: a new session, or a --session that names none.
            problem = "; ".join(filter(None, [f"{plan.where} has no history yet", problem]))
        return {"hookSpecificOutput": context} | warn(problem)
    plan, unread = _read_plan(args)
    if plan is None:
        return warn(f"cannot read the plan: {unread}", problem)
    return warn(_reminder(event, plan), problem) or None


def _header(plan: _Plan) -> str:
    """jupyter-plans' own words before the context block: at most about 510 characters, so
    even the smallest block of the largest state fits beside it in 2,000."""
    snapshot = plan.snapshot
    header = (
        f"jupyter-plans keeps the plan of this work ({short(plan.where, 160)}); the person "
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


def _file_name(path: str) -> str:
    """PurePath(path).name without loading pathlib: the last part neither empty nor '.'."""
    if os.altsep:
        path = path.replace(os.altsep, os.sep)
    return next((part for part in reversed(path.split(os.sep)) if part not in ("", ".")), "")


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2
