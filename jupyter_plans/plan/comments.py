"""The person's comments on a plan, as data (DESIGN section 14): the bounds of a comment and of
the agent's reply, how a comment reads beside a plan revised since, and the snapshot's
`comments`, folded from the events or made from the store's rows alike."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .intake import unseen_character
from .validation import Refused, is_blank, quote

MAX_COMMENT_CHARS = 2000
MAX_REPLY_CHARS = 500
# Comments open at once (status `open`: an addressed one waits for the person, not the agent).
MAX_OPEN = 64
# Resolved comments the snapshot keeps, the most recently resolved.
RESOLVED_SHOWN = 16
# The largest comment number a store holds (PostgreSQL's integer): an id past it names none.
MAX_COMMENT_NUMBER = 2**31 - 1
COMMENT_KINDS = ("comment_added", "comment_addressed", "comment_resolved", "comment_reopened")

_ID = re.compile("c[1-9][0-9]{0,17}")


def comment_text_refusal(text: Any, what: str = "text") -> str | None:
    """Why `text` cannot be a comment, or None: 1 to 2,000 characters of the person's words."""
    if not isinstance(text, str):
        return f"{what} must be text; found {type(text).__name__}"
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        return (
            f"{what} contains a lone surrogate at character {exc.start}; it must be valid Unicode"
        )
    if is_blank(text):
        return f"{what} is blank; a comment says something (1 to {MAX_COMMENT_CHARS} characters)"
    if len(text) > MAX_COMMENT_CHARS:
        return f"{what} is {len(text)} characters; the limit is {MAX_COMMENT_CHARS}"
    # The character rules of a name (plan/who.py), newlines aside: what the agent and everyone
    # else read is what was written.
    found = unseen_character(text, newlines=True)
    if found:
        index, char, kind = found
        return (
            f"{what} contains the {kind} U+{ord(char):04X} at character {index}; a comment "
            "may hold newlines but no other control or invisible character"
        )
    return None


def no_plan_to_comment_on(comment_id: str | None = None) -> str:
    """The refusal of a comment (or, with `comment_id`, of resolving or reopening one) where
    there is no plan file yet."""
    if comment_id is None:
        return "nothing to comment on: there is no plan yet"
    return f"there is no comment {quote(comment_id)[:40]}: there is no plan yet"


def comment_id_refusal(comment_id: Any) -> str | None:
    """Why `comment_id` names no comment, or None: c1, c2, ..."""
    if isinstance(comment_id, str) and _ID.fullmatch(comment_id):
        return None
    return f"comment id {quote(comment_id)} is not a comment id; they are c1, c2, ..."


def comment_number(comment_id: str) -> int:
    return int(comment_id[1:])


def comment_id(number: int) -> str:
    return f"c{number}"


def check_reply(args: dict) -> dict:
    """A comment_reply input, checked against the bounds that need no stored state."""
    cid, reply = args["comment_id"], args["reply"]
    if not _ID.fullmatch(cid):
        raise Refused(
            f"comment_id is {quote(cid)}; a comment id is c1, c2, ... as the context shows"
        )
    if is_blank(reply):
        raise Refused("reply is blank; say in one line what you did about the comment")
    if len(reply) > MAX_REPLY_CHARS:
        raise Refused(f"reply is {len(reply)} characters; the limit is {MAX_REPLY_CHARS}")
    return {"comment_id": cid, "reply": reply}


# How a comment reads beside the plan.


def step_descriptions(plan: dict | None, proposal: dict | None = None) -> dict[str, str]:
    """Step id -> description, of the plan and of a waiting proposal's body (the plan's own
    wording wins where both have a step)."""
    found: dict[str, str] = {}
    for phase in (proposal or {}).get("phases", ()):
        for step in phase["steps"]:
            found[step["id"]] = step["description"]
    for step in plan["steps"] if plan else ():
        found[step["id"]] = step["description"]
    return found


