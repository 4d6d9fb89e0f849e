"""The person's %plan verbs (on, off, approve, revise, status, history, new, export), one plain
function each, and who acts through the magic. Each takes the kernel's session and the words
after the verb, and returns the session the kernel goes on with (None: the same one); the
magic's table of every verb is in magics.py. The decisions are decisions.py's own, which load
no model: the magic says what happened in its own words."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DecisionRefused
from ..lazy import LazyModule
from ..plan.text import describe_event, status_line
from ..plan.validation import quote
from ..plan.who import person
from ..session import PlanSession

decisions = LazyModule("jupyter_plans.session.decisions")  # loads with the first verb

Verb = Callable[[PlanSession, str], "PlanSession | None"]


def MAGIC() -> dict:  # noqa: N802 - read as a constant: who acts through %plan
    return person(None, "magic")


def _no_arguments(verb: str, rest: str) -> None:
    if rest:
        raise DecisionRefused(f"{verb} takes nothing after it; found {quote(rest)}")


def on(session: PlanSession, rest: str) -> None:
    _no_arguments("on", rest)
    decisions.on(session, by=MAGIC())
    print("Plan mode on: the agent researches and proposes; nothing changes until you approve.")


def off(session: PlanSession, rest: str) -> None:
    _no_arguments("off", rest)
    decisions.off(session, by=MAGIC())
    print("Plan mode off.")


def approve(session: PlanSession, rest: str) -> None:
    # approve claims its whole line: anything after it must be the waiting hash.
    if " " in rest:
        raise DecisionRefused(
            f"approve takes only the 64-hex hash of the waiting proposal; found {quote(rest)}"
        )
    # Without a hash: the proposal this kernel last showed, only while it still waits.
    by = MAGIC()
    if rest:
        approved = decisions.approve(session, rest, by=by)
    else:
        approved = decisions.approve_shown(session, by)
    print(f"Approved proposal {approved[:12]}; the agent may proceed.")


def revise(session: PlanSession, rest: str) -> None:
    # Without NOTES, the open comments alone say what should change.
    if not rest and not any(c["status"] == "open" for c in session.comments_data()):
        raise DecisionRefused("revise needs NOTES: say what should change")
    said = "Your notes went" if rest else "Your open comments went"
    decisions.revise(session, rest, by=MAGIC())
    print(f"{said} to the agent; the proposal is withdrawn until it submits again.")


def status(session: PlanSession, rest: str) -> None:
    _no_arguments("status", rest)
    question = session.open_question_text()
    finished = session.review_data() is not None
    print(status_line(session.snapshot_data(), question, finished))


def history(session: PlanSession, rest: str) -> None:
    if rest and not rest.isdigit():
        raise DecisionRefused(f"history takes a number of events; found {quote(rest)}")
    count = int(rest or 10)
    events = session.events(after=max(0, session.cursor() - count))
    told = [describe_event(e) for e in events]
    print("\n".join(told) or "Nothing has happened yet.")


def new(session: PlanSession, rest: str) -> PlanSession:
    """A fresh session in the same file, made the file's current one: the kernel's from now."""
    _no_arguments("new", rest)
    store = session.store
    taken = {s["session_id"] for s in store.sessions()} | {session.session_id}
    number = len(taken) + 1
    while f"session-{number}" in taken:
        number += 1
    fresh = PlanSession(store, f"session-{number}")
    store.set_current_session(fresh.session_id)
    print("Started a new plan session; earlier ones stay in the plan file.")
    return fresh


def export(session: PlanSession, rest: str) -> None:
    if not rest:
        raise DecisionRefused("export needs DIR: the folder to write the journal into")
    from ..journal import export

    cursor, files = export(session, rest)
    names = ", ".join(file.name for file in files)
    print(f"Wrote {names} to {files[0].parent} (cursor {cursor}).")


# The verbs a decision of the person's is made by: after one succeeds, an attached agent
# goes on in that cell (PlanMagics.decision_hooks).
DECIDING = ("approve", "revise")

PERSON_VERBS: dict[str, Verb] = {
    "on": on,
    "off": off,
    "approve": approve,
    "revise": revise,
    "status": status,
    "history": history,
    "new": new,
    "export": export,
}
