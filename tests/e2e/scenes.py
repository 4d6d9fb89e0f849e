"""Plans in the states the card is judged in, written as an agent in another process writes
them: shared by the browser tests and by `make screenshots` (scripts/screenshots.py), so the
pictures in docs/ show what the tests hold.

The projector scene is the busiest card a teacher puts on a screen: a revised proposal
waiting (a step added, one reworded, one removed), a step done with its cells (one run
failed), comments in all three states, a decision, and plan mode not enforced in Codex (its
hook installed for the notebook and not trusted, and not heard from)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

from jupyter_plans import PlanStore

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}

EXPLANATION = "Clean the sales data, then fit a baseline model of weekly revenue."
FINDINGS = [
    "`price` is null in 3.1% of rows (412 of 13,290)",
    "two stores report revenue in cents, not dollars",
]
OBJECTIVES = ["a validated baseline with MAPE printed on a held-out month"]


def _step(step_id, description, after=(), **more) -> dict:
    return {"id": step_id, "description": description, "depends_on": list(after), **more}


FIT = _step("fit", "Fit a gradient-boosted baseline", ["split"])
FIT_ACCEPTED = {**FIT, "acceptance": "MAPE printed for the held-out month"}
# What the person approved first: the plan the agent worked on.
APPROVED = {
    "explanation": EXPLANATION,
    "findings": FINDINGS[1:],
    "objectives": OBJECTIVES,
    "phases": [
        {
            "title": "Prepare",
            "steps": [
                _step("load", "Load sales.csv and the store table"),
                _step("fix_cents", "Normalise currency units", ["load"]),
            ],
        },
        {
            "title": "Model",
            "steps": [
                _step("split", "Hold out the last month", ["fix_cents"]),
                FIT,
                _step("report", "Plot residuals by store", ["fit"]),
                _step("tune", "Grid-search hyperparameters", ["fit"]),
            ],
        },
    ],
}
EVIDENCE = "13,290 rows loaded by cell:load-retry; the first try, cell:load-first, failed"
# The agent's revision, waiting: `clean` added, `fix_cents` reworded, `tune` removed.
REVISED = {
    "explanation": EXPLANATION,
    "findings": FINDINGS,
    "objectives": OBJECTIVES,
    "phases": [
        {
            "title": "Prepare",
            "steps": [
                _step("load", "Load sales.csv and the store table"),
                _step("clean", "Drop rows with null price", ["load"]),
                _step("fix_cents", "Convert cents to dollars for stores 17 and 42", ["load"]),
            ],
        },
        {
            "title": "Model",
            "steps": [
                _step("split", "Hold out the last month", ["clean", "fix_cents"]),
                FIT_ACCEPTED,
                _step("report", "Plot residuals by store", ["fit"]),
            ],
        },
    ],
}
DECISION = {"title": "Use MAPE, not RMSE", "rationale": "revenue scales differ by 40x by store"}


def notebook(root: Path, stem: str, cells: list[str] = ("%load_ext jupyter_plans",)) -> Path:
    """STEM.ipynb whose cells are `cells`, with a kernel named, so it opens without asking."""
    path = root / f"{stem}.ipynb"
    book = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in cells],
        metadata={"kernelspec": KERNELSPEC},
    )
    nbformat.write(book, path)
    return path


def _ok(result) -> None:
    assert not result.is_error, result.content


def install_codex_hook(path: Path, codex_home: Path) -> None:
    """`jupyter-plans hook install codex --notebook PATH --write`, as a person runs it in the
    notebook's folder: registered and recorded in the plan, not trusted."""
    subprocess.run(
        [*COMMAND, "hook", "install", "codex", "--notebook", str(path), "--write"],
        check=True,
        capture_output=True,
        cwd=path.parent,
        env={**os.environ, "CODEX_HOME": str(codex_home)},
        timeout=60,
    )


def projector(root: Path, stem: str, codex_home: Path | None = None):
    """The projector scene in STEM.ipynb; returns its session. With `codex_home` (the Codex
    home the server and kernels read), the Codex hook is installed for the notebook too."""
    path = notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    session.on()
    _ok(session.call_tool("plan_submit", APPROVED, turn_id="t1"))
    session.approve(session.snapshot().pending_proposal_hash)
    # The person approved; the agent loaded the data (a first try failed), then marked it done.
    prepare, model = APPROVED["phases"]
    for status, evidence in (("in_progress", None), ("completed", EVIDENCE)):
        loaded = {**prepare["steps"][0], "status": status, "evidence": evidence}
        phases = [{**prepare, "steps": [loaded, *prepare["steps"][1:]]}, model]
        revision = session.snapshot().plan.revision
        args = {**APPROVED, "phases": phases, "expected_revision": revision}
        _ok(session.call_tool("update_plan", args, turn_id="t2"))
        if status == "in_progress":
            session.cell_ran("load-first", 3, False, "sales = read('sales.csv')")
            session.cell_ran("load-retry", 4, True, "sales = read('sales.csv', sep=';')")
            session.cell_ran("stores", 5, True, "stores = read('stores.csv')")
    _ok(session.call_tool("record_decision", DECISION, turn_id="t2"))

    alice = {"name": "alice"}
    session.comment("fix_cents", "Only stores 17 and 42 report cents; check the others.", by=alice)
    split = session.comment("split", "Hold out June, not the last 30 days.", by=alice)
    semicolons = session.comment("load", "The file is semicolon-separated.", by=alice)
    reply = {"comment_id": split.id, "reply": "The split now holds out June 2024."}
    _ok(session.call_tool("comment_reply", reply, turn_id="t3"))
    session.resolve_comment(semicolons.id, by=alice)

    session.on()
    _ok(session.call_tool("plan_submit", REVISED, turn_id="t3"))
    if codex_home is not None:
        install_codex_hook(path, codex_home)
    return session


