"""The scripted demo: a plan proposed in plan mode, approved by hash, carried out step by step."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ._text import render_text
from .store import PlanStore

_STEPS = [
    {
        "id": "load",
        "description": "Load sales.csv and check the column types",
        "acceptance": "no column is read as object by accident",
    },
    {
        "id": "clean",
        "description": "Drop duplicated orders and fill missing regions",
        "depends_on": ["load"],
    },
    {
        "id": "plot",
        "description": "Plot monthly revenue per region",
        "depends_on": ["clean"],
        "acceptance": "one line per region, months on the x axis",
    },
]
_PROPOSAL = {
    "explanation": "Revenue by region needs clean orders first; duplicates inflate March.",
    "findings": ["sales.csv has 1,204 rows, 37 of them duplicated order ids"],
    "objectives": ["A chart of monthly revenue per region the team can trust"],
    "steps": _STEPS,
}
_EVIDENCE = {
    "load": "dtypes: order_id int64, region category, amount float64, date datetime64",
    "clean": None,
    "plot": "chart shows 4 regions over 12 months",
}


def _say(text: str) -> None:
    print(f"\n== {text}")


def run_demo(db: str | None = None) -> int:
    path = (
        Path(db)
        if db
        else Path(tempfile.mkdtemp(prefix="jupyter-plans-demo-")) / "demo.plans.sqlite"
    )
    with PlanStore(path) as store:
        session = store.session("default")

        _say("The person starts plan mode and gives the task (%plan Chart revenue by region)")
        session.start_planning("Chart monthly revenue by region")
        for message in session.deliver():
            print(f"agent receives ({message.source}): {message.text}")

        _say("The agent researches, then submits its proposal with plan_submit")
        result = session.call_tool("plan_submit", _PROPOSAL, turn_id="turn-1", call_id="call-1")
        print(f"agent is told: {result.content}")
        print(render_text(session.snapshot()))

        proposal = session.snapshot().pending_proposal_hash
        _say(f"The person approves it by hash (%plan approve {proposal[:12]}...)")
        session.approve(proposal)
        for message in session.deliver():
            print(f"agent receives ({message.source}):\n{message.text}")
        print(render_text(session.snapshot()))

        steps = [dict(step, status="pending") for step in _STEPS]
        for number, step in enumerate(steps):
            for status in ("in_progress", "completed"):
                step["status"] = status
                if status == "completed" and _EVIDENCE[step["id"]]:
                    step["evidence"] = _EVIDENCE[step["id"]]
                revision = session.snapshot().plan.revision
                session.call_tool(
                    "update_plan",
                    {"expected_revision": revision, **_PROPOSAL, "steps": steps},
                    turn_id="turn-2",
                    call_id=f"call-{2 + number}-{status}",
                )
            _say(f"The agent marks step {step['id']!r} complete")
            print(render_text(session.snapshot()))
            if step["id"] == "clean":
                session.call_tool(
                    "record_decision",
                    {
                        "title": "Keep the first of each duplicated order",
                        "rationale": "Duplicates share all fields but the import time.",
                        "sources": ["sales.csv"],
                    },
                    turn_id="turn-2",
                    call_id="call-decision",
                )
                _say("The agent records a decision")
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

    from ._card import MIME_TYPE

    source = Path(notebook)
    folder = Path(tempfile.mkdtemp(prefix="jupyter-plans-demo-"))
    copy = folder / source.name
    shutil.copy(source, copy)
    print(f"Running {source} headlessly in {folder} ...", flush=True)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(folder)}}).execute()
    nbformat.write(nb, copy)
    cards = [
        output["data"]["text/plain"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if MIME_TYPE in output.get("data", {})
    ]
    if not cards:
        print(f"jupyter-plans: {source} showed no plan card", file=sys.stderr)
        return 1
    print(cards[-1])
    print(f"\nThe executed notebook and its plan are in {folder}")
    return 0
