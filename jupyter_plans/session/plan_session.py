"""PlanSession: the operations on one durable plan, each one transaction that appends its events,
and PlanStore, which opens sessions. The class body is the index of what a session does: each
operation is a plain function of the module that owns its concern, over the session's reads
(reads.py); the write steps they share are steps.py's, over the change."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..store import Store
from . import bridged, cells, comments, decisions, tools
from .reads import SessionReads

if TYPE_CHECKING:
    from ..plan.models import Snapshot


def _then_snapshot(verb: Any) -> Any:
    """A person's verb of decisions.py as the Python API gives it: returning the snapshot after
    it. (The verb itself returns nothing and loads no model: the magic and the card call it.)"""

    @functools.wraps(verb)
    def verb_then_snapshot(session: PlanSession, *args: Any, **kwargs: Any) -> Snapshot:
        verb(session, *args, **kwargs)
        return session.snapshot()

    return verb_then_snapshot


class PlanSession(SessionReads):
    """One durable plan. Every method that changes it is one transaction with its events."""

    @classmethod
    def of(cls, store: Any, session_id: str | None = None) -> PlanSession:
        """The session named `session_id` in `store`, or the store's current one."""
        return cls(store, store.current_session_id() if session_id is None else session_id)

    # The agent's tool calls, its question and its final review (tools.py; the tools
    # themselves are handlers.py's).
    call_tool = tools.call_tool
    record_refusal = tools.record_refusal
    open_question = tools.open_question
    open_question_text = tools.open_question_text
    answer = tools.answer
    review = tools.review
    review_data = tools.review_data

    # The person's verbs, what this process showed them, and the queue (decisions.py).
    on = _then_snapshot(decisions.on)
    start_planning = _then_snapshot(decisions.start_planning)
    off = _then_snapshot(decisions.off)
    approve = _then_snapshot(decisions.approve)
    mark_shown = decisions.mark_shown
    shown_proposal = decisions.shown_proposal
    approve_shown = _then_snapshot(decisions.approve_shown)
    revise = _then_snapshot(decisions.revise)
    revise_notes = decisions.revise_notes
    last_verdict = decisions.last_verdict
    edit_plan = _then_snapshot(decisions.edit_plan)
    queue_message = decisions.queue_message
    deliver = decisions.deliver

    # The person's comments, and what the agent is to follow of them (comments.py).
    comment = comments.comment
    resolve_comment = comments.resolve_comment
    reopen_comment = comments.reopen_comment
    comments_data = comments.comments_data
    comments_opened_after = comments.comments_opened_after
    approved_with_comments = comments.approved_with_comments

    # What an agent bridged from ACP writes, and its status for the card (bridged.py).
    record_agent_plan = bridged.record_agent_plan
    submit_agent_proposal = bridged.submit_agent_proposal
    request_changes = bridged.request_changes
    withdraw_agent_proposal = bridged.withdraw_agent_proposal
    record_unguarded = bridged.record_unguarded
    record_agent_status = bridged.record_agent_status
    agent_status = bridged.agent_status
    unguarded_text = bridged.unguarded_text

    # The cells that did each step (cells.py).
    cell_ran = cells.cell_ran
    cell_watch = cells.cell_watch


class PlanStore(Store):
    """A durable home for plan sessions: a SQLite file beside the notebook, or a database URL."""

    def session(self, session_id: str | None = None) -> PlanSession:
        """The session named `session_id`, or the store's current one."""
        return PlanSession.of(self, session_id)
