"""PlanSession: the operations on one durable plan, each one transaction that appends its events,
and PlanStore, which opens sessions. The class body is the index of what a session does: each
operation is a plain function of the module that owns its concern, over the session's reads
(reads.py); the write steps they share are steps.py's, over the change.

Those modules load with the first operation of theirs a process uses: a card reads through
SessionReads alone, so a kernel shows its first card without the tool catalog, the checks and
the write transaction."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..lazy import LazyModule
from ..store import Store
from .reads import SessionReads

if TYPE_CHECKING:
    from ..plan.models import Snapshot

tools = LazyModule("jupyter_plans.session.tools")
decisions = LazyModule("jupyter_plans.session.decisions")
comments = LazyModule("jupyter_plans.session.comments")
bridged = LazyModule("jupyter_plans.session.bridged")
cells = LazyModule("jupyter_plans.session.cells")
checks = LazyModule("jupyter_plans.session.checks")


class _Of:
    """A session operation that is a function of `module`, looked up the first time a session
    uses it and a plain method from then on. `then_snapshot`: a person's verb of decisions.py
    (which returns nothing and loads no model: the magic and the card call it) as the Python
    API gives it, returning the snapshot after it."""

    def __init__(self, module: LazyModule, then_snapshot: bool = False) -> None:
        self.module = module
        self.then_snapshot = then_snapshot

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner, self.name = owner, name

    def __get__(self, session: Any, owner: type | None = None) -> Any:
        function = getattr(self.module, self.name)
        if self.then_snapshot:
            function = _then_snapshot(function)
        setattr(self.owner, self.name, function)
        return function if session is None else function.__get__(session, owner)


def _then_snapshot(verb: Any) -> Any:
    @functools.wraps(verb)
    def verb_then_snapshot(session: PlanSession, *args: Any, **kwargs: Any) -> Snapshot:
        verb(session, *args, **kwargs)
        return session.snapshot()

    return verb_then_snapshot


class PlanSession(SessionReads):
    """One durable plan. Every method that changes it is one transaction with its events."""

    # The agent's tool calls, its question and its final review (tools.py; the tools
    # themselves are handlers.py's). What the card shows of them is read in reads.py.
    call_tool = _Of(tools)
    record_refusal = _Of(tools)
    open_question = _Of(tools)
    answer = _Of(tools)
    review = _Of(tools)

    # The person's verbs and the queue (decisions.py); what this process showed them is read
    # in reads.py.
    on = _Of(decisions, then_snapshot=True)
    start_planning = _Of(decisions, then_snapshot=True)
    off = _Of(decisions, then_snapshot=True)
    approve = _Of(decisions, then_snapshot=True)
    approve_shown = _Of(decisions, then_snapshot=True)
    revise = _Of(decisions, then_snapshot=True)
    edit_plan = _Of(decisions, then_snapshot=True)
    queue_message = _Of(decisions)
    deliver = _Of(decisions)

    # The person's comments, and what the agent is to follow of them (comments.py).
    comment = _Of(comments)
    resolve_comment = _Of(comments)
    reopen_comment = _Of(comments)
    comments_data = _Of(comments)
    comments_opened_after = _Of(comments)
    approved_with_comments = _Of(comments)

    # What an agent bridged from ACP writes (bridged.py); its status for the card is read in
    # reads.py.
    record_agent_plan = _Of(bridged)
    submit_agent_proposal = _Of(bridged)
    request_changes = _Of(bridged)
    withdraw_agent_proposal = _Of(bridged)
    record_unguarded = _Of(bridged)
    record_agent_status = _Of(bridged)

    # The cells that did each step (cells.py).
    cell_ran = _Of(cells)
    cell_watch = _Of(cells)

    # Steps that check themselves (checks.py): run only in the kernel with the session loaded,
    # which alone records a run (notebook/checks.py).
    run_check = _Of(checks)
    check_lines = _Of(checks)


class PlanStore(Store):
    """A durable home for plan sessions: a SQLite file beside the notebook, or a database URL."""

    def session(self, session_id: str | None = None) -> PlanSession:
        """The session named `session_id`, or the store's current one."""
        return PlanSession.of(self, session_id)


def open_plan(
    notebook: str | None, db: str | None, session_id: str | None, speaker: str = "jupyter-plans"
) -> tuple[PlanStore, PlanSession]:
    """The store and session a command line names (raises PlanStoreError): --notebook found as
    every surface finds it (store/locate.py), --db and --session winning where given; a plan
    file beside the notebook opened as its kernel opens it, and recorded as that notebook's
    (a notice on the way is said on stderr by `speaker`)."""
    from ..store.following import follow
    from ..store.locate import for_command

    found = for_command(notebook, db, session_id)
    store = follow.open_for(found.notebook, found.database, PlanStore, speaker)
    try:
        return store, store.session(found.session)
    except BaseException:
        store.close()
        raise
