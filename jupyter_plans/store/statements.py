"""The SQL of the store, as SQLAlchemy Core statements, named.

Code refers to a statement by its name (`tx.first("SELECT_HEAD", ...)`); the store compiles
each one once per dialect. For SQLite the compiled forms ship with the package
(`sqlite_statements.json`, written by `python -m jupyter_plans.store.compiled`, and checked
against SQLAlchemy by the tests), so opening a plan file and working in it does not import
SQLAlchemy at all; it is imported when a migration runs, for PostgreSQL, or when a statement
is missing from the file.

A name maps to a statement, or to a function of the dialect's `insert` for the statements
that differ by dialect (upserts).
"""

from __future__ import annotations

import sys

from sqlalchemy import and_, bindparam, func, insert, null, or_, select, update

from ..plan.checks import CHECK_KINDS as _CHECK_KINDS
from .comment_statements import (  # noqa: F401 - named statements, read through this module
    ADDRESS_COMMENT,
    COMMENT_COUNTS,
    INSERT_COMMENT,
    REOPEN_COMMENT,
    SELECT_ALL_COMMENTS,
    SELECT_COMMENT,
    SELECT_COMMENTS_OPENED_AFTER,
    SELECT_RESOLVED_COMMENTS,
    SELECT_UNRESOLVED_COMMENTS,
    SET_COMMENT_STATUS,
)
from .keys import CURRENT_KEY
from .move_statements import (  # noqa: F401 - named statements, read through this module
    DELETE_LEFT_BEHIND,
    DELETE_NOT_COPIED,
    INSERT_SESSION_MOVE,
    LIST_DELETED_SESSIONS,
    LOCK_SESSION,
    MARK_SESSION_DELETED,
    RENAME_CURRENT,
    RENAME_SEEN_NOTEBOOK,
    RENAME_SEEN_NOTEBOOK_ALL,
    SELECT_MOVE_SETTINGS,
)
from .schema import (
    cells,
    decisions,
    events,
    guard_seen,
    messages,
    proposals,
    questions,
    seen,
    session_moves,
    sessions,
    settings,
    turns,
)

_SID = bindparam("sid")

SELECT_CURRENT = select(settings.c.value).where(settings.c.key == CURRENT_KEY)
SELECT_SETTING = select(settings.c.value).where(settings.c.key == bindparam("key"))
# The settings whose key is LIKE `pattern` (the hook installs: `guard_installed:%`).
SELECT_SETTINGS_LIKE = select(settings.c.key, settings.c.value).where(
    settings.c.key.like(bindparam("pattern"))
)
SELECT_SESSIONS = (
    select(
        sessions.c.session_id,
        sessions.c.cursor,
        sessions.c.mode,
        sessions.c.revision,
        sessions.c.pending_proposal_hash,
        sessions.c.created_at,
        sessions.c.plan_seq,
    )
    .where(sessions.c.deleted_at.is_(None))
    .order_by(sessions.c.created_at, sessions.c.session_id)
)
# Each session's first words from the person (its task, as a rule), cut to what a label holds.
_first = messages.alias("first")
SELECT_FIRST_TASKS = select(messages.c.session_id, func.substr(messages.c.text, 1, 200)).where(
    messages.c.source == "person",
    messages.c.message_id
    == select(func.min(_first.c.message_id))
    .where(_first.c.session_id == messages.c.session_id, _first.c.source == "person")
    .scalar_subquery(),
)

SELECT_ONE_SESSION = SELECT_SESSIONS.where(sessions.c.session_id == _SID)
SELECT_FIRST_TASK = SELECT_FIRST_TASKS.where(messages.c.session_id == _SID)

