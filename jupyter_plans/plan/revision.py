"""Pure functions over plans: building a stored plan from input, reopening, hashing, diffs."""

from __future__ import annotations

import json
from typing import Any

from ..lazy import LazyModule

hashlib = LazyModule("hashlib")  # with the first hash: a hook reading a plan needs none


def build_plan(
    body: dict,
    previous: dict | None,
    revision: int,
    turn_id: str | None,
    call_id: str | None,
) -> tuple[dict, list[str]]:
    """The plan to store for an accepted body, and the ids of the steps it reopened.

    `body` is taken over: its step dicts become the stored plan's.
    """
    steps = [step for phase in body["phases"] for step in phase["steps"]]
    reopened = _reopen(steps, previous)
    plan = {
        "revision": revision,
        "turn_id": turn_id,
        "call_id": call_id,
        "explanation": body["explanation"],
        "findings": body["findings"],
        "objectives": body["objectives"],
        "phases": body["phases"],
        "steps": steps,
    }
    return plan, reopened


def _reopen(steps: list[dict], previous: dict | None) -> list[str]:
    """Send back to pending the completed dependents of a step that is no longer completed.

    depends_on names only earlier steps, so one pass in order sees every transitive dependent.
    """
    if not previous:
        return []
    was_completed = {s["id"] for s in previous["steps"] if s["status"] == "completed"}
    regressed = {s["id"] for s in steps if s["id"] in was_completed and s["status"] != "completed"}
    if not regressed:
        return []
    affected: set[str] = set()
    reopened: list[str] = []
    for step in steps:
        if any(dep in regressed or dep in affected for dep in step["depends_on"]):
            affected.add(step["id"])
            if step["status"] == "completed":
                step["status"] = "pending"
                step["evidence"] = None
                reopened.append(step["id"])
    return reopened


def proposal_body(plan: dict) -> dict:
    """The text a proposal hash binds: statuses and evidence are left out; a step's check is
    in it (null when it has none), so what the person approves is the code that runs."""
    return {
        "explanation": plan["explanation"],
        "findings": plan["findings"],
        "objectives": plan["objectives"],
        "phases": [
            {
                "title": phase["title"],
                "steps": [
                    {
                        "id": s["id"],
                        "description": s["description"],
                        "acceptance": s["acceptance"],
                        "depends_on": s["depends_on"],
                        "check": s.get("check"),
                    }
                    for s in phase["steps"]
                ],
            }
            for phase in plan["phases"]
        ],
    }


def body_hash(body: dict) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def proposal_hashes(plan: dict) -> tuple[str, ...]:
    """The hashes a proposal of this plan may wait under: its hash, and for a plan without
    checks the hash it had before steps carried them (a proposal submitted by an earlier
    version and still waiting stays approvable)."""
    body = proposal_body(plan)
    steps = [step for phase in body["phases"] for step in phase["steps"]]
    if any(step["check"] is not None for step in steps):
        return (body_hash(body),)
    for step in steps:
        del step["check"]
    return body_hash(proposal_body(plan)), body_hash(body)


def diff_steps(old: list[dict], new: list[dict]) -> dict[str, Any]:
    """What changed between two lists of steps: added, removed, reworded, and a new order."""
    old_by_id = {s["id"]: s for s in old}
    new_by_id = {s["id"]: s for s in new}
    added = [s for s in new if s["id"] not in old_by_id]
    removed = [s for s in old if s["id"] not in new_by_id]
    reworded = [
        {"id": s["id"], "before": old_by_id[s["id"]]["description"], "after": s["description"]}
        for s in new
        if s["id"] in old_by_id and old_by_id[s["id"]]["description"] != s["description"]
    ]
    kept_old = [s["id"] for s in old if s["id"] in new_by_id]
    kept_new = [s["id"] for s in new if s["id"] in old_by_id]
    return {
        "added": added,
        "removed": removed,
        "reworded": reworded,
        "reordered": kept_new if kept_old != kept_new else [],
    }


def describe_diff(diff: dict[str, Any]) -> list[str]:
    """The diff in words, one line per change, quoting the text."""
    lines = [f"added step {s['id']}: {s['description']!r}" for s in diff["added"]]
    lines += [f"removed step {s['id']}: {s['description']!r}" for s in diff["removed"]]
    lines += [
        f"reworded step {r['id']}: {r['before']!r} -> {r['after']!r}" for r in diff["reworded"]
    ]
    if diff["reordered"]:
        lines.append("reordered the steps: " + ", ".join(diff["reordered"]))
    return lines
