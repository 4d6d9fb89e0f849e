"""The person's verbs, once: each one's name, what follows it, what it does and its one-line
refusals, for every surface that offers it: the %plan magic, `jupyter-plans plan` and the
routes (POST /api/plans/decision and /api/plans/comment). A surface hands `run` the verb, the
words after it (the magic's line, the command line's words, the route's field) and who acts;
the verb refuses in one line (DecisionRefused, nothing changed) or acts and says what it did
in one line. A surface carries only that: a printed line and an exit code, an HTTP status."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DecisionRefused
from ..lazy import LazyModule
from ..plan.comments import no_plan_to_comment_on, step_named
from ..plan.text import describe_comments
from ..plan.validation import Refused, quote
from ..store.locate import for_command
from ..store.urls import place_of

decisions = LazyModule("jupyter_plans.session.decisions")  # loads with the first verb


@dataclass(frozen=True)
class Verb:
    name: str
    follows: str  # what the person writes after it
    does: str
    act: Callable[[Any, str, Any], str]  # (session, the words after it, who) -> what it did


def nothing_after(verb: str, words: str) -> None:
    if words:
        raise DecisionRefused(f"{verb} takes nothing after it; found {quote(words)}")


def _on(session: Any, words: str, by: Any) -> str:
    nothing_after("on", words)
    decisions.on(session, by=by)
    return "Plan mode on: the agent researches and proposes; nothing changes until you approve."


def _off(session: Any, words: str, by: Any) -> str:
    nothing_after("off", words)
    decisions.off(session, by=by)
    return "Plan mode off."


def _approve(session: Any, words: str, by: Any) -> str:
    # approve claims its whole line: anything after it must be the waiting hash.
    if " " in words:
        raise DecisionRefused(
            f"approve takes only the 64-hex hash of the waiting proposal; found {quote(words)}"
        )
    # Without a hash: the proposal this process last showed, only while it still waits.
    if words:
        approved = decisions.approve(session, words, by=by)
    else:
        approved = decisions.approve_shown(session, by)
    return f"Approved proposal {approved[:12]}; the agent may proceed."


def _revise(session: Any, words: str, by: Any) -> str:
    # Without NOTES, the open comments alone say what should change.
    if not words.strip() and not any(c["status"] == "open" for c in session.comments_data()):
        raise DecisionRefused("revise needs NOTES: say what should change")
    decisions.revise(session, words, by=by)
    said = "Your notes went" if words.strip() else "Your open comments went"
    return f"{said} to the agent; the proposal is withdrawn until it submits again."


def _comment(session: Any, words: str, by: Any) -> str:
    step, _, text = words.partition(" ")
    if not step or not text.strip():
        raise DecisionRefused(
            "comment needs STEP and TEXT: a step's id or 1-based position (- for the plan "
            f"as a whole), then your words; found {quote(words)}"
        )
    try:
        step_id = step_named(session.snapshot_data()["plan"], step)
    except Refused as refusal:
        raise DecisionRefused(str(refusal)) from None
    made = session.comment(step_id, text.strip(), by=by)
    on = "the plan" if made.step_id is None else f"step {made.step_id}"
    return f"Comment {made.id} on {on} is open: the agent reads it with its next turn."


def _comments(session: Any, words: str, by: Any) -> str:
    nothing_after("comments", words)
    return describe_comments(session.snapshot_data())


def _one_id(verb: str, words: str) -> str:
    if not words or " " in words:
        raise DecisionRefused(f"{verb} takes one comment id (c1, c2, ...); found {quote(words)}")
    return words


def _resolve(session: Any, words: str, by: Any) -> str:
    session.resolve_comment(_one_id("resolve", words), by=by)
    return f"Comment {words} resolved."


def _reopen(session: Any, words: str, by: Any) -> str:
    session.reopen_comment(_one_id("reopen", words), by=by)
    return f"Comment {words} reopened: it waits for the agent again."


VERBS: dict[str, Verb] = {
    verb.name: verb
    for verb in (
        Verb("on", "", "start plan mode, where the agent researches and proposes", _on),
        Verb("off", "", "leave plan mode, dropping any waiting proposal", _off),
        Verb("approve", "[HASH]", "approve the waiting proposal, named by its HASH", _approve),
        Verb("revise", "NOTES", "ask for changes with NOTES and your open comments", _revise),
        Verb("comment", "STEP TEXT", "your comment on a step, or - for the whole plan", _comment),
        Verb("comments", "", "your comments, their status and the agent's replies", _comments),
        Verb("resolve", "CID", "resolve comment CID, one of c1, c2, ...", _resolve),
        Verb("reopen", "CID", "reopen comment CID for the agent", _reopen),
    )
}
"""The person's verbs every surface offers (the magic adds its own: status, check, ...)."""


def run(session: Any, verb: str, words: str, by: Any) -> str:
    """Carry out `verb` with the words after it for `by`; what it did, in one line."""
    return VERBS[verb].act(session, words, by)


def refuse_without_a_plan(
    notebook: str | None, db: str | None, session: str | None, verb: str, words: str
) -> None:
    """A comment is on a plan: refuse one (or resolving, reopening one) where the plan file the
    command names is not there, before a store would make a file to refuse it in."""
    if verb not in ("comment", "resolve", "reopen"):
        return
    where = place_of(for_command(notebook, db, session).database)
    if isinstance(where, Path) and not os.path.lexists(where):
        named = None if verb == "comment" else words
        raise DecisionRefused(f"{no_plan_to_comment_on(named)} ({where.name} is not there)")
