"""progress.md: a session's events told as a readable account, oldest first.

Each line is one event that a reader would want: the plan's revisions and what changed in
them, proposals and the person's decisions, the agent's questions and the person's words,
cancelled turns, the final review, and the refusals worth knowing. A refused call that the
agent corrected with its next call is counted, not listed. Bookkeeping (deliveries, the
notices the agent is sent about a decision) is left out.
"""

from __future__ import annotations

from ..plan.cells import completed_steps
from ..plan.models import Event
from ..plan.revision import diff_steps
from ..plan.text import counted
from ..plan.who import who_and_where
from .comments import comment_event_line
from .markdown import clipped, inert

# The event of an accepted call, by kind: which tool it was.
_ACCEPTED_TOOL = {
    "decision_recorded": "record_decision",
    "plan_finished": "finish_plan",
    "question_asked": "ask_user",
}


def _b(ident: str) -> str:
    return f"**{inert(ident)}**"


def _ids(steps: list) -> str:
    return ", ".join(_b(s if isinstance(s, str) else s["id"]) for s in steps)


def _tool_of(event: Event) -> tuple[str | None, bool]:
    """(the tool an agent's call event is of, whether it was accepted), or (None, False)."""
    if event.kind == "tool_finished":
        return event.data["name"], False
    if event.kind == "plan_updated" and event.data["name"] != "user_edit":
        return event.data["name"], True
    return _ACCEPTED_TOOL.get(event.kind), True


def _corrected(events: list[Event]) -> set[int]:
    """The seqs of refused calls whose tool's very next call was accepted."""
    corrected, refused = set(), None
    for event in events:
        name, accepted = _tool_of(event)
        if name is None:
            continue
        if refused is not None and accepted and name == refused.data["name"]:
            corrected.add(refused.seq)
        refused = None if accepted else event
    return corrected


def _changes(before: dict | None, plan: dict) -> str:
    """What a new revision changed, in words."""
    old_steps = before["steps"] if before else []
    diff = diff_steps(old_steps, plan["steps"])
    old = {s["id"]: s for s in old_steps}
    parts = []
    if diff["added"]:
        parts.append(f"added {_ids(diff['added'])}")
    if diff["removed"]:
        parts.append(f"removed {_ids(diff['removed'])}")
    if diff["reworded"]:
        parts.append(f"reworded {_ids(diff['reworded'])}")
    if diff["reordered"] and not (diff["added"] or diff["removed"]):
        parts.append("reordered the steps")
    for step in plan["steps"]:
        was = old.get(step["id"], {}).get("status")
        if step["status"] == was or (was is None and step["status"] == "pending"):
            continue
        if step["status"] == "completed":
            evidence = f" (evidence: {inert(step['evidence'])})" if step["evidence"] else ""
            parts.append(f"marked {_b(step['id'])} complete{evidence}")
        elif step["status"] == "in_progress":
            parts.append(f"started {_b(step['id'])}")
        elif was is not None:
            parts.append(f"set {_b(step['id'])} back to pending")
    revised = [
        f for f in ("explanation", "findings", "objectives") if before and before[f] != plan[f]
    ]
    if revised:
        listed = revised[0] if len(revised) == 1 else f"{', '.join(revised[:-1])} and {revised[-1]}"
        parts.append(f"revised the {listed}")
    return "; ".join(parts)


def _plan_line(event: Event, before: dict | None) -> str:
    plan, name = event.data["plan"], event.data["name"]
    revision = plan["revision"]
    if name == "plan_submit":
        steps, objectives = len(plan["steps"]), len(plan["objectives"])
        size = f"{counted(steps, 'step')}, {counted(objectives, 'objective')}"
        changed = _changes(before, plan) if before else ""
        return f"The agent proposed a plan as revision {revision}: {size}" + (
            f" ({changed})." if changed else "."
        )
    if name == "user_edit":
        person, where = who_and_where(event.data.get("by"))
        who = f"{inert(person) if person else 'The person'} edited"
        where = f" {where}" if where else ""
    else:
        who, where = "The agent updated", ""
    if before is None and name != "user_edit":
        return (
            f"The agent wrote the plan (revision {revision}): {counted(len(plan['steps']), 'step')}"
            f" in {counted(len(plan['phases']), 'phase')}, "
            f"{counted(len(plan['objectives']), 'objective')}."
        )
    changed = _changes(before, plan) or "nothing in the steps changed"
    return f"{who} the plan{where} to revision {revision}: {changed}."


