"""Rebuild a snapshot from a session's events alone: the events are the authoritative history."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Event, Snapshot


def fold(session_id: str, events: Iterable[Event]) -> Snapshot:
    from .cells import cells_view, completion_changes
    from .checks import CHECK_KINDS, CheckFold
    from .comments import COMMENT_KINDS, CommentFold

    state = Snapshot.empty(session_id).model_dump()
    # step -> cell -> [step, cell, execution_count, ok, code, code when the step completed],
    # in the order of the cells' latest runs
    ran: dict[str, dict[str, list]] = {}
    comments = CommentFold()
    checks = CheckFold()
    for event in events:
        if event.seq != state["cursor"] + 1:
            raise ValueError(f"event seq {event.seq} follows {state['cursor']}: history has a gap")
        state["cursor"] = event.seq
        data = event.data
        if event.kind in CHECK_KINDS:
            checks.apply(event.seq, event.kind, data)
        if event.kind == "plan_updated":
            done, undone = completion_changes(state["plan"], data["plan"])
            for step_id in done + undone:
                for run in ran.get(step_id, {}).values():
                    run[5] = run[4] if step_id in done else None
            state["plan"] = data["plan"]
        elif event.kind == "cell_ran":
            runs = ran.setdefault(data["step_id"], {})
            before = runs.pop(data["cell_id"], None)
            runs[data["cell_id"]] = [
                data["step_id"],
                data["cell_id"],
                data["execution_count"],
                data["ok"],
                data["code_sha256"],
                None if before is None else before[5],
            ]
        elif event.kind in COMMENT_KINDS:
            comments.apply(event.seq, event.kind, data)
        elif event.kind == "proposal_submitted":
            state["pending_proposal_hash"] = data["hash"]
        elif event.kind == "decision":
            state["pending_proposal_hash"] = None
            if data["action"] == "approved":
                state["approved_proposal_hash"] = data["hash"]
        elif event.kind == "mode_changed":
            state["mode"] = data["mode"]
        elif event.kind == "agent_status":
            state["agent_mode"] = data.get("mode")
        elif event.kind == "decision_recorded":
            state["decisions"].append(
                {
                    "title": data["title"],
                    "rationale": data["rationale"],
                    "sources": data["sources"],
                    "by": data.get("by"),
                }
            )
    state["cells"] = cells_view(run for runs in ran.values() for run in runs.values())
    state["comments"] = comments.view()
    state["checks"] = checks.view()
    return Snapshot.model_validate(state)
