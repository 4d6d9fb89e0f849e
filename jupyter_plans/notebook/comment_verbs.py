"""The %plan verbs of the person's comments (DESIGN section 14): comment, comments, resolve and
reopen, and how a STEP given on a command line names a step."""

from __future__ import annotations

from typing import Any

from ..errors import DecisionRefused
from ..plan.comments import step_named
from ..plan.text import describe_comments
from ..plan.validation import Refused, quote

COMMENT_VERBS = ("comment", "comments", "resolve", "reopen")


class CommentVerbs:
    """The comment verbs of PlanMagics (a mixin: it gives `session`, and `_by()`, who acts)."""

    session: Any
    _by: Any

    def _verb_comment(self, rest: str) -> None:
        step, _, text = rest.partition(" ")
        if not step or not text.strip():
            raise DecisionRefused(
                "comment needs STEP and TEXT: a step's id or 1-based position (- for the plan "
                f"as a whole), then your words; found {quote(rest)}"
            )
        try:
            step_id = step_named(self.session.snapshot_data()["plan"], step)
        except Refused as refusal:
            raise DecisionRefused(str(refusal)) from None
        made = self.session.comment(step_id, text.strip(), by=self._by())
        on = "the plan" if made.step_id is None else f"step {made.step_id}"
        print(f"Comment {made.id} on {on} is open: the agent reads it with its next turn.")

    def _verb_comments(self, rest: str) -> None:
        if rest:
            raise DecisionRefused(f"comments takes nothing after it; found {quote(rest)}")
        print(describe_comments(self.session.snapshot_data()))

    def _verb_resolve(self, rest: str) -> None:
        self.session.resolve_comment(_one_id("resolve", rest), by=self._by())
        print(f"Comment {rest} resolved.")

    def _verb_reopen(self, rest: str) -> None:
        self.session.reopen_comment(_one_id("reopen", rest), by=self._by())
        print(f"Comment {rest} reopened: it waits for the agent again.")


def _one_id(verb: str, rest: str) -> str:
    if not rest or " " in rest:
        raise DecisionRefused(f"{verb} takes one comment id (c1, c2, ...); found {quote(rest)}")
    return rest
