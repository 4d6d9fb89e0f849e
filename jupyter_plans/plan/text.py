"""The plan as plain text, deterministic (no session ids, times or paths): terminals, nbval."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .checks import counts_line
from .comments import anchor_words, count_open
from .who import said

if TYPE_CHECKING:
    from .models import Event, Snapshot

_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
LABEL_CHARS = 48  # a session's task, as its label shows it


def _json(value: Any) -> Any:
    """A model as its JSON data; JSON data as it is."""
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def render_text(snapshot: Snapshot | dict, question: str | None = None, review: Any = None) -> str:
    """The card as text, from a snapshot or its JSON; `question` is the agent's open ask_user
    question, if any, and `review` the final review (a FinalReview or its JSON) while the plan
    is finished."""
    snapshot, review = _json(snapshot), _json(review)
    plan = snapshot["plan"]
    lines = []
    head = f"Plan ({snapshot['mode']} mode)"
    asked = [f"The agent asks: {question}"] if question else []
    commented = _open_comments(snapshot)
    if plan is None:
        return "\n".join([head + ": no plan yet", *asked, *commented])
    done = sum(step["status"] == "completed" for step in plan["steps"])
    lines.append(
        f"{head}, revision {plan['revision']}: {done} of {len(plan['steps'])} steps marked complete"
    )
    if review and plan["revision"] == review["revision"]:
        lines.append("Finished: the agent reviewed every objective")
    else:
        review = None
    checked = counts_line(snapshot.get("checks") or {})
    if checked:
        lines.append(checked)
    if snapshot["pending_proposal_hash"]:
        lines.append(f"Proposal {snapshot['pending_proposal_hash'][:12]} waits for your decision")
    lines.extend(asked)
    lines.extend(commented)
    if plan["explanation"]:
        lines.append(f"Why: {plan['explanation']}")
    for title, items in (("Findings", plan["findings"]), ("Objectives", plan["objectives"])):
        if items:
            lines.append(f"{title}:")
            lines.extend(f"  - {item}" for item in items)
    for phase in plan["phases"]:
        if phase["title"] is not None:
            lines.append(f"{phase['title']}:")
        for step in phase["steps"]:
            line = f"  {_MARKS[step['status']]} {step['id']}: {step['description']}"
            if step["depends_on"]:
                line += f" (after {', '.join(step['depends_on'])})"
            lines.append(line)
            if step["acceptance"]:
                lines.append(f"        done when: {step['acceptance']}")
            if step["evidence"]:
                lines.append(f"        evidence: {step['evidence']}")
    if review:
        lines.append("Final review:")
        for item in review["review"]:
            lines.append(f"  - {item['objective']}: {item['outcome']}")
            lines.append(f"        evidence: {item['evidence']}")
    if snapshot["decisions"]:
        lines.append("Decisions:")
        lines.extend(f"  - {d['title']}: {d['rationale']}" for d in snapshot["decisions"])
    return "\n".join(lines)


def status_line(
    snapshot: Snapshot | dict, question: str | None = None, finished: bool = False
) -> str:
    """One line, from a snapshot or its JSON: the mode, the revision, the progress, whether
    the plan is finished, any waiting proposal or question."""
    snapshot = _json(snapshot)
    mode = "Plan mode" if snapshot["mode"] == "plan" else "Default mode"
    plan = snapshot["plan"]
    if plan is None:
        line = f"{mode}, no plan yet"
    else:
        done = sum(step["status"] == "completed" for step in plan["steps"])
        total = len(plan["steps"])
        line = f"{mode}, revision {plan['revision']}: {done} of {total} steps marked complete"
        if finished:
            line += ", finished with a review of every objective"
    if snapshot["pending_proposal_hash"]:
        line += f"; proposal {snapshot['pending_proposal_hash'][:12]} waits for your decision"
    if question:
        line += f"; the agent asks: {question}"
    if commented := _open_comments(snapshot):
        line += f"; {commented[0]}"
    return line


def _open_comments(snapshot: dict) -> list[str]:
    """ "N open comments" when N > 0: all that text/plain says of the comments (DESIGN 14)."""
    count = count_open(snapshot.get("comments", ()))
    return [f"{count} open comments"] if count else []


def describe_event(event: Event) -> str:
    """An event in words, for %plan history: a person's act says who and where ("by alice in
    the panel"), by name for every reader."""
    data = event.data
    kind = event.kind
    by = said(data.get("by"))
    by = f" {by}" if by else ""
    if kind.startswith("comment_"):
        return _comment_event(event.seq, kind, data, by)
    words = _EVENT_WORDS.get(kind)
    return f"{event.seq}. {kind if words is None else words(data, by)}"


def _plan_updated(data: dict, by: str) -> str:
    if data["name"] == "user_edit":
        return f"edited{by}: revision {data['plan']['revision']}"
    return f"agent {data['name']}: revision {data['plan']['revision']}"


