"""What an agent bridged from another protocol writes (the ACP bridge): its own plan mirrored as
a revision, its request to leave plan mode as a proposal with its whole text, and a client's
reject of that proposal, which carries no notes. Each is one transaction, as a tool call is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DecisionRefused
from ..plan.revision import body_hash, build_plan, proposal_body
from ..plan.text import counted
from ..plan.who import person
from ..store.transaction import reconnecting as _reconnecting
from .steps import decide, propose, store_plan

if TYPE_CHECKING:
    from .reads import SessionReads

MAX_PROPOSAL_TEXT_BYTES = 65536
AGENT_GONE = "the agent that asked for it is gone"

MAX_ANSWER_CHARS = 200  # the words of the option an approval answers, as the card shows them
STATUS_KEYS = ("agent", "mode", "mode_words", "edits", "asks", "working", "ended", "last_mode")


@_reconnecting
def record_agent_plan(
    session: SessionReads,
    name: str,
    steps: list[dict],
    adaptations: list[str] = (),
    call_id: str | None = None,
) -> int | None:
    """Store `steps` (stored form, one untitled phase) as the plan's next revision under
    tool name `name`; None, and nothing stored, when the plan already has these steps.
    The explanation, findings and objectives are kept: the agent's plan has none."""
    with session.writing(call_id) as change:
        state = change.state
        kept = state.plan or {}
        plan = _plan(
            state.revision + 1,
            call_id,
            kept.get("explanation"),
            kept.get("findings", []),
            kept.get("objectives", []),
            steps,
        )
        if plan["phases"] == kept.get("phases", []):
            return None  # the plan already has these steps (or none, and has none)
        content = (
            f"The agent's plan, mirrored as revision {plan['revision']}"
            f" ({counted(len(steps), 'step')})."
        )
        if adaptations:
            content += " Adapted to the plan's bounds: " + "; ".join(adaptations) + "."
        store_plan(change, name, plan, content, None, call_id)
        return plan["revision"]


@_reconnecting
def submit_agent_proposal(
    session: SessionReads,
    name: str,
    explanation: str,
    steps: list[dict] | None,
    text: str,
    approve: str | None = None,
    call_id: str | None = None,
) -> tuple[str, int]:
    """Store the agent's proposal as the plan (every step pending) and make it the waiting
    proposal, as plan_submit does; `text`, the agent's whole proposal, is kept in the
    proposal_submitted event (cut to 64 KiB), with `approve`, the words of the agent's
    option that an approval answers (cut to one line of 200 characters), for the card.
    `steps` None: the stored plan's steps. Returns the proposal's hash and that event's
    seq."""
    with session.writing(call_id) as change:
        state = change.state
        if steps is None:
            steps = state.plan["steps"] if state.plan is not None else []
        pending = [{**s, "status": "pending", "evidence": None} for s in steps]
        plan = _plan(state.revision + 1, call_id, explanation, [], [], pending)
        body = proposal_body(plan)
        digest = body_hash(body)
        content = (
            f"Proposal submitted as revision {plan['revision']} (hash {digest}) from the "
            "agent's request to leave plan mode; it waits for the person's decision."
        )
        store_plan(change, name, plan, content, None, call_id)
        kept = {"text": text.encode()[:MAX_PROPOSAL_TEXT_BYTES].decode(errors="ignore")}
        words = " ".join((approve or "").split())[:MAX_ANSWER_CHARS]
        if words:
            kept["approve"] = words
        return digest, propose(change, digest, body, kept)


@_reconnecting
def request_changes(session: SessionReads, digest: str, by: Any = None) -> None:
    """A reject of proposal `digest` without notes (a client's answer): the wait ends and
    plan mode stays, as with revise, and nothing is queued for the agent."""
    by = person(by)
    with session.writing() as change:
        change.by = by
        waiting = change.state.pending_proposal_hash
        if waiting != digest:
            raise DecisionRefused(
                "nothing to revise: no proposal is waiting for a decision"
                if waiting is None
                else f"proposal {digest[:12]} is not the waiting one {waiting[:12]}"
            )
        decide(change, "changes_requested")


@_reconnecting
def withdraw_agent_proposal(session: SessionReads, digest: str) -> bool:
    """Drop proposal `digest` while it waits, its agent gone (the bridge that asked for it
    ended): nobody is left to answer, so no approval may reach a later agent as if it were
    for its own work. Plan mode stays. True when it was waiting."""
    with session.writing() as change:
        if change.state.pending_proposal_hash != digest:
            return False
        change.state.pending_proposal_hash = None
        change.emit("decision", {"action": "dropped", "hash": digest, "why": AGENT_GONE})
        return True


@_reconnecting
def record_unguarded(session: SessionReads, agent: str, text: str) -> None:
    """Say, for the card, that a bridged agent offers no way to make it ask before it
    changes something: in plan mode, what it does without asking is its own promise."""
    with session.writing() as change:
        change.emit("agent_unguarded", {"agent": agent, "text": text})


@_reconnecting
def record_agent_status(session: SessionReads, status: dict) -> None:
    """What the card says of the bridged agent (the bridge's status of it): `agent` (its
    name, None once no agent is bridged), `mode` (the mode id it last announced), what
    edits do there, whether a prompt of its client runs (`working`), and why the bridge
    ended its last turn, if it did (`ended`)."""
    data = {key: status.get(key) for key in STATUS_KEYS}
    data["working"] = bool(status.get("working"))
    with session.writing() as change:
        change.state.agent_seq = change.emit("agent_status", data)


def _plan(revision, call_id, explanation, findings, objectives, steps) -> dict:
    """A bridged agent's plan as the session stores any plan: one untitled phase, no turn."""
    phases = [{"title": None, "steps": steps}] if steps else []
    body = {
        "explanation": explanation,
        "findings": list(findings),
        "objectives": list(objectives),
        "phases": phases,
    }
    return build_plan(body, None, revision, None, call_id)[0]
