"""The %plan verbs of the person's comments (DESIGN section 14): comment, comments, resolve and
reopen, one plain function each as verbs.py's, how a STEP given on a command line names a
step, and the refusal of a comment where there is no plan file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DecisionRefused
from ..plan.comments import no_plan_to_comment_on, step_named
from ..plan.text import describe_comments
from ..plan.validation import Refused, quote
from ..store.urls import place_of
from .verbs import MAGIC, Verb

if TYPE_CHECKING:
    from ..session import PlanSession


def comment(session: PlanSession, rest: str) -> None:
    step, _, text = rest.partition(" ")
    if not step or not text.strip():
        raise DecisionRefused(
            "comment needs STEP and TEXT: a step's id or 1-based position (- for the plan "
            f"as a whole), then your words; found {quote(rest)}"
        )
    try:
        step_id = step_named(session.snapshot_data()["plan"], step)
    except Refused as refusal:
        raise DecisionRefused(str(refusal)) from None
    made = session.comment(step_id, text.strip(), by=MAGIC())
    on = "the plan" if made.step_id is None else f"step {made.step_id}"
    print(f"Comment {made.id} on {on} is open: the agent reads it with its next turn.")


def comments(session: PlanSession, rest: str) -> None:
    if rest:
        raise DecisionRefused(f"comments takes nothing after it; found {quote(rest)}")
    print(describe_comments(session.snapshot_data()))


def resolve(session: PlanSession, rest: str) -> None:
    session.resolve_comment(_one_id("resolve", rest), by=MAGIC())
    print(f"Comment {rest} resolved.")


def reopen(session: PlanSession, rest: str) -> None:
    session.reopen_comment(_one_id("reopen", rest), by=MAGIC())
    print(f"Comment {rest} reopened: it waits for the agent again.")


COMMENT_VERBS: dict[str, Verb] = {
    "comment": comment,
    "comments": comments,
    "resolve": resolve,
    "reopen": reopen,
}


def refuse_without_a_plan(
    notebook: str | None, db: str | None, session: str | None, verb: str, rest: list[str]
) -> None:
    """A comment is on a plan: refuse one (or resolving, reopening one) where the plan file the
    command names is not there, before a store would make a file to refuse it in
    (jupyter-plans plan ...)."""
    if verb not in COMMENT_VERBS or verb == "comments":
        return
    from ..store.locate import for_command

    where = place_of(for_command(notebook, db, session).database)
    if isinstance(where, Path) and not os.path.lexists(where):
        named = None if verb == "comment" else (rest[0] if rest else "")
        raise DecisionRefused(f"{no_plan_to_comment_on(named)} ({where.name} is not there)")


def _one_id(verb: str, rest: str) -> str:
    if not rest or " " in rest:
        raise DecisionRefused(f"{verb} takes one comment id (c1, c2, ...); found {quote(rest)}")
    return rest
