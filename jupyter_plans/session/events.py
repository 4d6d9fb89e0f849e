"""A session's events as stored and as shown: their JSON, their time, the person's acts among
them, and what a plan's or a bridged agent's event holds, read back."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, NamedTuple

from ..lazy import LazyModule
from ..plan.stored import USER_EDIT, decode_plan_event
from ..plan.who import PERSON_KINDS

if TYPE_CHECKING:
    from ..store.transaction import Tx

# The models load with the first call that returns one: showing the card needs none.
models = LazyModule("jupyter_plans.plan.models")


# Compact, non-ASCII kept: the bytes pydantic-core wrote for the same data, with the standard
# library, so reading and the person's verbs load no pydantic-core.
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
loads = json.loads


def decode_event(kind: str, text: str) -> dict:
    if kind == "plan_updated":
        return decode_plan_event(text)
    data = loads(text)
    if kind in PERSON_KINDS and "by" not in data:
        # A person's act written before who decided was kept.
        if kind != "message_queued" or data.get("source") == "person":
            data["by"] = None
    return data


def by_person(kind: str, data: dict) -> bool:
    """Whether an event of this change is the person's act (the change's `by` goes with it)."""
    if kind == "message_queued":
        return data.get("source") == "person"
    if kind == "plan_updated":
        return data.get("name") == USER_EDIT
    return kind in PERSON_KINDS


class EventData(NamedTuple):
    """An event as plain data: what `events()` returns as models."""

    seq: int
    kind: str
    data: dict
    at: str  # UTC, ISO 8601


def iso(ms: int) -> str:
    """Milliseconds since the epoch as UTC ISO 8601, as events show their time."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def plan_at(tx: Tx, store: Any, session_id: str, plan_seq: int | None) -> dict | None:
    """The plan stored in event `plan_seq`, parsed once per process and then shared (through
    the store's plan_cache). Events never change, so a plan parsed once stays right; callers
    must not mutate it."""
    if plan_seq is None:
        return None
    cached = store.plan_cache.get(session_id)
    if cached is not None and cached[0] == plan_seq:
        return cached[1]
    data = tx.scalar("SELECT_EVENT_DATA", {"sid": session_id, "seq": plan_seq})
    plan = decode_plan_event(data)["plan"]
    store.plan_cache[session_id] = (plan_seq, plan)
    return plan


def agent_at(tx: Tx, session_id: str, agent_seq: int | None) -> dict | None:
    """The bridged agent's status stored in event `agent_seq` (bridged.py)."""
    if agent_seq is None:
        return None
    data = tx.scalar("SELECT_EVENT_DATA", {"sid": session_id, "seq": agent_seq})
    return None if data is None else loads(data)
