"""A session's reads, the base every operation on it builds on: its snapshot, its events a page
at a time, its head and its queue, what a card shows beside the snapshot, and the write
transaction its operations change it in. A card reads through these alone, so showing one
loads none of the modules that write (plan_session.py)."""

from __future__ import annotations

import json
import re
import time
import weakref
from typing import TYPE_CHECKING, Any, Self

from ..plan.cells import cells_view
from ..plan.intake import check_session_id
from ..plan.revision import diff_steps
from ..store.transaction import reconnecting as _reconnecting
from .check_rows import checks_view
from .comment_rows import shown_comments
from .events import EventData, agent_at, decode_event, iso, loads, models, plan_at

MAX_HOPS = 8  # ids taken in one read, at most (each may follow several moves)

if TYPE_CHECKING:
    from ..plan.models import Event, Message, Snapshot
    from ..store import Store
    from .transaction import Writing

# What this process has shown the person of each store's sessions: the hash of the waiting
# proposal that a card last displayed. A bare `%plan approve` binds that, never whatever is
# waiting by the time it commits.
_shown: weakref.WeakKeyDictionary[Store, dict[str, str]] = weakref.WeakKeyDictionary()
_HASH = re.compile("[0-9a-f]{64}")


class SessionReads:
    """One durable plan, read; `writing()` is the transaction its operations change it in."""

    def __init__(self, store: Store, session_id: str) -> None:
        check_session_id(session_id)
        self.store = store
        self.session_id = session_id
        # The created_at of the row this object knows (None until it has seen one), and when
        # it was made: what tells it that its session was renamed with its notebook (moved).
        self.born: str | None = None
        self.made_ms = int(time.time() * 1000)
        self.moved_notebook: str | None = None  # the notebook it was renamed with, if known

    @classmethod
    def of(cls, store: Any, session_id: str | None = None) -> Self:
        """The session named `session_id` in `store`, or the store's current one."""
        return cls(store, store.current_session_id() if session_id is None else session_id)

    def __repr__(self) -> str:
        return f"<PlanSession {self.session_id!r} in {self.store!r}>"

    def writing(self, call_id: str | None = None, look_later: bool = False) -> Writing:
        """For the session's operations: the session's state under the write lock, as a
        `Change`; what the block emits and adds commits with it, and nothing if it raises.

        With a `call_id`, the result recorded for an accepted call of that id comes too
        (`look_later`: see tools.py, run_call).
        """
        from .transaction import Writing  # with the first write: reading needs none of it

        return Writing(self, call_id, look_later)

    def moved(self, tx: Any, row: Any, asked: str, writing: bool = False) -> bool:
        """Whether the session took another id since this object last read its row: `row`
        (the row of `asked`, as just read, or None) is missing or was born at another time,
        and a move of this session names its new id (store/moves.py). Then this object takes
        the new id, and the caller reads again (as it does when another thread of this object
        took it first). Writing, a session never seen follows a move made since this object
        was made, so that its first write does not land under the old id."""
        if asked != self.session_id:
            return True
        if row is not None and (self.born is None or row.created_at == self.born):
            self.born = row.created_at
            return False
        if row is None and self.born is None and not writing:
            return False
        from ..store.following.moves import find_move

        new, notebook = find_move(tx, asked, self.born, self.made_ms)
        if new == asked:
            if row is not None:
                self.born = row.created_at  # reborn without a move: it is this id's row now
            return False
        self.session_id, self.moved_notebook = new, notebook or self.moved_notebook
        return True

    def _row(self, tx: Any, statement: str) -> Any:
        """The session's row by `statement`, its id followed where it moved."""
        for _hop in range(MAX_HOPS):
            asked = self.session_id
            row = tx.first(statement, {"sid": asked})
            if not self.moved(tx, row, asked):
                break
        return row

    # Reading.

    @_reconnecting
    def snapshot(self) -> Snapshot:
        return models.Snapshot.model_validate(self.snapshot_data())

    @_reconnecting
    def snapshot_data(self) -> dict[str, Any]:
        """The snapshot as JSON data, made without the models (the card shows this form).

        It shares the stored plan with this process's cache: do not change it.
        """
        with self.store.read() as tx:
            row = self._row(tx, "SELECT_ROW")
            decided = tx.all("SELECT_DECISIONS", {"sid": self.session_id})
            ran = tx.all("SELECT_CELLS", {"sid": self.session_id}) if row is not None else ()
            plan = (
                plan_at(tx, self.store, self.session_id, row.plan_seq) if row is not None else None
            )
            comments = shown_comments(tx, self.session_id) if row is not None else []
            agent = agent_at(tx, self.session_id, row.agent_seq) if row is not None else None
            checks = checks_view(tx, self.store, row, plan) if row is not None else {}
        return {
            "session_id": self.session_id,
            "cursor": row.cursor if row is not None else 0,
            "mode": row.mode if row is not None else "default",
            "pending_proposal_hash": row.pending_proposal_hash if row is not None else None,
            "approved_proposal_hash": row.approved_proposal_hash if row is not None else None,
            "plan": plan,
            "decisions": [
                {
                    "title": d.title,
                    "rationale": d.rationale,
                    "sources": loads(d.sources),
                    "by": None,
                }
                for d in decided
            ],
            "cells": cells_view(ran),
            "comments": comments,
            "checks": checks,
            "agent_mode": None if agent is None else agent.get("mode"),
        }

    @_reconnecting
    def events(self, after: int = 0) -> list[Event]:
        return [models.Event(**event._asdict()) for event in self.event_data(after)]

    @_reconnecting
    def event_data(self, after: int = 0) -> list[EventData]:
        """The events after `after` as plain tuples (seq, kind, data, at), made without the
        models: what %load_ext tells about the time since the notebook last looked."""
        with self.store.read() as tx:
            rows = tx.all("SELECT_EVENTS", {"sid": self.session_id, "after": after})
        return [EventData(r.seq, r.kind, decode_event(r.kind, r.data), iso(r.at)) for r in rows]

    @_reconnecting
    def event_page(self, after: int = 0, limit: int = 1000) -> tuple[list[EventData], bool]:
        """At most `limit` events after `after`, and whether more follow them: how a long
        history is read a page at a time (the server's routes and streams)."""
        with self.store.read() as tx:
            rows = tx.all(
                "SELECT_EVENTS_PAGE", {"sid": self.session_id, "after": after, "limit": limit + 1}
            )
        page = [EventData(r.seq, r.kind, decode_event(r.kind, r.data), iso(r.at)) for r in rows]
        return page[:limit], len(page) > limit

    @_reconnecting
    def exists(self) -> bool:
        """Whether the session has a row: something was ever written to it."""
        with self.store.read() as tx:
            return self._row(tx, "SELECT_HEAD") is not None

    @_reconnecting
    def cursor(self) -> int:
        """The seq of the newest event; cheap enough to poll."""
        with self.store.read() as tx:
            row = self._row(tx, "SELECT_HEAD")
        return row.cursor if row is not None else 0

    @_reconnecting
    def head(self) -> tuple[int, str | None]:
        """The seq of the newest event and the waiting proposal's hash, in one cheap read."""
        with self.store.read() as tx:
            row = self._row(tx, "SELECT_HEAD")
        return (0, None) if row is None else (row.cursor, row.pending_proposal_hash)

    @_reconnecting
    def waiting_proposal(self) -> str | None:
        """The hash of the proposal waiting for a decision; as cheap as cursor()."""
        with self.store.read() as tx:
            row = self._row(tx, "SELECT_HEAD")
        return row.pending_proposal_hash if row is not None else None

    @_reconnecting
    def waiting_messages(self) -> list[Message]:
        """The queue as it stands, oldest first, whether or not it may be delivered now."""
        with self.store.read() as tx:
            rows = tx.all("SELECT_WAITING", {"sid": self.session_id})
        return [models.Message(message_id=r.message_id, source=r.source, text=r.text) for r in rows]

    @_reconnecting
    def proposal_changes(self) -> dict | None:
        """What the waiting proposal changed since the one before it: added, removed, reworded
        and reordered steps, and `since_revision`, the revision of the one before.

        None when no proposal waits or it is the first.
        """
        with self.store.read() as tx:
            row = self._row(tx, "SELECT_HEAD")
            if row is None or row.pending_proposal_hash is None:
                return None
            found = tx.all("SELECT_LAST_TWO_PROPOSALS", {"sid": self.session_id})
        if len(found) < 2:
            return None
        new, old = (loads(r.body) for r in found)
        return {
            "since_revision": found[1].revision,
            **diff_steps(_body_steps(old), _body_steps(new)),
        }

    # What a card shows beside the snapshot, read without the models.

    @_reconnecting
    def open_question_text(self) -> str | None:
        """The text of the question the agent asked with ask_user, while it waits for the
        person's answer."""
        with self.store.read() as tx:
            row = tx.first("SELECT_OPEN_QUESTION", {"sid": self.session_id})
        return row.question if row is not None else None

    @_reconnecting
    def review_data(self) -> dict | None:
        """The accepted final review as JSON data (`revision` and `review`); None while the
        plan is not finished."""
        with self.store.read() as tx:
            seq = tx.scalar("SELECT_FINISHED", {"sid": self.session_id})
            if seq is None:
                return None
            data = loads(tx.scalar("SELECT_EVENT_DATA", {"sid": self.session_id, "seq": seq}))
        return {"revision": data["revision"], "review": data["review"]}

    def revise_notes(self) -> str | None:
        """The notes of the person's last request for changes, until the agent's next proposal
        (the card keeps them in view while the agent works on them)."""
        return self.last_verdict()["notes"]

    def last_verdict(self) -> dict:
        """What the card says of the last word on a proposal, in one read: `notes`, those of
        the person's request for changes (revise_notes), while the agent works on them and
        while the proposal that answers them waits; `approved_by`, who approved it and where,
        while that approval is the last word (DESIGN section 12)."""
        said: dict = {"notes": None, "approved_by": None, "bridged": None}
        with self.store.read() as tx:
            words = tx.all("SELECT_LAST_VERDICT", {"sid": self.session_id})
            if words and words[0].kind == "proposal_submitted":
                proposed = loads(words[0].data)
                if "text" in proposed:  # an ACP agent's, through the bridge
                    said["bridged"] = {"approve": proposed.get("approve")}
                words = words[1:]  # a proposal waits: the word it answers, if any
            last = words[0] if words else None
            if last is None or last.kind != "decision":
                return said
            data = loads(last.data)
            if data.get("action") == "approved":
                said["approved_by"] = data.get("by")
            elif data.get("action") == "changes_requested":
                said["notes"] = tx.scalar(
                    "SELECT_PERSON_MESSAGE_AFTER", {"sid": self.session_id, "after": last.seq}
                )
        return said

    @_reconnecting
    def agent_status(self) -> dict | None:
        """The bridged agent's last status (bridged.py's record_agent_status), None when none
        was kept."""
        with self.store.read() as tx:
            row = tx.first("SELECT_ROW", {"sid": self.session_id})
            return None if row is None else agent_at(tx, self.session_id, row.agent_seq)

    def unguarded_text(self) -> str | None:
        """What the last bridged agent without a guard was told to the person, if one was."""
        with self.store.read() as tx:
            data = tx.scalar("SELECT_LAST_UNGUARDED", {"sid": self.session_id})
        return None if data is None else json.loads(data).get("text")

    # What this process has shown the person.

    def mark_shown(self, digest: Any) -> None:
        """Record that this process showed the person the proposal of hash `digest` (a card
        displayed it); anything but a full hash is ignored."""
        if isinstance(digest, str) and _HASH.fullmatch(digest):
            _shown.setdefault(self.store, {})[self.session_id] = digest

    def shown_proposal(self) -> str | None:
        """The hash of the proposal a card of this process last showed, if any."""
        return _shown.get(self.store, {}).get(self.session_id)


def _body_steps(body: dict) -> list[dict]:
    return [step for phase in body["phases"] for step in phase["steps"]]
