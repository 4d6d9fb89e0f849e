"""The guard proves itself (DESIGN section 15), in the plan it guards: each guard's heartbeat
(`guard_seen`, not an event) and the hook installs recorded for this plan. The names of the
notebooks a plan file was moved from, by which a hook registered for an old name finds it, are
the following room's (store/following/former.py).

Imported by the coding-agent hook: nothing here loads SQLAlchemy or pydantic.
"""

from __future__ import annotations

import _thread  # threading's lock, without the module (the hook loads this one)
import time

from .. import json_lite
from .keys import INSTALLED_KEY

TYPE_CHECKING = False  # nor typing: the hook starts with the standard library's sqlite3
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

HEARTBEAT_MS = 10_000  # at most one heartbeat write per agent in this time
WRITE_WAIT_SECONDS = 0.2  # a heartbeat waits this long for the write lock, then is skipped


def now_ms() -> int:
    return int(time.time() * 1000)


def clip(text: Any, most: int) -> str | None:
    """An agent's name or version as it is stored: printable, one line, at most `most`."""
    if not isinstance(text, str):
        return None
    words = "".join(c for c in " ".join(text.split()) if c.isprintable())
    return words[:most] or None


def beat_params(agent: str, version: str | None, point: str, at: int) -> dict:
    """GUARD_SEEN_UPSERT's parameters: written unless the agent's row is younger than 10 s.
    A row dated more than 10 s ahead of `at` (a guard host whose clock runs fast) is no
    younger: it is replaced, so a heartbeat from the future does not stand for an hour."""
    return {
        "agent": clip(agent, 80) or "an agent",
        "agent_version": clip(version, 40),
        "point": clip(point, 40) or "guard",
        "at": at,
        "b_since": at - HEARTBEAT_MS,
        "b_until": at + HEARTBEAT_MS,
    }


def fresh(last_at: int, at: int) -> bool:
    """Whether a heartbeat of `last_at` makes another at `at` unneeded (see beat_params)."""
    return at - HEARTBEAT_MS < last_at <= at + HEARTBEAT_MS


def record_seen(tx: Any, agent: str, version: str | None, point: str) -> bool:
    """In a write transaction of a full store: the heartbeat; False when a newer one of the
    same agent made it unneeded."""
    return tx.execute("GUARD_SEEN_UPSERT", beat_params(agent, version, point, now_ms())) > 0


def seen_rows(tx: Any) -> list[dict]:
    """Every guard heard from, newest first: {agent, agent_version, point, at}. A heartbeat
    dated ahead of this process's clock (its guard host's runs fast) says nothing of when it
    was written: it is dated when this process first read it, so its age grows from there
    (never "0 s ago" until the host's time comes), and the next heartbeat replaces it."""
    rows = [row._asdict() for row in tx.all("GUARD_SEEN_ALL")]
    now = now_ms()
    if any(row["at"] > now for row in rows):
        with _first_read_lock:
            for key in [key for key in _first_read if key[1] <= now]:
                del _first_read[key]  # its time has come: it is dated as it says
            for row in rows:
                if row["at"] > now:
                    row["at"] = _first_read.setdefault((row["agent"], row["at"]), now)
        rows.sort(key=lambda row: (-row["at"], row["agent"]))
    return rows


# (agent, the future time a heartbeat says) -> when this process first read it.
_first_read: dict[tuple[str, int], int] = {}
_first_read_lock = _thread.allocate_lock()


def installed(tx: Any) -> list[dict]:
    """The hook installs recorded in the plan: {host, agent, at, file}, one per host, by host."""
    prefix = INSTALLED_KEY.format(host="")
    found = []
    for key, value in sorted(tx.all("SELECT_SETTINGS_LIKE", {"pattern": prefix + "%"})):
        if not key.startswith(prefix):
            continue  # LIKE's `_` stands for any character
        try:
            record = json_lite.loads(value) if value else None
        except ValueError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("at"), int):
            host = key[len(prefix) :]
            agent = clip(record.get("agent"), 80) or host
            file = clip(record.get("file"), 1000)
            found.append({"host": host, "agent": agent, "at": record["at"], "file": file})
    return found


def record_install(tx: Any, host: str, agent: str, file: Path) -> None:
    """In a write transaction: the hooks of `host` (the agent `agent`) were installed for this
    plan, in `file`."""
    value = json_lite.dumps({"agent": agent, "at": now_ms(), "file": str(file)})
    tx.execute("UPSERT_SETTING", {"key": INSTALLED_KEY.format(host=host), "value": value})
