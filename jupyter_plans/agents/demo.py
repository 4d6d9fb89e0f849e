"""The demo: the scripted data-cleaning agent, proposed in plan mode, approved by hash, carried out.

`jupyter-plans demo` runs it in this process and prints the plan as text after each turn;
`--notebook` runs a notebook headlessly instead (`notebook/headless.py`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..plan.text import render_text
from ..session import PlanStore


def _say(text: str) -> None:
    print(f"\n== {text}")


def run_demo(db: str | None = None) -> int:
    from . import ScriptedAgent

    folder = Path(tempfile.mkdtemp(prefix="jupyter-plans-demo-"))
    path = Path(db) if db else folder / "demo.plans.sqlite"
    with PlanStore(path) as store:
        session = store.session("default")
        agent = ScriptedAgent.load("data-cleaning", session)

        _say(f"The person starts plan mode with a task: %plan {agent.script.task}")
        session.start_planning(agent.script.task)
        print(agent.run())
        print(render_text(session.snapshot()))

        proposal = session.snapshot().pending_proposal_hash
        _say(f"The person approves it by hash: %plan approve {proposal}")
        session.approve(proposal)
        while not agent.done:
            transcript = agent.run(max_turns=1)
            if not transcript:
                break
            print(transcript)
            _say("The plan now")
            print(render_text(session.snapshot()))

    print(f"\nThe plan is stored in {path}")
    print(
        f"Try: jupyter-plans snapshot --db {path} --session default\n"
        f"     jupyter-plans events --db {path} --session default"
    )
    return 0
