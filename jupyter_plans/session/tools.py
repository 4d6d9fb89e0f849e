"""The agent's tools on a session: each call one transaction, a repeat of an accepted call id
answered from the record, and a refusal recorded as one tool_finished event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import DecisionRefused
from ..plan import policy
from ..plan.catalog import CATALOG
from ..plan.intake import (
    MAX_CALL_ID_BYTES,
    call_digest,
    check_ids,
    id_refusal,
    recorded_tool_name,
    tool_name_refusal,
)
from ..plan.review import check_finishable, reviewed
from ..plan.revision import body_hash, build_plan, proposal_body
from ..plan.rules import CheckedPlan, check_expected_revision
from ..plan.validation import Refused, quote, read_json
from ..plan.who import person
from ..store.transaction import Tx
from ..store.transaction import reconnecting as _reconnecting

if TYPE_CHECKING:
    from ..plan.models import FinalReview, Message, Question, ToolResult
from .cells import keep_completed_code
from .decisions import check_person_text
from .recorded import same_as_recorded
from .transaction import EarlierUse, _Change, _dumps, _loads, models

ENFORCEMENT = "session-metadata-only"


class _Call(NamedTuple):
    """A tool call with what was checked of it before the write lock."""

    name: Any
    bad_name: str | None  # why the tool name is refused, if it is
    parsed: Any  # the checked arguments, when they passed
    invalid: Refused | None  # why the arguments are refused, if they are
    digest: str | None  # of the name and arguments, when the call has an id
    turn_id: str | None
    call_id: str | None


class AgentTools:
    """The tool calls of PlanSession (a mixin: the session gives `store`, `session_id`,
    `_writing` and the decisions' `_queue`)."""

    @_reconnecting
    def call_tool(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run a tool call from an agent; never raises for bad input, returns is_error instead.

        `turn_id` and `call_id` come from the integration, not the model: one that is not a
        string raises TypeError, and one that is not valid Unicode or not 1 to 128 bytes
        raises ValueError. A repeat of an accepted call's `call_id` with the same tool and
        equal arguments returns the recorded result; with another call it is refused.
        """
        if turn_id is not None or call_id is not None:
            check_ids(turn_id, call_id)
        unreadable = None
        if isinstance(args, str | bytes):  # as providers send them: read once, for all below
            try:
                args = read_json(args)
            except Refused as refusal:
                unreadable = refusal
        # The bounds that need no stored state are checked before the write lock is taken,
        # so a writer holds it only for what depends on the session.
        bad_name = tool_name_refusal(name)
        spec, parsed, invalid = None if bad_name else CATALOG.get(name), None, None
        if spec is not None:
            try:
                if unreadable is not None:
                    raise unreadable
                parsed = spec.parse(args)
            except Refused as refusal:
                invalid = refusal
        digest = None if call_id is None else call_digest(name, args)
        call = _Call(name, bad_name, parsed, invalid, digest, turn_id, call_id)
        try:
            return self._run_call(call, look_later=True)
        except EarlierUse:  # the call id was used before: run it again, looking first
            return self._run_call(call, look_later=False)

    def _run_call(self, call: _Call, look_later: bool) -> ToolResult:
        """The call's result, in one transaction. `look_later`: on SQLite, when the session's
        state is known, an earlier use of the call id is not looked for first; the call id's
        unique index tells at the insert, and a refusal looks before it is recorded
        (EarlierUse: the transaction is undone and the call run again, looking first)."""
        name, bad_name, parsed, invalid, digest, turn_id, call_id = call
        with self._writing(call_id, look_later) as change:
            change.digest = digest
            # Before every other check: a retry of an accepted call changes nothing.
            if change.recorded is not None and same_as_recorded(change, self.session_id, call):
                return models.ToolResult.model_validate_json(change.recorded)
            try:
                if change.recorded is not None:
                    raise Refused(
                        f"call id {quote(call_id)} was already used for a different call (another "
                        "tool or other arguments); this call was not applied: send it under a "
                        "new call id"
                    )
                if bad_name:
                    raise Refused(bad_name)
                self._see_turn(change, turn_id)
                refusal = policy.refusal_for_tool(name, change.state.mode)
                if refusal:
                    raise Refused(refusal)
                if invalid is not None:
                    raise invalid
                content = getattr(self, f"_tool_{name}")(change, parsed, turn_id, call_id)
                return models.ToolResult(is_error=False, content=content)
            except Refused as refusal:
                if change.unlooked:
                    raise EarlierUse from None  # a retry of an accepted call is not refused
                return _refused(change, name, call_id, str(refusal))

    @_reconnecting
    def record_refusal(self, name: Any, content: str, *, call_id: str | None = None) -> ToolResult:
        """Record a call an integration refused itself (an unknown tool of its own catalog)
        as any refused call is recorded, and return its error result."""
        if call_id is not None and id_refusal("call_id", call_id, MAX_CALL_ID_BYTES):
            call_id = None  # the refusal is recorded; an id it cannot keep is left out
        with self._writing() as change:
            return _refused(change, name, call_id, content)

    def _see_turn(self, change: _Change, turn_id: str | None) -> None:
        """Refuse a call from a cancelled or older turn; register a new turn as the newest."""
        if turn_id is None:
            return
        s = change.state
        if turn_id == s.newest_turn_id and not s.newest_turn_cancelled:
            return
        found = change.tx.first("SELECT_TURN", {"sid": s.session_id, "turn_id": turn_id})
        if found is not None and found.cancelled:
            raise Refused(
                f"turn {turn_id!r} was cancelled when the person left plan mode; "
                "this call is late and was not applied"
            )
        if found is not None:
            raise Refused(
                f"turn {turn_id!r} is older than the newest turn {s.newest_turn_id!r}; "
                "this call is late and was not applied"
            )
        s.newest_turn_ordinal += 1
        s.newest_turn_id = turn_id
        s.newest_turn_cancelled = False
        change.add(
            "INSERT_TURN",
            {
                "session_id": s.session_id,
                "turn_id": turn_id,
                "ordinal": s.newest_turn_ordinal,
                "cancelled": False,
            },
        )

    def _tool_update_plan(self, change: _Change, args: CheckedPlan, turn_id, call_id) -> str:
        s = change.state
        check_expected_revision(args.expected_revision, s.revision, required=True)
        plan, reopened = build_plan(args.body, s.plan, s.revision + 1, turn_id, call_id)
        body = None if reopened else args.text  # reopening changed the steps
        content = f"Plan updated to revision {plan['revision']}."
        if reopened:
            content += (
                " Reopened as pending, because a step they depend on is no longer completed: "
                + ", ".join(reopened)
                + "."
            )
        if s.pending_proposal_hash is not None:
            content += (
                " Your proposal still waits for the person's decision and stays bound to the "
                "text you submitted; call plan_submit again if the proposal should change."
            )
        return self._store_plan(change, "update_plan", plan, content, turn_id, call_id, body)

    def _tool_plan_submit(self, change: _Change, args: CheckedPlan, turn_id, call_id) -> str:
        s = change.state
        check_expected_revision(args.expected_revision, s.revision, required=False)
        plan, reopened = build_plan(args.body, s.plan, s.revision + 1, turn_id, call_id)
        stored = None if reopened else args.text
        body = proposal_body(plan)
        digest = body_hash(body)
        content = (
            f"Proposal submitted as revision {plan['revision']} (hash {digest}). "
            "End your turn now and wait: the person will approve it, ask for changes, "
            "or leave plan mode."
        )
        content = self._store_plan(change, "plan_submit", plan, content, turn_id, call_id, stored)
        self._propose(change, digest, body)
        return content

    def _tool_record_decision(self, change: _Change, decision: dict, turn_id, call_id) -> str:
        content = f"Decision recorded: {decision['title']}"
        seq = change.emit(
            "decision_recorded",
            decision,
            call_id=call_id,
            result={"is_error": False, "content": content},
        )
        change.add(
            "INSERT_DECISION",
            {
                "session_id": change.state.session_id,
                "seq": seq,
                "title": decision["title"],
                "rationale": decision["rationale"],
                "sources": _dumps(decision["sources"]),
            },
        )
        return content

    def _tool_ask_user(self, change: _Change, question: str, turn_id, call_id) -> str:
        s = change.state
        if s.pending_proposal_hash is not None:
            raise Refused(
                "ask_user is refused while your proposal waits for the person's decision; "
                "end your turn and wait"
            )
        if self._open_question(change.tx) is not None:
            raise Refused(
                "ask_user is refused: your earlier question is still open; end your turn and "
                "wait for the person's answer"
            )
        content = (
            "Your question is shown to the person. End your turn now; their answer will "
            "arrive as their next message."
        )
        seq = change.emit(
            "question_asked",
            {"question": question, "turn_id": turn_id, "call_id": call_id},
            call_id=call_id,
            result={"is_error": False, "content": content},
        )
        change.add(
            "INSERT_QUESTION",
            {
                "session_id": s.session_id,
                "asked_seq": seq,
                "turn_id": turn_id,
                "question": question,
                "closed_seq": None,
            },
        )
        return content

    def _open_question(self, tx: Tx) -> Question | None:
        row = tx.first("SELECT_OPEN_QUESTION", {"sid": self.session_id})
        if row is None:
            return None
        return models.Question(question=row.question, turn_id=row.turn_id, asked_seq=row.asked_seq)

    def _close_question(self, change: _Change, action: str, message_id: int | None) -> None:
        question = self._open_question(change.tx)
        if question is None:
            return
        seq = change.emit(
            "question_closed",
            {"asked_seq": question.asked_seq, "action": action, "message_id": message_id},
        )
        change.add(
            "CLOSE_QUESTION",
            {"sid": self.session_id, "b_asked_seq": question.asked_seq, "b_closed_seq": seq},
        )

    @_reconnecting
    def open_question(self) -> Question | None:
        """The question the agent asked with ask_user that waits for the person's answer."""
        with self.store.read() as tx:
            return self._open_question(tx)

    @_reconnecting
    def open_question_text(self) -> str | None:
        """The open question's text, read without the models (as the card shows it)."""
        with self.store.read() as tx:
            row = tx.first("SELECT_OPEN_QUESTION", {"sid": self.session_id})
        return row.question if row is not None else None

    @_reconnecting
    def answer(self, text: str, by: Any = None) -> Message:
        """The person's answer to the open question, queued as the person's message."""
        check_person_text("the answer", text)
        by = person(by)
        with self._writing() as change:
            change.by = by
            if self._open_question(change.tx) is None:
                raise DecisionRefused("nothing to answer: the agent has no open question")
            return self._queue(change, "person", text)

    def _store_plan(self, change, name, plan, content, turn_id, call_id, body=None) -> str:
        """Store an accepted plan; returns the result's content (a finished plan it reopens
        says so). `body` is the stored text of the plan's body, when validation made it."""
        s = change.state
        if s.finished_seq is not None:
            # First, so that plan_submit's proposal_submitted still follows its plan_updated.
            s.finished_seq = None
            change.emit("plan_reopened", {"revision": plan["revision"], "name": name})
            content += (
                " This change reopens the finished plan; call finish_plan again once every "
                "step is completed."
            )
        keep_completed_code(change, s.plan, plan)
        s.plan = plan
        s.revision = plan["revision"]
        result = {"is_error": False, "content": content}
        s.plan_seq = change.emit(
            "plan_updated",
            {
                "name": name,
                "call_id": call_id,
                "turn_id": turn_id,
                "plan": plan,
                "result": result,
                "enforcement": ENFORCEMENT,
            },
            call_id=call_id,
            result=result,
            body=body,
        )
        return content

    def _tool_finish_plan(self, change: _Change, items: list[dict], turn_id, call_id) -> str:
        s = change.state
        check_finishable(s.plan)
        review = reviewed(s.plan, items)
        again = " (it replaces the earlier review)" if s.finished_seq is not None else ""
        content = (
            f"The plan is finished at revision {s.revision}: the review of its "
            f"{len(review)} objectives is shown to the person{again}. A later change to the "
            "plan reopens it."
        )
        result = {"is_error": False, "content": content}
        s.finished_seq = change.emit(
            "plan_finished",
            {
                "name": "finish_plan",
                "call_id": call_id,
                "turn_id": turn_id,
                "revision": s.revision,
                "review": review,
                "result": result,
            },
            call_id=call_id,
            result=result,
        )
        return content

    @_reconnecting
    def review(self) -> FinalReview | None:
        """The accepted final review of the current plan; None while the plan is not finished."""
        data = self.review_data()
        return None if data is None else models.FinalReview.model_validate(data)

    @_reconnecting
    def review_data(self) -> dict | None:
        """The final review as JSON data (`revision` and `review`), made without the models."""
        with self.store.read() as tx:
            seq = tx.scalar("SELECT_FINISHED", {"sid": self.session_id})
            if seq is None:
                return None
            data = _loads(tx.scalar("SELECT_EVENT_DATA", {"sid": self.session_id, "seq": seq}))
        return {"revision": data["revision"], "review": data["review"]}

    def _propose(self, change: _Change, digest: str, body: dict, kept: dict | None = None) -> int:
        """Make `body` the waiting proposal; `kept` goes into the event (a bridged agent's whole
        proposal `text`, and what approving it answers the agent). Returns the event's seq."""
        s = change.state
        s.pending_proposal_hash = digest
        data = {"hash": digest, "revision": s.revision, **(kept or {})}
        seq = change.emit("proposal_submitted", data)
        change.add(
            "INSERT_PROPOSAL",
            {
                "session_id": s.session_id,
                "seq": seq,
                "hash": digest,
                "revision": s.revision,
                "body": _dumps(body),
            },
        )
        return seq


def _refused(change: _Change, name: Any, call_id: str | None, content: str) -> ToolResult:
    """A refused call's error result, recorded as its one tool_finished event."""
    result = models.ToolResult(is_error=True, content=content)
    data = {"name": recorded_tool_name(name), "call_id": call_id, "result": result.model_dump()}
    change.emit("tool_finished", data)
    return result
