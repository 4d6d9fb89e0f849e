"""The %plan verbs: the person's table that every surface reads (session/verbs.py: on, off,
approve, revise and the comments), and the magic's own (status, history, new, export), one
plain function each, and who acts through the magic. Each takes the kernel's session and the
words after the verb, and returns the session the kernel goes on with (None: the same one);
the magic's table of every verb is in magics.py."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DecisionRefused
from ..plan.text import describe_event, status_line
from ..plan.validation import quote
from ..plan.who import person
from ..session import PlanSession
from ..session.verbs import VERBS, nothing_after, run
from . import say

MagicVerb = Callable[[PlanSession, str], "PlanSession | None"]


def MAGIC() -> dict:  # noqa: N802 - read as a constant: who acts through %plan
    return person(None, "magic")


def _shared(name: str) -> MagicVerb:
    """A verb of the person's table (session/verbs.py), printing what it did."""
    return lambda session, rest: say(run(session, name, rest, MAGIC()))


def status(session: PlanSession, rest: str) -> None:
    nothing_after("status", rest)
    question = session.open_question_text()
    finished = session.review_data() is not None
    say(status_line(session.snapshot_data(), question, finished))


def history(session: PlanSession, rest: str) -> None:
    if rest and not rest.isdigit():
        raise DecisionRefused(f"history takes a number of events; found {quote(rest)}")
    count = int(rest or 10)
    events = session.events(after=max(0, session.cursor() - count))
    told = [describe_event(e) for e in events]
    say("\n".join(told) or "Nothing has happened yet.")


def new(session: PlanSession, rest: str) -> PlanSession:
    """A fresh session in the same file, made the file's current one: the kernel's from now."""
    nothing_after("new", rest)
    store = session.store
    taken = {s["session_id"] for s in store.sessions()} | {session.session_id}
    number = len(taken) + 1
    while f"session-{number}" in taken:
        number += 1
    fresh = PlanSession(store, f"session-{number}")
    store.set_current_session(fresh.session_id)
    say("Started a new plan session; earlier ones stay in the plan file.")
    return fresh


def export(session: PlanSession, rest: str) -> None:
    if not rest:
        raise DecisionRefused("export needs DIR: the folder to write the journal into")
    from ..journal import export

    cursor, files = export(session, rest)
    names = ", ".join(file.name for file in files)
    say(f"Wrote {names} to {files[0].parent} (cursor {cursor}).")


# The verbs a decision of the person's is made by: after one succeeds, an attached agent
# goes on in that cell (PlanMagics.follow_decisions).
DECIDING = ("approve", "revise")

MAGIC_VERBS: dict[str, MagicVerb] = {
    **{name: _shared(name) for name in VERBS},
    "status": status,
    "history": history,
    "new": new,
    "export": export,
}