# The session's statements (session/).
_RECORDED_CALL = (events.c.session_id == _SID, events.c.call_id == bindparam("call_id"))
SELECT_RECORDED = select(events.c.result, events.c.call_digest).where(*_RECORDED_CALL)
# A call recorded before schema 5 has no digest: its event tells what it was.
SELECT_RECORDED_EVENT = select(events.c.kind, events.c.data).where(*_RECORDED_CALL)
_RECORDED = select(events.c.result).where(*_RECORDED_CALL).scalar_subquery()
_RECORDED_DIGEST = select(events.c.call_digest).where(*_RECORDED_CALL).scalar_subquery()
SELECT_STATE = (
    select(sessions, _RECORDED.label("recorded"), _RECORDED_DIGEST.label("recorded_digest"))
    .where(sessions.c.session_id == _SID)
    .with_for_update(of=sessions)
)
SELECT_STATE_ONLY = (
    select(sessions, null().label("recorded"), null().label("recorded_digest"))
    .where(sessions.c.session_id == _SID)
    .with_for_update(of=sessions)
)
SELECT_ROW = select(sessions).where(sessions.c.session_id == _SID)
SELECT_EVENT_DATA = select(events.c.data).where(
    events.c.session_id == _SID, events.c.seq == bindparam("seq")
)
SELECT_EVENT_CHECK = select(events.c.kind, events.c.data, events.c.at).where(
    events.c.session_id == _SID, events.c.seq == bindparam("seq")
)
SELECT_HEAD = select(
    sessions.c.cursor, sessions.c.pending_proposal_hash, sessions.c.created_at
).where(sessions.c.session_id == _SID)
SELECT_FINISHED = select(sessions.c.finished_seq).where(sessions.c.session_id == _SID)
UPDATE_STATE = (
    update(sessions)
    .where(sessions.c.session_id == _SID, sessions.c.cursor == bindparam("loaded_cursor"))
    .values(
        cursor=bindparam("b_cursor"),
        revision=bindparam("b_revision"),
        mode=bindparam("b_mode"),
        pending_proposal_hash=bindparam("b_pending"),
        approved_proposal_hash=bindparam("b_approved"),
        plan_seq=bindparam("b_plan_seq"),
        newest_turn_id=bindparam("b_turn_id"),
        newest_turn_ordinal=bindparam("b_turn_ordinal"),
        newest_turn_cancelled=bindparam("b_turn_cancelled"),
        finished_seq=bindparam("b_finished_seq"),
        agent_seq=bindparam("b_agent_seq"),
        deleted_at=null(),  # a session written to is its notebook's again
    )
)
INSERT_EVENT = insert(events)
INSERT_TURN = insert(turns)
INSERT_DECISION = insert(decisions)
INSERT_PROPOSAL = insert(proposals)
INSERT_MESSAGE = insert(messages)
SELECT_EVENTS = (
    select(events.c.seq, events.c.kind, events.c.data, events.c.at)
    .where(events.c.session_id == _SID, events.c.seq > bindparam("after"))
    .order_by(events.c.seq)
)
SELECT_EVENTS_PAGE = SELECT_EVENTS.limit(bindparam("limit"))
# What the steps' checks are folded from (plan/checks.py), up to a seq.
SELECT_CHECK_EVENTS = SELECT_EVENTS.where(
    events.c.seq <= bindparam("upto"), or_(*(events.c.kind == k for k in _CHECK_KINDS))
)
SELECT_DECISIONS = (
    select(decisions.c.title, decisions.c.rationale, decisions.c.sources)
    .where(decisions.c.session_id == _SID)
    .order_by(decisions.c.seq)
)
SELECT_TURN = select(turns.c.ordinal, turns.c.cancelled).where(
    turns.c.session_id == _SID, turns.c.turn_id == bindparam("turn_id")
)
CANCEL_TURN = (
    update(turns)
    .where(turns.c.session_id == _SID, turns.c.turn_id == bindparam("b_turn_id"))
    .values(cancelled=True)
)
SELECT_WAITING = (
    select(messages.c.message_id, messages.c.source, messages.c.text)
    .where(messages.c.session_id == _SID, messages.c.delivered_seq.is_(None))
    .order_by(messages.c.message_id)
)
NEXT_MESSAGE_ID = select(func.coalesce(func.max(messages.c.message_id), 0) + 1).where(
    messages.c.session_id == _SID
)
MARK_DELIVERED = (
    update(messages)
    .where(messages.c.session_id == _SID, messages.c.message_id == bindparam("b_message_id"))
    .values(delivered_seq=bindparam("b_seq"))
)
SELECT_LAST_TWO_PROPOSALS = (
    select(proposals.c.hash, proposals.c.revision, proposals.c.body)
    .where(proposals.c.session_id == _SID)
    .order_by(proposals.c.seq.desc())
    .limit(2)
)
# The person's last verdict, or the proposal after it: what the card's notes depend on.
SELECT_LAST_VERDICT = (
    select(events.c.seq, events.c.kind, events.c.data)
    .where(
        events.c.session_id == _SID,
        or_(events.c.kind == "decision", events.c.kind == "proposal_submitted"),
    )
    .order_by(events.c.seq.desc())
    .limit(2)  # the last word, and the one before it (what a re-proposal answers)
)
SELECT_LAST_UNGUARDED = (
    select(events.c.data)
    .where(events.c.session_id == _SID, events.c.kind == "agent_unguarded")
    .order_by(events.c.seq.desc())
    .limit(2)  # the last word, and the one before it (what a re-proposal answers)
)
# The newest events, newest first (what the card reads of the agent's work in plan mode).
SELECT_RECENT_EVENTS = (
    select(events.c.kind, events.c.data)
    .where(events.c.session_id == _SID)
    .order_by(events.c.seq.desc())
    .limit(bindparam("limit"))
)
SELECT_PERSON_MESSAGE_AFTER = (
    select(messages.c.text)
    .where(
        messages.c.session_id == _SID,
        messages.c.source == "person",
        messages.c.queued_seq > bindparam("after"),
    )
    .order_by(messages.c.queued_seq)
    .limit(1)
)
INSERT_QUESTION = insert(questions)
SELECT_OPEN_QUESTION = (
    select(questions.c.asked_seq, questions.c.turn_id, questions.c.question)
    .where(questions.c.session_id == _SID, questions.c.closed_seq.is_(None))
    .order_by(questions.c.asked_seq.desc())
    .limit(1)
)
CLOSE_QUESTION = (
    update(questions)
    .where(questions.c.session_id == _SID, questions.c.asked_seq == bindparam("b_asked_seq"))
    .values(closed_seq=bindparam("b_closed_seq"))
)
PROPOSAL_KNOWN = select(proposals.c.seq).where(
    and_(proposals.c.session_id == _SID, proposals.c.hash == bindparam("hash"))
)


