"""What the card says of the guards (DESIGN section 15): the one warning (a host that would not
run this plan's guard hook, or a bridged agent that approves its own edits), the guards heard
from and those silent since plan mode began, and what the sessions route tells the panel of
them. The heartbeats and install records themselves are the store's (`store/guards.py`)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..errors import OlderSchema
from ..session import PlanSession
from ..store.guards import HEARTBEAT_MS, installed, now_ms, seen_rows

# The headline of a guard warning on the card; the line after it says why (card/guards.ts).
UNGUARDED_HEADLINE = "Plan mode is not enforced: the agent approves its own edits"


def unguarded_note(session: PlanSession, snapshot: dict) -> str | None:
    """While plan mode holds (or a proposal waits): the words a bridged agent that approves
    itself and cannot be made to ask left for the card, if one did, under a headline."""
    if snapshot["mode"] != "plan" and snapshot["pending_proposal_hash"] is None:
        return None
    text = session.unguarded_text()
    return None if text is None else f"{UNGUARDED_HEADLINE}\n{text}"


def guard_warning(
    session: PlanSession, snapshot: dict, notebook: Path | None, plan_file: Path | None
) -> str | None:
    """The card's one guard warning, if any: a host that would not run this plan's guard hook
    (its headline, why and the fix), else a bridged agent that approves its own edits."""
    from ..agents.hosts.registry import guard_warning as host_warning

    warning = host_warning(notebook, plan_file, session.session_id)
    return warning or unguarded_note(session, snapshot)


def guard_data(session: PlanSession, snapshot: dict, notebook: Path | None) -> dict | None:
    """While plan mode holds (or a proposal waits), what shows that the guards run (DESIGN
    section 15): `seen`, each agent whose guard was heard from and when; `silent`, each agent
    whose hooks were installed for this plan and not heard from since plan mode began; `now`,
    this clock's time, to tell ages by. None otherwise, and where no guard is known of.

    A heartbeat is written at most once in 10 s, so one heard up to 10 s before plan mode
    began may stand for a run since (the run after it did not need to write)."""
    if snapshot["mode"] != "plan" and snapshot["pending_proposal_hash"] is None:
        return None
    try:
        with session.store.read() as tx:
            seen, installs = seen_rows(tx), installed(tx)
            since = None
            if snapshot["mode"] == "plan":
                since = tx.scalar("SELECT_MODE_SINCE", {"sid": session.session_id})
    except OlderSchema:  # a plan file this process cannot upgrade
        return None
    if not seen and not installs:
        return None
    last = {row["agent"]: row["at"] for row in seen}
    silent = [
        {
            "agent": record["agent"],
            "installed_at": record["at"],
            "doctor": f"jupyter-plans hook doctor {record['host']} {_named(notebook, session)}",
        }
        for record in installs
        if record["agent"] not in last
        or since is not None
        and last[record["agent"]] < since - HEARTBEAT_MS
    ]
    return {"now": now_ms(), "since": since, "seen": seen, "silent": silent}


def _named(notebook: Path | None, session: PlanSession) -> str:
    """The doctor's target, as run in the notebook's folder (where the card says to run it)."""
    if notebook is not None:
        return shlex.join(["--notebook", notebook.name])
    where = session.store.path
    return shlex.join(["--db", where.name]) if where is not None else "--db DB"


def heard(store: Any) -> dict[str, list[dict]]:
    """The guards' heartbeats and hook installs, each agent with when: they move no cursor, so
    the panel reads the card again when these change. Empty lists are left out, as is all of
    it for a plan file this process cannot upgrade."""
    try:
        with store.read() as tx:
            guards = [{"agent": r["agent"], "at": r["at"]} for r in seen_rows(tx)]
            installs = [{"agent": r["agent"], "at": r["at"]} for r in installed(tx)]
    except OlderSchema:  # a plan file this process cannot upgrade
        return {}
    return {key: rows for key, rows in {"guards": guards, "installs": installs}.items() if rows}