def _decision(data: dict, by: str) -> str:
    words = {
        "approved": "approved",
        "changes_requested": "changes requested",
        "left": "dropped, plan mode left",
        "dropped": f"dropped, {data.get('why') or 'plan mode restarted'}",
    }[data["action"]]
    follow = data.get("comments")
    if follow:  # approved with the comments open then
        words += f" with comments {', '.join(follow)} to follow"
    return f"proposal {(data['hash'] or '')[:12]}: {words}{by}"


def _message_queued(data: dict, by: str) -> str:
    source = f"the person{by}" if data["source"] == "person" else data["source"]
    return f"message queued from {source}: {_clip(data['text'])}"


def counted(number: int, word: str) -> str:
    """'1 step', '2 steps': the number and its word, plural where the number is not one."""
    return f"{number} {word}{'' if number == 1 else 's'}"


def _plan_finished(data: dict, by: str) -> str:
    count = len(data["review"])
    return (
        f"agent finish_plan: revision {data['revision']} finished, "
        f"{counted(count, 'objective')} reviewed"
    )


def _cell_ran(data: dict, by: str) -> str:
    count = "-" if data["execution_count"] is None else data["execution_count"]
    failed = "" if data["ok"] else ", failed"
    return f"cell [{count}] ran for step {data['step_id']}{failed}"


def _step_checked(data: dict, by: str) -> str:
    count = data["execution_count"]
    where = "outside a cell" if count is None else f"in cell [{count}]"
    how = "passed" if data["ok"] else f"failed: {data['error'] or data['value']}"
    who = by if data.get("by") else " by itself"
    return f"the check of step {data['step_id']} ran {where}{who}: {how}"


def _agent_status(data: dict, by: str) -> str:
    if data.get("agent") is None:
        return "no agent is bridged any more"
    mode = f" in mode {data['mode']}" if data.get("mode") else ""
    edits = f" ({data['edits']})" if data.get("edits") else ""
    doing = "works on a prompt" if data.get("working") else "waits for the next message"
    return f"{data['agent']}{mode}{edits} {doing}"


def _question_closed(data: dict, by: str) -> str:
    if data["action"] == "answered":
        return f"you answered the agent's question (message {data['message_id']})"
    return "the agent's question was dropped unanswered"


# What each kind of event says after its seq; a kind not here is said by name.
_EVENT_WORDS: dict[str, Callable[[dict, str], str]] = {
    "plan_updated": _plan_updated,
    "tool_finished": lambda data, by: f"agent {data['name']} refused: {data['result']['content']}",
    "proposal_submitted": lambda data, by: f"proposal {data['hash'][:12]} waits for a decision",
    "decision": _decision,
    "mode_changed": lambda data, by: f"mode is now {data['mode']}{by}",
    "decision_recorded": lambda data, by: f"agent recorded a decision: {data['title']}",
    "message_queued": _message_queued,
    "message_delivered": lambda data, by: f"message {data['message_id']} delivered to the agent",
    "turn_cancelled": lambda data, by: f"turn {data['turn_id']} cancelled",
    "question_asked": lambda data, by: f"agent asked you: {_clip(data['question'])}",
    "plan_finished": _plan_finished,
    "cell_ran": _cell_ran,
    "step_checked": _step_checked,
    "agent_status": _agent_status,
    "plan_reopened": lambda data, by: (
        f"the finished plan was reopened by revision {data['revision']}"
    ),
    "question_closed": _question_closed,
}


def _comment_event(seq: int, kind: str, data: dict, by: str) -> str:
    cid = data["comment_id"]
    if kind == "comment_added":
        on = "the plan" if data["step_id"] is None else f"step {data['step_id']}"
        return f"{seq}. comment {cid} on {on}{by}: {_clip(data['text'])}"
    if kind == "comment_addressed":
        return f"{seq}. agent replied to comment {cid}: {_clip(data['reply'])}"
    verb = "resolved" if kind == "comment_resolved" else "reopened"
    return f"{seq}. comment {cid} {verb}{by}"


def _clip(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def describe_comments(snapshot: Snapshot | dict) -> str:
    """The person's comments as lines of text, for `%plan comments` and the CLI: each with
    its step, who, its status and where it stands on the plan now, then the agent's reply."""
    snapshot = _json(snapshot)
    plan, lines = snapshot["plan"], []
    for comment in snapshot.get("comments", ()):
        on = "the plan" if comment["step_id"] is None else f"step {comment['step_id']}"
        name = (comment.get("by") or {}).get("name") or "someone"
        where = anchor_words(comment, plan)
        where = f" ({where})" if where else ""
        text = comment["text"].replace("\n", "\n    ")
        lines.append(f"{comment['id']} on {on}{where}, by {name}, {comment['status']}: {text}")
        if comment["reply"]:
            lines.append(f"    the agent replied: {comment['reply']}")
    return "\n".join(lines) or "No comments yet."


def first_words(text: str | None, limit: int = LABEL_CHARS) -> str | None:
    """`text` on one line, cut after its last whole word within `limit` characters (with "…")."""
    words = " ".join((text or "").split())
    if not words:
        return None
    if len(words) <= limit:
        return words
    cut = words[: limit - 1]
    if " " in cut and words[limit - 1].isalnum():  # cut inside a word: drop it
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.-") + "…"
