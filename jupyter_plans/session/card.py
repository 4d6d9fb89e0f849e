"""What a card shows, as data (for the widget and the saved MIME bundle) and as escaped HTML."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from ..errors import OlderSchema
from ..plan.checks import check_words
from ..plan.comments import anchor_words, anchoring, count_open
from ..plan.stored import USER_EDIT
from ..plan.text import counted
from ..store.guards import HEARTBEAT_MS, installed, now_ms, seen_rows
from . import PlanSession

MIME_TYPE = "application/vnd.jupyter-plans.card+json"
_MARKS = {"pending": "○", "in_progress": "◐", "completed": "●"}
# What an agent's work writes (a person's acts and the bridge's status aside).
AGENT_KINDS = (
    "plan_updated",
    "tool_finished",
    "proposal_submitted",
    "decision_recorded",
    "question_asked",
    "message_delivered",
    "plan_finished",
)
LOOK_BACK = 200  # events read back for the agent's work since plan mode began
# What the card says of the agent while plan mode waits for a proposal (the labextension's
# card/header.ts says the same).
ACTIVITY_WORDS = {
    "working": "The agent is researching and preparing a proposal for you to review here.",
    "chat": "{agent} waits for your next message in the chat.",
    "none": "Plan mode waits for an agent: ask one for a plan (in the chat, or from a cell), "
    "and its proposal will appear here for you to review.",
}


def card_data(session: PlanSession, notebook: str | None) -> dict[str, Any]:
    """The card's content: the snapshot, the notebook's name, the waiting proposal's changes,
    the question the agent asked with ask_user while it waits for the person's answer, the
    notes of the person's request for changes until the agent's next proposal, and the final
    review while the plan is finished."""
    verdict = session.last_verdict()
    changes = session.proposal_changes()
    if changes is not None:
        changes = {key: changes[key] for key in ("since_revision", "added", "removed", "reworded")}
    snapshot = session.snapshot_data()
    question = session.open_question_text()
    agent = session.agent_status()
    return {
        "snapshot": snapshot,
        "notebook": notebook,
        "changes": changes,
        "question": question,
        "notes": verdict["notes"],
        "review": session.review_data(),
        "approved_by": verdict["approved_by"],
        "bridged": verdict["bridged"],
        "agent": agent if agent is not None and agent.get("agent") else None,
        "activity": activity(session, snapshot, agent, question),
        "sessions": session_count(session),
    }


def session_count(session: PlanSession) -> int:
    """How many sessions the plan file holds, this one counted even before its first write
    (`%plan new` makes it current at once): the card names its session only among others."""
    with session.store.read() as tx:
        ids = {row.session_id for row in tx.all("SELECT_SESSIONS")}
    return len(ids | {session.session_id})


def activity(session: PlanSession, snapshot: dict, agent: dict | None, question) -> str | None:
    """In plan mode with no proposal waiting and no question open, what the agent is doing:
    "working" (it researches), "chat" (a bridged agent's turn is over: it waits for the
    person's next message in the chat), or "none" (no agent is engaged since plan mode
    began: plan mode waits for one). None otherwise."""
    if snapshot["mode"] != "plan" or snapshot["pending_proposal_hash"] or question:
        return None
    if agent is not None and agent.get("agent"):
        return "working" if agent.get("working") else "chat"
    with session.store.read() as tx:
        recent = tx.all("SELECT_RECENT_EVENTS", {"sid": session.session_id, "limit": LOOK_BACK})
    for kind, data in recent:
        if kind in ("mode_changed", "agent_status"):  # plan mode began, or a bridge ended
            return "none"
        if kind in AGENT_KINDS:
            if kind == "plan_updated" and json.loads(data).get("name") == USER_EDIT:
                continue  # the person's edit
            return "working"
    return "working" if len(recent) == LOOK_BACK else "none"


# The headline of a guard warning on the card; the line after it says why (card/guards.ts).
UNGUARDED_HEADLINE = "Plan mode is not enforced: the agent approves its own edits"


def unguarded_note(session: PlanSession, snapshot: dict) -> str | None:
    """While plan mode holds (or a proposal waits): the words a bridged agent that approves
    itself and cannot be made to ask left for the card, if one did, under a headline."""
    if snapshot["mode"] != "plan" and snapshot["pending_proposal_hash"] is None:
        return None
    text = session.unguarded_text()
    return None if text is None else f"{UNGUARDED_HEADLINE}\n{text}"


def guard_data(session: PlanSession, snapshot: dict, notebook: Path | None) -> dict | None:
    """While plan mode holds (or a proposal waits), what shows that the guards run (DESIGN
    section 15): `seen`, each agent whose guard was heard from and when; `silent`, each agent
    whose hooks were installed for this plan and not heard from since plan mode began; `now`,
    this clock's time, to tell ages by. None otherwise, and where no guard is known of.

    A heartbeat is written at most once in 10 s, so one heard up to 10 s before plan mode
    began may stand for a run since (the run after it did not need to write)."""
    if snapshot["mode"] != "plan" and snapshot["pending_proposal_hash"] is None:
        return None
    try:
        with session.store.read() as tx:
            seen, installs = seen_rows(tx), installed(tx)
            since = None
            if snapshot["mode"] == "plan":
                since = tx.scalar("SELECT_MODE_SINCE", {"sid": session.session_id})
    except OlderSchema:  # a plan file this process cannot upgrade
        return None
    if not seen and not installs:
        return None
    last = {row["agent"]: row["at"] for row in seen}
    silent = [
        {
            "agent": record["agent"],
            "installed_at": record["at"],
            "doctor": f"jupyter-plans hook doctor {record['host']} {_named(notebook, session)}",
        }
        for record in installs
        if record["agent"] not in last
        or since is not None
        and last[record["agent"]] < since - HEARTBEAT_MS
    ]
    return {"now": now_ms(), "since": since, "seen": seen, "silent": silent}


def escape(text: str) -> str:
    """html.escape's five replacements, without loading the html module's table of entities."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#x27;")


def _named(notebook: Path | None, session: PlanSession) -> str:
    """The doctor's target, as run in the notebook's folder (where the card says to run it)."""
    if notebook is not None:
        return shlex.join(["--notebook", notebook.name])
    where = session.store.path
    return shlex.join(["--db", where.name]) if where is not None else "--db DB"


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
