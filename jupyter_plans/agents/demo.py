"""The demo: the scripted data-cleaning agent, proposed in plan mode, approved by hash, carried out.

`jupyter-plans demo` runs it in this process and prints the plan as text after each turn;
`--notebook` runs a notebook headlessly instead (what `make demo` does with the quickstart).
"""

from __future__ import annotations

import sys
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


def run_notebook(notebook: str) -> int:
    """Run a notebook headlessly in a copy (nbclient, a real kernel); print its last card."""
    import shutil

    import nbformat
    from nbclient import NotebookClient

    from ..session.card import MIME_TYPE

    source = Path(notebook)
    folder = Path(tempfile.mkdtemp(prefix="jupyter-plans-demo-"))
    copy = folder / source.name
    shutil.copy(source, copy)
    print(f"Running {source} headlessly in {folder} ...", flush=True)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(folder)}}).execute()
    nbformat.write(nb, copy)
    cards = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if MIME_TYPE in output.get("data", {})
    ]
    plan_files = sorted(folder.glob("*.plans.sqlite"))
    if not cards or not plan_files:
        print(f"jupyter-plans: {source} showed no plan card", file=sys.stderr)
        return 1
    # The cards stay current in a live notebook; their saved text is as of when each was shown.
    # Print the card as it stands now.
    with PlanStore(plan_files[0]) as store:
        print(render_text(store.session().snapshot()))
    print(f"\nThe executed notebook and its plan are in {folder}")
    return 0