# What each notebook last showed of a session (notebook/resume.py).
_SEEN = (seen.c.notebook == bindparam("notebook"), seen.c.session_id == _SID)
SEEN_SELECT = select(seen.c.cursor).where(*_SEEN)
SEEN_RAISE = (
    update(seen)
    .where(*_SEEN, seen.c.cursor < bindparam("b_cursor"))
    .values(cursor=bindparam("b_cursor"))
)
SEEN_INSERT = insert(seen).values(
    notebook=bindparam("notebook"), session_id=_SID, cursor=bindparam("b_cursor")
)


def INSERT_SESSION(insert):  # noqa: N802 - named like the statements
    return (
        insert(sessions)
        .values(
            session_id=_SID,
            cursor=0,
            revision=0,
            mode="default",
            newest_turn_ordinal=0,
            newest_turn_cancelled=False,
            created_at=bindparam("created_at"),
        )
        .on_conflict_do_nothing(index_elements=[sessions.c.session_id])
    )


def UPSERT_CURRENT(insert):  # noqa: N802
    return (
        insert(settings)
        .values(key=CURRENT_KEY, value=bindparam("value"))
        .on_conflict_do_update(index_elements=[settings.c.key], set_={"value": bindparam("value")})
    )


def UPSERT_SETTING(insert):  # noqa: N802
    return (
        insert(settings)
        .values(key=bindparam("key"), value=bindparam("value"))
        .on_conflict_do_update(index_elements=[settings.c.key], set_={"value": bindparam("value")})
    )


