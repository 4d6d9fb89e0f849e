"""A call recorded before calls kept their digest (schema 4) against a call reusing its id:
the same call only when the accepted event holds what this call's checked arguments would
store. The event keeps the arguments in their stored form, so what it cannot tell apart is
taken as the same (an optional field sent empty or left out, the order of a review's items,
the evidence of a step the call reopened)."""

from __future__ import annotations

from typing import Any

from ..plan.review import objective_key
from .events import decode_event


def same_as_recorded(change: Any, session_id: str, call: Any) -> bool:
    """Whether `call` is the accepted call recorded under its id: by digest, or for a call
    recorded before digests were (schema 4), by what its event holds."""
    if change.recorded_digest is not None:
        return change.recorded_digest == call.digest
    if call.parsed is None:  # a call that could not have been accepted
        return False
    key = {"sid": session_id, "call_id": call.call_id}
    row = change.tx.first("SELECT_RECORDED_EVENT", key)
    return row is not None and recorded_as(
        call.name, call.parsed, row.kind, decode_event(row.kind, row.data)
    )


def recorded_as(name: str, parsed: Any, kind: str, data: dict) -> bool:
    """Whether a call of tool `name` with the checked arguments `parsed` is the one whose
    accepted event is `kind` with `data` (a call recorded without a digest). The event holds
    the arguments in their stored form: an optional field sent empty or left out, the order
    of a review's items and the evidence of a step the call reopened are not told apart."""
    if name in ("update_plan", "plan_submit"):
        if kind != "plan_updated" or data["name"] != name:
            return False
        plan = data["plan"]
        expected = parsed.expected_revision
        if expected != plan["revision"] - 1 and not (name == "plan_submit" and expected is None):
            return False
        body = parsed.body
        if any(body[key] != plan[key] for key in ("explanation", "findings", "objectives")):
            return False
        phases = body["phases"], plan["phases"]
        return len(phases[0]) == len(phases[1]) and all(
            _same_phase(given, stored) for given, stored in zip(*phases, strict=True)
        )
    if name == "record_decision":
        return kind == "decision_recorded" and data == parsed
    if name == "ask_user":
        return kind == "question_asked" and data["question"] == parsed
    if name == "finish_plan":
        if kind != "plan_finished" or len(parsed) != len(data["review"]):
            return False

        def items(review: list[dict]) -> dict:
            return {objective_key(i["objective"]): (i["outcome"], i["evidence"]) for i in review}

        return items(parsed) == items(data["review"])
    return False


def _same_phase(given: dict, stored: dict) -> bool:
    """A phase of a call's plan against the stored one, whose completed steps the call may
    have reopened (status pending, evidence cleared)."""
    if {**given, "steps": None} != {**stored, "steps": None}:
        return False
    reopened = {"status": "pending", "evidence": None}
    return len(given["steps"]) == len(stored["steps"]) and all(
        step == kept or (step["status"] == "completed" and {**step, **reopened} == kept)
        for step, kept in zip(given["steps"], stored["steps"], strict=True)
    )
