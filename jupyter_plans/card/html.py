"""What a card shows, as escaped HTML: the static card of the saved output, for viewers without
the extension (GitHub, nbconvert). Every text is escaped; the agent's words are labelled as its."""

from __future__ import annotations

from typing import Any

from ..plan.checks import check_words
from ..plan.comments import anchor_words, anchoring, count_open
from ..plan.text import counted
from .view import ACTIVITY_WORDS

_MARKS = {"pending": "○", "in_progress": "◐", "completed": "●"}


def escape(text: str) -> str:
    """html.escape's five replacements, without loading the html module's table of entities."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#x27;")


def _cells_html(runs: list[dict] | None, status: str) -> str:
    """A step's cells, as their execution counts: [12] [13 failed]."""
    if not runs:
        return ""
    counts = []
    for run in runs:
        count = "-" if run["execution_count"] is None else str(run["execution_count"])
        counts.append(f"[{count}{'' if run['ok'] else ' failed'}]")
    changed = status == "completed" and any(run["changed"] for run in runs)
    note = " &middot; <strong>changed after completion</strong>" if changed else ""
    return f" <small>cells {' '.join(counts)}{note}</small>"


def _comment_html(comment: dict, plan: dict | None) -> str:
    """One comment: who, its status, where it stands on the plan now, the person's words, and
    the agent's reply (model-authored, escaped and labelled as the agent's)."""
    name = (comment.get("by") or {}).get("name") or "someone"
    where = anchor_words(comment, plan)
    where = f" <em>({escape(where)})</em>" if where else ""
    text = escape(comment["text"]).replace("\n", "<br>")
    row = (
        f"<code>{escape(comment['id'])}</code> {escape(name)} &middot; {comment['status']}"
        f"{where}: {text}"
    )
    if comment["reply"]:
        row += f"<br><small>The agent replied: {escape(comment['reply'])}</small>"
    return f"<li>{row}</li>"


def _comments_html(comments: list[dict], plan: dict | None) -> str:
    if not comments:
        return ""
    return f"<ul>{''.join(_comment_html(c, plan) for c in comments)}</ul>"


def card_html(data: dict[str, Any]) -> str:
    """A static card for viewers without the extension (GitHub, nbconvert): all text escaped."""
    snapshot, plan = data["snapshot"], data["snapshot"]["plan"]
    agent = data.get("agent")
    head = _head_html(data, snapshot, agent)
    asked = _said_html(data, snapshot, agent)
    if plan is None:
        return f'<div class="jp-plans-static"><p>{head}</p>{asked}<p>No plan yet.</p></div>'
    review = data.get("review")
    if review and review["revision"] == plan["revision"]:
        head += " &middot; <strong>finished</strong>"
    else:
        review = None
    parts = [f"<p>{head} &middot; rev {plan['revision']}</p>"]
    if asked:
        parts.append(asked)
    if snapshot["pending_proposal_hash"]:
        short = escape(snapshot["pending_proposal_hash"][:12])
        parts.append(
            f"<p><strong>Waiting for your decision</strong>: proposal <code>{short}</code></p>"
        )
    parts += _plan_html(plan, snapshot)
    if review:
        listed = "".join(
            f"<li><strong>{escape(item['objective'])}</strong> &rarr; {escape(item['outcome'])}"
            f" <em>(evidence: {escape(item['evidence'])})</em></li>"
            for item in review["review"]
        )
        parts.append(
            "<p><strong>Final review</strong>: the agent reviewed every objective</p>"
            f"<ul>{listed}</ul>"
        )
    if snapshot["decisions"]:
        listed = "".join(
            f"<li><strong>{escape(d['title'])}</strong> &mdash; {escape(d['rationale'])}</li>"
            for d in snapshot["decisions"]
        )
        parts.append(f"<p><strong>Decisions</strong></p><ul>{listed}</ul>")
    return f'<div class="jp-plans-static">{"".join(parts)}</div>'