def _line(event: Event, before: dict | None) -> str | None:
    data, kind = event.data, event.kind
    if kind == "plan_updated":
        return _plan_line(event, before)
    if kind == "cell_ran":
        return _cell_line(data, before)
    if kind == "step_checked":
        return _check_line(data)
    if kind == "tool_finished":
        reason = inert(clipped(data["result"]["content"]))
        return f"The agent's {inert(data['name'])} call was refused: {reason}"
    if kind == "proposal_submitted":
        return f"Proposal `{data['hash'][:12]}` (revision {data['revision']}) waits for the person."
    if kind == "decision":
        return verdict_line(data)
    if kind == "mode_changed":
        where = _where(data)
        return ("Plan mode on" if data["mode"] == "plan" else "Back to default mode") + f"{where}."
    if kind == "decision_recorded":
        return f"The agent recorded a decision: {inert(data['title'])} (see decisions.md)."
    if kind.startswith("comment_"):
        return comment_event_line(kind, data)
    return _other_line(event)


def _where(data: dict) -> str:
    """ ", by alice in the panel" for a person's act; "" when the event says nobody."""
    name, where = who_and_where(data.get("by"))
    if name is None and not where:
        return ""
    return f", {'by ' + inert(name) + ' ' if name else ''}{where}".rstrip()


def verdict_line(data: dict) -> str:
    """A decision on a proposal in words, with who made it and where."""
    proposal = f"`{(data['hash'] or '')[:12]}`"
    name, where = who_and_where(data.get("by"))
    who = inert(name) if name else "The person"
    where = f" {where}" if where else ""
    follow = data.get("comments")
    with_comments = f" with comments {', '.join(follow)} to follow" if follow else ""
    return {
        "approved": f"{who} approved proposal {proposal}{where}{with_comments}.",
        "changes_requested": f"{who} asked for changes to proposal {proposal}{where}.",
        "left": f"{who} left plan mode{where}, dropping proposal {proposal}.",
        "dropped": f"Proposal {proposal} dropped: {inert(data['why'])}."
        if data.get("why")
        else f"Plan mode started again, dropping proposal {proposal}.",
    }.get(data["action"], f"Decision {inert(data['action'])} on proposal {proposal}.")


def _other_line(event: Event) -> str | None:
    data, kind = event.data, event.kind
    if kind == "message_queued":
        if data["source"] == "person":
            name, _ = who_and_where(data.get("by"))
            return f"{inert(name) if name else 'The person'} wrote: {inert(clipped(data['text']))}"
        if data["source"] == "automatic":
            return f"Automatic work was queued: {inert(clipped(data['text']))}"
        return None  # a notice restates a decision the account already tells
    if kind == "turn_cancelled":
        return f"The agent's turn {inert(data['turn_id'])} was cancelled."
    if kind == "question_asked":
        return f"The agent asked the person: {inert(data['question'])}"
    if kind == "question_closed":
        if data["action"] == "answered":
            return "That answered the agent's question."
        return "The agent's question was dropped unanswered."
    if kind == "plan_finished":
        return (
            f"The agent finished the plan at revision {data['revision']}, reviewing its "
            f"{counted(len(data['review']), 'objective')} (see plan.md)."
        )
    if kind == "plan_reopened":
        return f"Revision {data['revision']} reopened the finished plan."
    if kind == "message_delivered":
        return None
    return f"Event {inert(kind)}."


def _cell_line(data: dict, plan: dict | None) -> str:
    """A cell that ran for a step; for a completed step, it ran again with other code."""
    count = "-" if data["execution_count"] is None else data["execution_count"]
    cell, step = inert("cell:" + data["cell_id"]), inert(data["step_id"])
    failed = ", and failed" if not data["ok"] else ""
    if data["step_id"] in completed_steps(plan):
        return (
            f"Cell [{count}] {cell} ran again with other code after {step} was completed{failed}."
        )
    return f"Cell [{count}] {cell} ran for step {step}{failed}."


def _check_line(data: dict) -> str:
    """A run of a step's check: where, who asked for it (none: it ran by itself at the end of
    a cell, its step being completed), and how it went."""
    count = data["execution_count"]
    where = "outside a cell" if count is None else f"in cell [{count}]"
    who = _where(data) if data.get("by") else ", by itself at the end of the cell"
    said = data["error"] if data["error"] is not None else data["value"]
    how = "passed" if data["ok"] else f"failed ({inert(said)})"
    return f"The check of {_b(data['step_id'])} ran {where}{who}: {how}."


def progress_lines(events: list[Event]) -> list[str]:
    """The account as Markdown lines: a heading per day (UTC), an item per event told."""
    corrected = _corrected(events)
    lines: list[str] = []
    day, plan = None, None
    for event in events:
        text = None if event.seq in corrected else _line(event, plan)
        if event.kind == "plan_updated":
            plan = event.data["plan"]
        if text is None:
            continue
        if event.at[:10] != day:
            day = event.at[:10]
            lines += ["", f"## {day} (UTC)", ""] if lines else [f"## {day} (UTC)", ""]
        lines.append(f"- {event.at[11:19]}, event {event.seq}: {text}")
    if not lines:
        lines.append("Nothing has happened yet.")
    if corrected:
        count = len(corrected)
        told = (
            "call that the agent corrected with its next call is"
            if count == 1
            else "calls that the agent corrected with their next calls are"
        )
        lines += ["", f"{count} refused {told} not listed."]
    return lines