# The cells that did each step (session/cells.py).
_CELLS_OF = cells.c.session_id == _SID
SELECT_CELLS = (
    select(
        cells.c.step_id,
        cells.c.cell_id,
        cells.c.execution_count,
        cells.c.ok,
        cells.c.code_sha256,
        cells.c.baseline_sha256,
    )
    .where(_CELLS_OF)
    .order_by(cells.c.seq)
)
SELECT_CELL_STEPS = select(cells.c.step_id, cells.c.code_sha256, cells.c.baseline_sha256).where(
    _CELLS_OF, cells.c.cell_id == bindparam("cell_id")
)
_OF_STEP = (_CELLS_OF, cells.c.step_id == bindparam("step_id"))
SET_CELL_BASELINES = update(cells).where(*_OF_STEP).values(baseline_sha256=cells.c.code_sha256)
CLEAR_CELL_BASELINES = update(cells).where(*_OF_STEP).values(baseline_sha256=null())


def UPSERT_CELL(insert):  # noqa: N802
    ran = {
        "seq": bindparam("seq"),
        "execution_count": bindparam("execution_count"),
        "ok": bindparam("ok"),
        "code_sha256": bindparam("code_sha256"),
    }
    return (
        insert(cells)
        .values(session_id=_SID, step_id=bindparam("step_id"), cell_id=bindparam("cell_id"), **ran)
        .on_conflict_do_update(
            index_elements=[cells.c.session_id, cells.c.step_id, cells.c.cell_id], set_=ran
        )
    )


# The guard's heartbeat (store/guards.py): not an event, so no cursor moves with it.
GUARD_SEEN_ALL = select(
    guard_seen.c.agent, guard_seen.c.agent_version, guard_seen.c.point, guard_seen.c.at
).order_by(guard_seen.c.at.desc(), guard_seen.c.agent)
GUARD_SEEN_AT = select(guard_seen.c.at).where(guard_seen.c.agent == bindparam("agent"))
# When plan mode began: the session's last change of mode (it is in plan mode when asked).
SELECT_MODE_SINCE = (
    select(events.c.at)
    .where(events.c.session_id == _SID, events.c.kind == "mode_changed")
    .order_by(events.c.seq.desc())
    .limit(1)
)


def GUARD_SEEN_UPSERT(insert):  # noqa: N802
    """The heartbeat, unless one of the same agent is newer than `b_since` (at most one write
    per agent in 10 s, whichever process writes it)."""
    beat = insert(guard_seen).values(
        agent=bindparam("agent"),
        agent_version=bindparam("agent_version"),
        point=bindparam("point"),
        at=bindparam("at"),
    )
    return beat.on_conflict_do_update(
        index_elements=[guard_seen.c.agent],
        set_={
            "agent_version": beat.excluded.agent_version,
            "point": beat.excluded.point,
            "at": beat.excluded.at,
        },
        # Older than 10 s, or dated more than 10 s ahead (a guard host's clock ran fast).
        where=(guard_seen.c.at <= bindparam("b_since")) | (guard_seen.c.at > bindparam("b_until")),
    )


# The moves of sessions renamed with their notebooks (store/session_moves.py).
FIND_MOVE = (
    select(
        session_moves.c.seq,
        session_moves.c.old_born,
        session_moves.c.new_id,
        session_moves.c.notebook,
    )
    .where(
        session_moves.c.old_id == _SID,
        session_moves.c.seq > bindparam("after"),
        session_moves.c.at >= bindparam("since"),
    )
    .order_by(session_moves.c.seq)
)


def names() -> list[str]:
    module = sys.modules[__name__]
    skip = ("CURRENT_KEY",)
    return sorted(n for n in vars(module) if n.isupper() and n[0] != "_" and n not in skip)


def build(name: str, dialect_name: str):
    """The statement called `name`, for the dialect (the upserts differ by dialect)."""
    found = globals()[name]
    if callable(found) and not hasattr(found, "compile"):
        if dialect_name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert
        else:
            from sqlalchemy.dialects.postgresql import insert
        return found(insert)
    return found
