"""Rebuild a snapshot from a session's events alone: the events are the authoritative history."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Event, Snapshot


def fold(session_id: str, events: Iterable[Event]) -> Snapshot:
    state = Snapshot.empty(session_id).model_dump()
    for event in events:
        if event.seq != state["cursor"] + 1:
            raise ValueError(f"event seq {event.seq} follows {state['cursor']}: history has a gap")
        state["cursor"] = event.seq
        data = event.data
        if event.kind == "plan_updated":
            state["plan"] = data["plan"]
        elif event.kind == "proposal_submitted":
            state["pending_proposal_hash"] = data["hash"]
        elif event.kind == "decision":
            state["pending_proposal_hash"] = None
            if data["action"] == "approved":
                state["approved_proposal_hash"] = data["hash"]
        elif event.kind == "mode_changed":
            state["mode"] = data["mode"]
        elif event.kind == "decision_recorded":
            state["decisions"].append(
                {
                    "title": data["title"],
                    "rationale": data["rationale"],
                    "sources": data["sources"],
                    "by": data.get("by"),
                }
            )
    return Snapshot.model_validate(state)
