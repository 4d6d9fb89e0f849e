"""The plan as plain text, deterministic (no session ids, times or paths): terminals, nbval."""

from __future__ import annotations

from .models import Snapshot

_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


def render_text(snapshot: Snapshot) -> str:
    plan = snapshot.plan
    lines = []
    head = f"Plan ({snapshot.mode} mode)"
    if plan is None:
        return head + ": no plan yet"
    done = sum(step.status == "completed" for step in plan.steps)
    lines.append(
        f"{head}, revision {plan.revision}: {done} of {len(plan.steps)} steps marked complete"
    )
    if snapshot.pending_proposal_hash:
        lines.append(f"Proposal {snapshot.pending_proposal_hash[:12]} waits for your decision")
    if plan.explanation:
        lines.append(f"Why: {plan.explanation}")
    for title, items in (("Findings", plan.findings), ("Objectives", plan.objectives)):
        if items:
            lines.append(f"{title}:")
            lines.extend(f"  - {item}" for item in items)
    for phase in plan.phases:
        if phase.title is not None:
            lines.append(f"{phase.title}:")
        for step in phase.steps:
            line = f"  {_MARKS[step.status]} {step.id}: {step.description}"
            if step.depends_on:
                line += f" (after {', '.join(step.depends_on)})"
            lines.append(line)
            if step.acceptance:
                lines.append(f"        done when: {step.acceptance}")
            if step.evidence:
                lines.append(f"        evidence: {step.evidence}")
    if snapshot.decisions:
        lines.append("Decisions:")
        lines.extend(f"  - {d.title}: {d.rationale}" for d in snapshot.decisions)
    return "\n".join(lines)
