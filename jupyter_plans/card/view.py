"""What a card shows, as data: for the widget, the saved MIME bundle and the server's card
route alike."""

from __future__ import annotations

import json
from typing import Any

from ..plan.stored import USER_EDIT
from ..session import PlanSession

MIME_TYPE = "application/vnd.jupyter-plans.card+json"
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
