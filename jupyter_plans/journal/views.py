"""The journal: Markdown views of a plan session for people (after a restart, the next morning,
in a code review), generated from its events and never read back.

`export(session, folder)` writes checkpoint.md (where things stand and what comes next),
plan.md (the plan in full, with the final review), decisions.md (the lasting decisions) and
progress.md (what happened, in order), each stamped with the cursor it was made from. The
same events give the same bytes; model text is made inert (`_markdown.inert`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanStoreError
from ..plan.checks import check_words
from ..plan.fold import fold
from ..plan.models import Event, Snapshot
from .comments import approved_with, other_comments, step_comments
from .markdown import inert
from .progress import progress_lines, verdict_line

FILES = ("checkpoint.md", "plan.md", "decisions.md", "progress.md")


@dataclass
class _History:
    """What the views show, folded from the events alone."""

    snapshot: Snapshot
    events: list[Event]
    review: dict | None  # the plan_finished data while the plan is finished
    question: str | None  # the agent's open question
    proposal_revision: int | None  # the revision of the waiting proposal

    @classmethod
    def of(cls, session_id: str, events: list[Event]) -> _History:
        review = question = proposal_revision = None
        for event in events:
            if event.kind == "plan_finished":
                review = event.data
            elif event.kind == "plan_reopened":
                review = None
            elif event.kind == "question_asked":
                question = event.data["question"]
            elif event.kind == "question_closed":
                question = None
            elif event.kind == "proposal_submitted":
                proposal_revision = event.data["revision"]
        return cls(fold(session_id, events), events, review, question, proposal_revision)


def render(session_id: str, events: list[Event]) -> dict[str, str]:
    """The journal's files, by name, made from a session's events (from the first, in order)."""
    history = _History.of(session_id, events)
    views = {
        "checkpoint.md": ("Checkpoint", _checkpoint(history)),
        "plan.md": ("Plan", _plan(history)),
        "decisions.md": ("Decisions", _decisions(history)),
        "progress.md": ("Progress", progress_lines(history.events)),
    }
    stamp = (
        f"Session {inert(session_id)}, cursor {history.snapshot.cursor}. Made from the plan's "
        "events by `jupyter-plans export`; edits here are not read back."
    )
    return {
        name: "\n".join([f"# {title}", "", stamp, "", *body]).rstrip("\n") + "\n"
        for name, (title, body) in views.items()
    }


def export(session, folder: str | os.PathLike) -> tuple[int, list[Path]]:
    """Write the journal of `session` into `folder` (made if missing); returns the cursor it
    was made from and the files. Each file is replaced whole or not at all."""
    folder = Path(folder).expanduser()
    events = session.events()
    texts = render(session.session_id, events)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlanStoreError(f"cannot export to {folder}: {exc.strerror or exc}") from None
    written: list[tuple[str, Path]] = []
    try:
        for name, text in texts.items():
            handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            written.append((temporary, folder / name))
            with os.fdopen(handle, "wb") as file:
                file.write(text.encode("utf-8"))
            # mkstemp makes the file private; a view keeps the mode of the one it replaces.
            final = folder / name
            os.chmod(temporary, final.stat().st_mode & 0o777 if final.is_file() else 0o644)
        for temporary, final in written:
            os.replace(temporary, final)
    except OSError as exc:
        for temporary, _ in written:
            Path(temporary).unlink(missing_ok=True)
        raise PlanStoreError(f"cannot export to {folder}: {exc.strerror or exc}") from None
    return (events[-1].seq if events else 0), [final for _, final in written]


# The views.


def _step_words(step: dict) -> str:
    return f"**{inert(step['id'])}**: {inert(step['description'])}"


def _ready_and_blocked(plan: dict | None) -> tuple[list[dict], list[tuple[dict, list[str]]]]:
    if plan is None:
        return [], []
    status = {step["id"]: step["status"] for step in plan["steps"]}
    ready, blocked = [], []
    for step in plan["steps"]:
        if step["status"] != "pending":
            continue
        unmet = [dep for dep in step["depends_on"] if status.get(dep) != "completed"]
        if unmet:
            blocked.append((step, unmet))
        else:
            ready.append(step)
    return ready, blocked


def _progress_words(plan: dict) -> str:
    done = sum(step["status"] == "completed" for step in plan["steps"])
    return f"{done} of {len(plan['steps'])} steps marked complete by the agent"


def _next_action(history: _History, ready: list[dict]) -> str:
    snapshot, plan = history.snapshot, history.snapshot.plan
    plan = plan.model_dump() if plan is not None else None
    if snapshot.pending_proposal_hash:
        return (
            f"The person decides on proposal `{snapshot.pending_proposal_hash[:12]}`: "
            "`%plan approve`, `%plan revise NOTES` or `%plan off`."
        )
    if history.question:
        return "The person answers the agent's question on the card (or with `%plan ANSWER`)."
    if history.review is not None and plan is not None:
        return "None: the plan is finished and every objective reviewed. `%plan TASK` starts anew."
    if snapshot.mode == "plan":
        return "The agent researches and submits a proposal for the person to approve."
    if plan is None:
        return "The person gives the agent a task: `%plan TASK`."
    current = next((s for s in plan["steps"] if s["status"] == "in_progress"), None)
    if current is not None:
        return f"The agent carries on with {_step_words(current)}"
    if ready:
        return f"The agent starts {_step_words(ready[0])}"
    if plan["steps"]:
        return "The agent reviews every objective with `finish_plan` to finish the plan."
    return "The agent adds steps to the plan."


def _checkpoint(history: _History) -> list[str]:
    snapshot = history.snapshot
    plan = snapshot.plan.model_dump() if snapshot.plan is not None else None
    ready, blocked = _ready_and_blocked(plan)
    lines = [f"- Mode: {snapshot.mode}"]
    if plan is None:
        lines.append("- Plan: none yet")
    else:
        lines.append(f"- Plan: revision {plan['revision']}, {_progress_words(plan)}")
        finished = "yes, every objective reviewed" if history.review else "no"
        lines.append(f"- Finished: {finished}")
    waiting = "none"
    if snapshot.pending_proposal_hash:
        waiting = (
            f"proposal `{snapshot.pending_proposal_hash}` "
            f"(revision {history.proposal_revision}) waits for the person"
        )
    lines.append(f"- Waiting decision: {waiting}")
    waiting_agent = [c.id for c in snapshot.comments if c.status == "open"]
    if waiting_agent:
        lines.append(f"- Comments open for the agent: {', '.join(waiting_agent)} (see plan.md)")
    if history.question:
        lines.append(f"- The agent asks: {inert(history.question)}")
    current = [s for s in (plan or {"steps": []})["steps"] if s["status"] == "in_progress"]
    lines += ["", "## Ready work", ""]
    if snapshot.pending_proposal_hash and (current or ready):
        lines += ["Once the person approves the proposal:", ""]
    lines += [f"- In progress: {_step_words(step)}" for step in current]
    lines += [f"- {_step_words(step)}" for step in ready]
    if not (current or ready):
        lines.append("Nothing is ready.")
    lines += ["", "## Blockers", ""]
    for step, unmet in blocked:
        waits = ", ".join(f"**{inert(dep)}**" for dep in unmet)
        lines.append(f"- **{inert(step['id'])}** waits for {waits}")
    if not blocked:
        lines.append("Nothing is blocked.")
    lines += ["", "## Next action", "", _next_action(history, ready)]
    return lines


def _plan(history: _History) -> list[str]:
    snapshot = history.snapshot
    if snapshot.plan is None:
        return ["No plan yet."]
    plan = snapshot.plan.model_dump()
    summary = f"Revision {plan['revision']}, {snapshot.mode} mode: {_progress_words(plan)}."
    if history.review:
        summary += " Finished: the agent reviewed every objective."
    lines = [summary]
    if plan["explanation"]:
        lines += ["", "## Why", "", inert(plan["explanation"])]
    for title, items in (("Findings", plan["findings"]), ("Objectives", plan["objectives"])):
        if items:
            lines += ["", f"## {title}", ""] + [f"- {inert(item)}" for item in items]
    if history.review:
        lines += [
            "",
            "## Final review",
            "",
            "| Objective | Outcome | Evidence |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {inert(item['objective'])} | {inert(item['outcome'])} | {inert(item['evidence'])} |"
            for item in history.review["review"]
        ]
    comments = [c.model_dump() for c in snapshot.comments]
    if not plan["steps"]:
        return lines + ["", "The plan has no steps."] + other_comments(comments, plan)
    lines += ["", "Steps are marked complete by the agent; they are not independently verified."]
    untitled_only = len(plan["phases"]) == 1 and plan["phases"][0]["title"] is None
    for number, phase in enumerate(plan["phases"], 1):
        if untitled_only:
            heading = "## Steps"
        else:
            title = f": {inert(phase['title'])}" if phase["title"] is not None else ""
            heading = f"## Phase {number}{title}"
        lines += ["", heading, ""]
        if not phase["steps"]:
            lines.append("No steps in this phase.")
        for step in phase["steps"]:
            mark = "x" if step["status"] == "completed" else " "
            note = " (in progress)" if step["status"] == "in_progress" else ""
            lines.append(f"- [{mark}] {_step_words(step)}{note}")
            if step["acceptance"]:
                lines.append(f"  - Done when: {inert(step['acceptance'])}")
            if step["depends_on"]:
                after = ", ".join(f"**{inert(dep)}**" for dep in step["depends_on"])
                lines.append(f"  - After: {after}")
            if step["evidence"]:
                lines.append(f"  - Evidence: {inert(step['evidence'])}")
            if step["check"] is not None and step["id"] in snapshot.checks:
                lines.append(_check_line(step, snapshot.checks[step["id"]].model_dump()))
            if snapshot.cells.get(step["id"]):
                ran = ", ".join(_cell_words(run) for run in snapshot.cells[step["id"]])
                lines.append(f"  - Cells: {ran}")
            lines += step_comments(comments, plan, step["id"])
    return lines + other_comments(comments, plan)


def _check_line(step: dict, entry: dict) -> str:
    """A step's check and how its latest run since the step was completed went."""
    if entry["status"] == "unapproved":
        said = "unapproved: not in the plan the person approved, so it does not run by itself"
    else:
        said = check_words(entry, step["status"])
    return f"  - Check: {inert(step['check'])} ({inert(said)})"