def _head_html(data: dict[str, Any], snapshot: dict, agent: dict | None) -> str:
    """The card's first line: the mode, the notebook, how many comments are open."""
    if snapshot["mode"] == "plan":
        mode = "PLAN MODE"
    elif agent and agent.get("mode"):  # the bridged agent's own mode, not the session's
        mode = agent["mode"] + (f": {agent['edits']}" if agent.get("edits") else "")
    else:
        mode = "default mode"
    head = f"<strong>Plan</strong> &middot; {escape(mode)}"
    if data.get("notebook"):
        head += f" &middot; {escape(data['notebook'])}"
    comments = snapshot.get("comments") or []
    if count_open(comments):
        head += f" &middot; {counted(count_open(comments), 'open comment')}"
    return head


def _plan_html(plan: dict, snapshot: dict) -> list[str]:
    """The plan itself: its explanation, comments, progress, findings, objectives, and the
    steps of each phase with their cells and comments."""
    comments = snapshot.get("comments") or []
    parts = []
    if plan["explanation"]:
        parts.append(f"<p>{escape(plan['explanation'])}</p>")
    on_plan = [c for c in comments if anchoring(c, plan) == "plan"]
    if on_plan:
        parts.append(f"<p><strong>Comments on the plan</strong></p>{_comments_html(on_plan, plan)}")
    done = sum(step["status"] == "completed" for step in plan["steps"])
    parts.append(f"<p>{done} of {len(plan['steps'])} steps marked complete by the agent</p>")
    for title, items in (("Findings", plan["findings"]), ("Objectives", plan["objectives"])):
        if items:
            listed = "".join(f"<li>{escape(item)}</li>" for item in items)
            parts.append(f"<p><strong>{title}</strong></p><ul>{listed}</ul>")
    for phase in plan["phases"]:
        if phase["title"] is not None:
            parts.append(f"<p><strong>{escape(phase['title'])}</strong></p>")
        rows = [f"<li>{_step_html(step, snapshot, comments, plan)}</li>" for step in phase["steps"]]
        parts.append(f'<ul style="list-style:none">{"".join(rows)}</ul>')
    removed = [c for c in comments if anchoring(c, plan) == "removed"]
    if removed:
        parts.append(
            f"<p><strong>Comments on removed steps</strong></p>{_comments_html(removed, plan)}"
        )
    return parts


def _step_html(step: dict, snapshot: dict, comments: list[dict], plan: dict) -> str:
    mark, ident = _MARKS[step["status"]], escape(step["id"])
    row = f"{mark} <code>{ident}</code> {escape(step['description'])}"
    if step["evidence"]:
        row += f" <em>(evidence: {escape(step['evidence'])})</em>"
    entry = (snapshot.get("checks") or {}).get(step["id"])
    if step.get("check") is not None and entry is not None:
        words = escape(check_words(entry, step["status"], snapshot))
        row += f"<br><small>check <code>{escape(step['check'])}</code> &middot; {words}</small>"
    row += _cells_html(snapshot.get("cells", {}).get(step["id"]), step["status"])
    row += _comments_html([c for c in comments if c["step_id"] == step["id"]], plan)
    return row


def _said_html(data: dict[str, Any], snapshot: dict, agent: dict | None) -> str:
    """What the card says above the plan: the agent's question, the person's notes, what the
    agent is doing, and what approving a bridged agent's proposal answers it."""
    asked = ""
    if data.get("question"):
        asked = f"<p><strong>The agent asks</strong>: {escape(data['question'])}</p>"
    if data.get("notes"):
        asked += f"<p><strong>Changes you asked for</strong>: {escape(data['notes'])}</p>"
    if data.get("activity") in ACTIVITY_WORDS:
        name = agent["agent"] if agent else "The agent"
        said = ACTIVITY_WORDS[data["activity"]].format(agent=name)
        if data["activity"] == "chat" and agent and agent.get("ended"):
            said = f"{agent['ended']} {said}"
        asked += f"<p>{escape(said)}</p>"
    if data.get("bridged") and snapshot["pending_proposal_hash"]:
        answer = data["bridged"].get("approve")
        said = f": approving answers it &ldquo;{escape(answer)}&rdquo;" if answer else ""
        asked += f"<p>From an ACP agent, through the bridge{said}.</p>"
    return asked
