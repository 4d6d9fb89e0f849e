"""The tables of a plan store as SQLAlchemy sees them, for the statements (statements.py): the
tables the migrations make (migrations.py), which a test holds them to."""

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    text,
)

from .driver_errors import CALL_INDEX

metadata = MetaData()

schema_version = Table(
    "plans_schema_version",
    metadata,
    Column("version", Integer, nullable=False),
)

# Store-wide settings, such as which session a notebook currently works in.
settings = Table(
    "plans_settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

# The current state of each session: a cache of the fold of its events, written in the same
# transaction as the events, so reading a snapshot never replays history. The plan itself is
# not copied here: plan_seq points at the plan_updated event that holds it.
sessions = Table(
    "plans_sessions",
    metadata,
    Column("session_id", String(200), primary_key=True),
    Column("cursor", Integer, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("pending_proposal_hash", String(64)),
    Column("approved_proposal_hash", String(64)),
    Column("plan_seq", Integer),
    Column("newest_turn_id", Text),
    Column("newest_turn_ordinal", Integer, nullable=False),
    Column("newest_turn_cancelled", Boolean, nullable=False),
    Column("created_at", String(40), nullable=False),
    # The plan_finished event whose review finished the current plan (schema version 3);
    # null while the plan is not finished. Any later change to the plan clears it.
    Column("finished_seq", Integer),
    # The last agent_status event of a bridged agent (schema version 9): the snapshot's
    # agent_mode and what the card says of the agent; null until a bridge recorded one.
    Column("agent_seq", Integer),
    # When the session's notebook was deleted through Jupyter (schema version 10): its rows
    # stay, hidden from the listing of sessions; null while it is not deleted.
    Column("deleted_at", String(40)),
)

# Append-only history. call_id is set only on the event of an accepted tool call, so that a
# retry finds its recorded result; refused calls leave it null and may be retried.
events = Table(
    "plans_events",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("data", Text, nullable=False),
    Column("at", BigInteger, nullable=False),  # milliseconds since the epoch, UTC
    Column("call_id", Text),
    Column("result", Text),
    # With call_id: the SHA-256 of the call's tool name and arguments (schema version 5), so
    # that a repeat of the id with another call is refused instead of answered as this one.
    Column("call_digest", Text),
    PrimaryKeyConstraint("session_id", "seq"),
    # Only calls that came with an id can be retried under it; the rest add no index entry.
    Index(
        CALL_INDEX,  # a write that breaks it is CallIdTaken (driver_errors.py)
        "session_id",
        "call_id",
        unique=True,
        sqlite_where=text("call_id IS NOT NULL"),
        postgresql_where=text("call_id IS NOT NULL"),
    ),
)

proposals = Table(
    "plans_proposals",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("hash", String(64), nullable=False),
    Column("revision", Integer, nullable=False),
    Column("body", Text, nullable=False),
    PrimaryKeyConstraint("session_id", "seq"),
)

decisions = Table(
    "plans_decisions",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("title", Text, nullable=False),
    Column("rationale", Text, nullable=False),
    Column("sources", Text, nullable=False),
    PrimaryKeyConstraint("session_id", "seq"),
)

turns = Table(
    "plans_turns",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("turn_id", Text, nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("cancelled", Boolean, nullable=False),
    PrimaryKeyConstraint("session_id", "turn_id"),
)

# The durable queue of messages for the agent. delivered_seq is the seq of the
# message_delivered event, null while the message waits.
messages = Table(
    "plans_messages",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("message_id", Integer, nullable=False),
    Column("source", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("queued_seq", Integer, nullable=False),
    Column("delivered_seq", Integer),
    PrimaryKeyConstraint("session_id", "message_id"),
)

# Questions the agent asked the person with ask_user (schema version 2). A question is open
# until closed_seq is set: by the person's next message (answered) or by leaving plan mode.
questions = Table(
    "plans_questions",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("asked_seq", Integer, nullable=False),
    Column("turn_id", Text),
    Column("question", Text, nullable=False),
    Column("closed_seq", Integer),
    PrimaryKeyConstraint("session_id", "asked_seq"),
)

# The cursor of the newest card a notebook showed of a session (schema version 3): what the
# person has seen, so a restarted kernel can say what happened since.
seen = Table(
    "plans_seen",
    metadata,
    Column("notebook", String(500), nullable=False),
    Column("session_id", String(200), nullable=False),
    Column("cursor", Integer, nullable=False),
    PrimaryKeyConstraint("notebook", "session_id"),
)

# The cells that did each step (schema version 6): per step, the latest run of each cell, as
# the cell_ran events say (DESIGN section 13). baseline_sha256 is the code of the cell's latest
# run when its step was last marked completed, null while the step is not completed: a later
# run with other code is "changed after completion".
cells = Table(
    "plans_cells",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("step_id", String(64), nullable=False),
    Column("cell_id", String(128), nullable=False),
    Column("seq", Integer, nullable=False),  # the cell_ran event of the latest run
    Column("execution_count", Integer),
    Column("ok", Boolean, nullable=False),
    Column("code_sha256", String(64), nullable=False),
    Column("baseline_sha256", String(64)),
    PrimaryKeyConstraint("session_id", "step_id", "cell_id"),
)

# The guard's heartbeat (schema version 7, DESIGN section 15): per agent, the last time one of
# its guards ran on this plan (a hook, the ACP bridge's guard), written at most once in 10 s.
# Not an event: it changes no revision and no cursor. `at` is milliseconds since the epoch.
guard_seen = Table(
    "guard_seen",
    metadata,
    Column("agent", String(80), primary_key=True),
    Column("agent_version", String(40)),
    Column("point", String(40), nullable=False),
    Column("at", BigInteger, nullable=False),
)

# The person's comments on the plan (schema version 8): each comment's state as its events
# leave it (DESIGN section 14), so a snapshot reads them without folding. `by` is its JSON;
# status_seq is the event of its last change of status (the most recently resolved are kept
# in the snapshot), opened_seq the event that last made it open (added, or reopened).
comments = Table(
    "plans_comments",
    metadata,
    Column("session_id", String(200), nullable=False),
    Column("number", Integer, nullable=False),  # comment c<number>
    Column("step_id", String(64)),  # null: the plan as a whole
    Column("anchor", Text),
    Column("text", Text, nullable=False),
    Column("by", Text),
    Column("status", String(16), nullable=False),
    Column("reply", Text),
    Column("status_seq", Integer, nullable=False),
    Column("opened_seq", Integer, nullable=False),
    PrimaryKeyConstraint("session_id", "number"),
    # How many are not resolved (a new comment checks it), and the most recently resolved
    # (the snapshot's), each read from this index alone however many were resolved before.
    Index("plans_comments_status", "session_id", "status", "status_seq"),
)

# Sessions renamed with their notebook in a shared database (schema version 10, DESIGN section
# 16): a store's session object that knew `old_id` (born `old_born`, the row's created_at; null
# where there was no row yet) takes `new_id` when it next meets the old id missing or reborn.
# `notebook` is the renamed notebook's path on the server's machine, when it was known.
session_moves = Table(
    "plans_session_moves",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("old_id", String(200), nullable=False),
    Column("old_born", String(40)),
    Column("new_id", String(200), nullable=False),
    Column("notebook", Text),
    Column("at", BigInteger, nullable=False),  # milliseconds since the epoch, UTC
    Index("plans_session_moves_old", "old_id", "seq"),
)