def _cell_words(run) -> str:
    """A cell that did a step: its execution count and id, and whether it failed or changed
    after the step was completed."""
    count = "-" if run.execution_count is None else run.execution_count
    words = f"[{count}] {inert('cell:' + run.cell_id)}"
    if not run.ok:
        words += " (failed)"
    if run.changed:
        words += " (changed after completion)"
    return words


def _decisions(history: _History) -> list[str]:
    recorded = [event for event in history.events if event.kind == "decision_recorded"]
    verdicts = [event for event in history.events if event.kind == "decision"]
    lines = _lasting(recorded) if recorded else ["No lasting decision has been recorded."]
    if verdicts:  # the person's, with who made each, where and when
        lines += ([] if lines[-1] == "" else [""]) + ["## Decisions on proposals", ""]
        said = {e.data["comment_id"]: e.data for e in history.events if e.kind == "comment_added"}
        for event in verdicts:
            lines.append(
                f"- {event.at[:10]} {event.at[11:19]} UTC, event {event.seq}: "
                + verdict_line(event.data)
            )
            lines += approved_with(event.data.get("comments") or [], said)
    return lines


def _lasting(recorded: list) -> list[str]:
    lines: list[str] = []
    for number, event in enumerate(recorded, 1):
        data = event.data
        lines += [f"## {number}. {inert(data['title'])}", "", inert(data["rationale"]), ""]
        if data["sources"]:
            lines += ["Sources:", ""] + [f"- {inert(source)}" for source in data["sources"]]
            lines.append("")
        lines += [f"Recorded at event {event.seq}.", ""]
    return lines