def anchoring(comment: dict, plan: dict | None) -> str:
    """Where a comment stands on `plan`: "plan" (on the plan as a whole), "current" (its step
    reads as it did), "earlier" (its step was reworded since) or "removed"."""
    if comment["step_id"] is None:
        return "plan"
    for step in plan["steps"] if plan else ():
        if step["id"] == comment["step_id"]:
            return "current" if step["description"] == comment["anchor"] else "earlier"
    return "removed"


def anchor_words(comment: dict, plan: dict | None) -> str | None:
    """ "on an earlier wording: ANCHOR" or "on a removed step: ANCHOR"; None where the comment's
    step reads as it did when the comment was made."""
    where = anchoring(comment, plan)
    if where == "earlier":
        return f"on an earlier wording: {comment['anchor']}"
    if where == "removed":
        return f"on a removed step: {comment['anchor']}"
    return None


def comment_line(comment: dict) -> str:
    """The comment as the person's words to the agent: "On step e3: use the median, said
    alice". Only the person's own text is in it: the step is named by its id, never by its
    words, which are the agent's (DESIGN section 14). The text's own last stop is the line's:
    "pull the mean up." is said "pull the mean up, said alice."; "why?" is "why? said alice"."""
    on = "On the plan as a whole" if comment["step_id"] is None else f"On step {comment['step_id']}"
    text = comment["text"].rstrip()
    name = (comment.get("by") or {}).get("name")
    if not name:
        return f"{on}: {text}"
    if text.endswith(("?", "!", "…", "...")):
        return f"{on}: {text} said {name}"
    if text.endswith("."):
        return f"{on}: {text[:-1]}, said {name}."
    return f"{on}: {text.rstrip(',;:')}, said {name}"


def count_open(comments: Iterable[dict]) -> int:
    """How many comments wait for the agent (status open)."""
    return sum(comment["status"] == "open" for comment in comments)


# A STEP given on a command line (%plan comment, jupyter-plans plan ... comment) that names no
# step but the plan as a whole.
WHOLE_PLAN = "-"


def step_named(plan: dict | None, step: str) -> str | None:
    """The step id a command line's STEP names: a step's id, else its 1-based position in the
    plan; "-" is the plan as a whole (None). Anything else is passed on as it is, for the
    session to refuse naming the steps there are."""
    if step == WHOLE_PLAN:
        return None
    steps = plan["steps"] if plan else []
    if any(s["id"] == step for s in steps) or not (step.isascii() and step.isdigit()):
        return step
    if len(step) > 3 or not 1 <= int(step) <= len(steps):
        raise Refused(
            f"STEP {quote(step)} is no step id, and the plan has {len(steps)} steps to number "
            "from 1; give a step's id or its position"
        )
    return steps[int(step) - 1]["id"]


# The snapshot's `comments`.


def shown(entries: Iterable[tuple[dict, int]]) -> list[dict]:
    """The snapshot's comments from (comment, seq of its last change of status): every one not
    resolved and the RESOLVED_SHOWN most recently resolved, in the order they were made."""
    entries = list(entries)
    resolved = sorted(
        (entry for entry in entries if entry[0]["status"] == "resolved"), key=lambda e: -e[1]
    )
    kept = {id(comment) for comment, _ in resolved[:RESOLVED_SHOWN]}
    chosen = [c for c, _ in entries if c["status"] != "resolved" or id(c) in kept]
    return sorted(chosen, key=lambda comment: comment_number(comment["id"]))


class CommentFold:
    """The comments of a session, folded from its events in order."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[dict, int]] = {}

    def apply(self, seq: int, kind: str, data: dict) -> None:
        if kind == "comment_added":
            comment = {
                "id": data["comment_id"],
                "step_id": data["step_id"],
                "anchor": data["anchor"],
                "text": data["text"],
                "by": data.get("by"),
                "status": "open",
                "reply": None,
            }
            self.entries[data["comment_id"]] = (comment, seq)
            return
        comment, _ = self.entries[data["comment_id"]]
        if kind == "comment_addressed":
            comment["status"], comment["reply"] = "addressed", data["reply"]
        else:
            comment["status"] = "resolved" if kind == "comment_resolved" else "open"
        self.entries[data["comment_id"]] = (comment, seq)

    def view(self) -> list[dict]:
        return shown(self.entries.values())