# The other cards the docs show: a first proposal and its revision, cells, comments, the
# agent's question, a finished plan, an earlier session.

PROPOSAL = {
    "explanation": EXPLANATION,
    "findings": FINDINGS[1:],
    "objectives": OBJECTIVES,
    "steps": [
        _step("load", "Load sales.csv and the store table"),
        _step("clean", "Drop rows with null price", ["load"]),
        _step("split", "Hold out the last month", ["clean"]),
    ],
}
RESUBMITTED = {
    "explanation": "Fit the baseline on weekly revenue per store instead.",
    "findings": [],
    "objectives": ["a baseline per store"],
    "steps": [_step("fit", "Fit one baseline per store")],
}


def waiting(root: Path, stem: str):
    """STEM.ipynb with PROPOSAL waiting for the person's decision."""
    notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    session.on()
    _ok(session.call_tool("plan_submit", PROPOSAL, turn_id="t1"))
    return session


def resubmit(session) -> None:
    """The person asks for changes; the agent proposes RESUBMITTED."""
    session.revise("one baseline per store")
    _ok(session.call_tool("plan_submit", RESUBMITTED, turn_id="t2"))


def cells(root: Path, stem: str):
    """A step done with its cells (one run failed, one cell cited, one run again with other
    code after the step was completed), and the next step."""
    notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    parse = _step("parse", "Parse the dates", status="in_progress")
    _ok(session.call_tool("update_plan", {"expected_revision": 0, "steps": [parse]}))
    session.cell_ran("parse-ok", 4, True, "dates = parse(raw)")
    session.cell_ran("parse-failed", 3, False, "int('June')")
    evidence = "Parsed in cell:parse-ok; `cell:parse-failed` failed on June"
    done = {**parse, "status": "completed", "evidence": evidence}
    fit = _step("fit", "Fit the model")
    _ok(session.call_tool("update_plan", {"expected_revision": 1, "steps": [done, fit]}))
    session.cell_ran("parse-ok", 6, True, "dates = parse(raw, dayfirst=True)")
    return session


def comments(root: Path, stem: str):
    """A revised proposal with comments: one addressed under a reworded step, on an earlier
    wording, and one on the plan as a whole."""
    steps = [
        _step("load", "Load sales.csv"),
        _step("fill", "Fill the missing prices with the mean"),
        _step("fit", "Fit a weekly model", ["load", "fill"]),
    ]
    first = {"explanation": "Clean the prices, then fit a weekly model.", "steps": steps}
    first |= {"findings": ["price is missing in 412 rows"], "objectives": ["a weekly model"]}
    notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    session.on()
    _ok(session.call_tool("plan_submit", first, turn_id="t1"))
    session.comment("fill", "use the median: a few huge orders pull the mean up", by="ann")
    reply = {"comment_id": "c1", "reply": "Median per product now"}
    _ok(session.call_tool("comment_reply", reply, turn_id="t1"))
    session.revise("fill per product", by="ann")
    median = {**steps[1], "description": "Fill the missing prices with the median"}
    _ok(session.call_tool("plan_submit", {**first, "steps": [steps[0], median]}, turn_id="t2"))
    session.comment(None, "keep it short", by="ann")
    return session


QUESTION = (
    "Should the held-out month be the last full calendar month (June), "
    "or the last 30 days of `sales.csv`?"
)


def question(root: Path, stem: str):
    """A draft plan while the agent researches, and its question to the person."""
    notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    session.on()
    draft = {**PROPOSAL, "findings": FINDINGS, "expected_revision": 0}
    _ok(session.call_tool("update_plan", draft, turn_id="t1"))
    _ok(session.call_tool("record_decision", DECISION, turn_id="t1"))
    _ok(session.call_tool("ask_user", {"question": QUESTION}, turn_id="t1"))
    return session


def finished(root: Path, stem: str):
    """A finished plan: every step marked complete, the agent's review of each objective."""
    notebook(root, stem)
    session = PlanStore(root / f"{stem}.plans.sqlite").session("default")
    objectives = ["a weekly revenue chart", "a baseline model with MAPE on June"]
    steps = [
        _step("chart", "Chart weekly revenue", status="completed", evidence="figure 1"),
        _step("fit", "Fit the baseline", ["chart"], status="completed", evidence="cell 7"),
    ]
    args = {"expected_revision": 0, "objectives": objectives, "steps": steps}
    _ok(session.call_tool("update_plan", args))
    review = [
        {"objective": objectives[0], "outcome": "drawn for 26 weeks", "evidence": "figure 1"},
        {"objective": objectives[1], "outcome": "fitted: MAPE 8.1% on June", "evidence": "cell 7"},
    ]
    _ok(session.call_tool("finish_plan", {"review": review}))
    return session


def sessions_with_an_earlier(root: Path, stem: str):
    """Three sessions of one plan file: an earlier one whose proposal was left waiting, one
    begun moments later, and the current one, in plan mode."""
    notebook(root, stem)
    store = PlanStore(root / f"{stem}.plans.sqlite")
    earlier = store.session("default")
    earlier.queue_message("Clean the sales data and drop the test stores", source="person")
    earlier.on()
    _ok(earlier.call_tool("plan_submit", PROPOSAL, turn_id="t1"))
    current = store.session("forecast")
    current.queue_message("Forecast weekly revenue by region for the next quarter", "person")
    current.on()
    store.set_current_session("forecast")
    return current
