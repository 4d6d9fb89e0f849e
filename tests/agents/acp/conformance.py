"""What the conformance suite's scenarios share: a real agent behind the bridge with a person on
another surface, prompts that run while the person decides, and what a test reads back (the
refusals, the steps, what the card would say, what the model was sent)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from jupyter_plans.agents.acp.bridge import PERSON_METHOD
from jupyter_plans.agents.acp.profiles import profiles
from jupyter_plans.card.view import card_data
from tests import waiting

from .harness import Person
from .real import AGENTS, BY_NAME, NEWEST_CLIS, TIMEOUT, RealAgent, RealClient, require, started

PROMPT_TIMEOUT = 180.0  # a whole turn of a real agent, its model's stand-in and its tools
REFUSED = "Refused by the plan guard: "
EVERY = [agent.name for agent in [*AGENTS, *NEWEST_CLIS]]


def agents_where(check) -> list[str]:
    """The agents (by name) of which CHECK(agent) holds: a scenario that applies to some."""
    return [name for name in EVERY if check(BY_NAME[name])]


def real(name: str) -> RealAgent:
    agent = BY_NAME[name]
    require(agent)
    return agent


def profile_of(agent: RealAgent):
    return profiles()[agent.profile]


async def until(check, what: str, timeout: float = TIMEOUT):
    """Wait for CHECK() to give something true, and give it."""
    return await waiting.until(check, what, timeout, every=0.1)


def prompt(run, session_id: str, words: str) -> asyncio.Task:
    return asyncio.ensure_future(
        asyncio.wait_for(
            run.conn.prompt(session_id=session_id, prompt=[text_block(words)]), PROMPT_TIMEOUT
        )
    )


async def asked_in(run, turn: asyncio.Task, tmp_path: Path):
    """The request that reaches the client during TURN. Should the turn end first, or nothing
    come within PROMPT_TIMEOUT, the test fails saying what the model's stand-in answered, the
    last messages on the wire and the end of the agent's stderr."""
    asked = asyncio.ensure_future(run.client.asked.get())
    await asyncio.wait({asked, turn}, timeout=PROMPT_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
    if asked.done():
        return asked.result()
    asked.cancel()
    if not turn.done():
        why = f"nothing within {PROMPT_TIMEOUT:.0f} s"
    elif turn.exception() is not None:
        why = f"the turn failed ({turn.exception()!r})"
    else:
        why = f"the turn ended first ({turn.result()!r:.200})"
    answered = [(r.answer, r.turn) for r in run.model.requests if r.answer != "other"]
    wire = [
        (w["t"], w["dir"], w["message"].get("method") or f"reply {w['message'].get('id')}")
        for w in run.client.wire[-12:]
    ]
    stderr = tmp_path / "agent.stderr"
    tail = stderr.read_text(errors="replace")[-1500:] if stderr.exists() else ""
    pytest.fail(
        f"no request reached the client: {why}; the model answered {answered} "
        f"({run.model.script.left} turns left); last on the wire: {wire}; stderr: {tail}"
    )


async def name_the_person(run, session_id: str, name: str) -> None:
    """What Jupyter AI's persona does before each prompt: name the chat message's sender."""
    await run.conn.ext_notification(PERSON_METHOD[1:], {"sessionId": session_id, "name": name})


async def plan_mode_from_the_client(run, agent: RealAgent, session_id: str) -> None:
    """The client's own switch into plan mode: the agent profile's plan switch."""
    switch = profile_of(agent).plan_switch
    await asyncio.wait_for(
        run.conn.set_config_option(config_id=switch, session_id=session_id, value="plan"),
        TIMEOUT,
    )


def refusals(person: Person) -> list[tuple[str, str]]:
    """(title, words) of each call the guard refused."""
    return [
        (e.data.get("name"), e.data["result"]["content"])
        for e in person.events("tool_finished")
        if REFUSED in str(e.data.get("result"))
    ]


def step_rows(snapshot: dict) -> list[tuple]:
    steps = snapshot["plan"]["steps"] if snapshot["plan"] else []
    return [(s["id"], s["description"], s["status"]) for s in steps]


def modes_told(client: RealClient) -> list[str]:
    return [u.current_mode_id for u in client.kinds("current_mode_update")]


def config_values(client: RealClient) -> dict:
    updates = client.kinds("config_option_update")
    if not updates:
        return {}
    options = [getattr(o, "root", o) for o in updates[-1].config_options]
    return {option.id: option.current_value for option in options}


def guards_heard(person: Person) -> dict[str, tuple]:
    """The guards heard from in the plan (DESIGN section 15): agent -> (version, point)."""
    from jupyter_plans.store.guards import seen_rows

    with person.store.read() as tx:
        rows = seen_rows(tx)
    return {row["agent"]: (row["agent_version"], row["point"]) for row in rows}


def card(person: Person) -> dict:
    """What the card and the panel are given for the session (card/view.py)."""
    return card_data(person.session, "a.ipynb")


def model_texts(run) -> list[str]:
    """The text of every conversation request the model's stand-in answered, as JSON."""
    return [json.dumps(r.body) for r in run.model.requests if r.answer in ("turn", "over")]


def follow_ups(run) -> int:
    """How many follow-up prompts of the guard's the model was sent (their words open a user
    message), as the conversation's last request holds them all."""
    marker = json.dumps(REFUSED)[1:-1]
    texts = model_texts(run)
    if not texts:
        return 0
    return sum(text.startswith(marker) for text in _user_texts(texts[-1]))


def _user_texts(body: str) -> list[str]:
    """The user messages' texts of a request, as they appear in its JSON (both APIs)."""
    data = json.loads(body)
    found = []
    for message in data.get("messages") or data.get("input") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"text": content}]
        for block in blocks:
            words = block.get("text") if isinstance(block, dict) else None
            if isinstance(words, str):
                found.append(json.dumps(words)[1:-1])
    return found


@contextlib.asynccontextmanager
async def behind_bridge(agent: RealAgent, tmp_path: Path, script: Any):
    """AGENT behind the bridge on tmp_path/a.plans.sqlite (session s), its model answering
    SCRIPT; yields the run and the person's view of the plan. The raw messages both ways are
    kept in tmp_path/wire.jsonl."""
    db = tmp_path / "a.plans.sqlite"
    async with started(agent, tmp_path, script, bridge_db=db) as run:
        person = Person(db)
        try:
            yield run, person
        finally:
            person.close()
            run.save(tmp_path / "wire.jsonl")


def run_real(coroutine) -> None:
    asyncio.run(coroutine)


every_agent = pytest.mark.parametrize("name", EVERY)
