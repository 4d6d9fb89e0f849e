"""Resuming after a restart: %load_ext brings back the session and tells what happened since
the notebook last showed its card; through a real shell, and through nbclient with real kernels."""

import os

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell
from nbclient import NotebookClient

import jupyter_plans
from jupyter_plans import PlanStore
from jupyter_plans.card.view import MIME_TYPE
from jupyter_plans.notebook.resume import last_seen

STEPS = [{"id": "load", "description": "Load sales.csv"}]
DONE = [{"id": "load", "description": "Load sales.csv", "status": "completed"}]


@pytest.fixture
def shell(tmp_path, monkeypatch):
    ip = InteractiveShell.instance()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    ip.user_ns.pop("__vsc_ipynb_file__", None)
    ip.user_ns["__session__"] = str(tmp_path / "analysis.ipynb")
    ip.config.PlanMagics.auto_display = True
    yield ip
    ip.run_line_magic("unload_ext", "jupyter_plans")
    ip.config.PlanMagics.clear()
    ip.user_ns.pop("__session__", None)


def load(ip, capsys):
    """Load the extension in a cell, as a restarted kernel's first cell does; its output."""
    ip.run_line_magic("unload_ext", "jupyter_plans")
    capsys.readouterr()
    ip.run_cell("%load_ext jupyter_plans")
    return capsys.readouterr().out


def test_load_tells_what_happened_since_the_card_was_last_shown(shell, tmp_path, capsys):
    out = load(shell, capsys)
    assert "Since you last looked" not in out and "no plan yet" in out  # the card
    session = jupyter_plans.current_session()
    assert shell.magics_manager.registry[
        "PlanMagics"
    ].cells.flush()  # the reminder is written after the cell
    assert last_seen(session, "analysis.ipynb") == 0
    # Another process works while this notebook is closed.
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        other = store.session("default")
        other.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        other.call_tool("record_decision", {"title": "Use parquet", "rationale": "faster"})
    out = load(shell, capsys)
    told, card = out.split("Plan (default mode)", 1)
    assert told.splitlines() == [
        "Since you last looked (event 0): 2 events.",
        "1. agent update_plan: revision 1",
        "2. agent recorded a decision: Use parquet",
    ]
    assert card.startswith(", revision 1: 0 of 1 steps marked complete")
    assert shell.magics_manager.registry["PlanMagics"].cells.flush()
    assert last_seen(jupyter_plans.current_session(), "analysis.ipynb") == 2
    out = load(shell, capsys)
    assert "Since you last looked" not in out  # nothing new since


def test_a_plan_new_in_the_loading_cell_tells_nothing_of_the_session_it_leaves(
    shell, tmp_path, capsys
):
    """Run All of a notebook that starts a fresh session as it loads (01): its first output
    says nothing of the previous run's session."""
    load(shell, capsys)
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        store.session("default").call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    shell.run_line_magic("unload_ext", "jupyter_plans")
    capsys.readouterr()
    shell.run_cell("%load_ext jupyter_plans\n%plan new")
    out = capsys.readouterr().out
    assert "Since you last looked" not in out
    assert "Started a new plan session" in out and "no plan yet" in out


def test_a_long_absence_tells_the_last_events_and_how_to_see_all(shell, tmp_path, capsys):
    load(shell, capsys)
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        other = store.session("default")
        for revision in range(12):
            args = {"expected_revision": revision, "steps": STEPS}
            assert not other.call_tool("update_plan", args).is_error
    lines = load(shell, capsys).splitlines()
    assert lines[0] == (
        "Since you last looked (event 0): 12 events, the last 10 below; "
        "%plan history 12 lists them all."
    )
    assert lines[1:11] == [f"{n}. agent update_plan: revision {n}" for n in range(3, 13)]


def test_cells_that_move_a_live_card_are_remembered_and_new_starts_afresh(shell, capsys):
    load(shell, capsys)
    magics = shell.magics_manager.registry["PlanMagics"]
    card = magics.card()
    assert card.comm is not None  # a live card (refreshing it is the watcher's work)
    session = jupyter_plans.current_session()
    session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    card.refresh()
    shell.run_cell("1 + 1")  # the end of a cell records what the live card shows
    assert magics.cells.flush()  # on the writer's thread, off the cell's path
    assert last_seen(session, "analysis.ipynb") == 1
    card.close()
    capsys.readouterr()
    shell.run_line_magic("plan", "new")
    assert capsys.readouterr().out == (
        "Started a new plan session; earlier ones stay in the plan file.\n"
    )
    assert last_seen(jupyter_plans.current_session(), "analysis.ipynb") is None


def test_without_auto_display_nothing_is_told_on_load(shell, tmp_path, capsys):
    load(shell, capsys)
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        store.session("default").call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    shell.config.PlanMagics.auto_display = False
    assert load(shell, capsys) == ""


def run_notebook(folder, name, sources):
    """Run a new notebook of `sources` in a fresh kernel, as Jupyter would for `name`."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    env = {**os.environ, "JPY_SESSION_NAME": str(folder / name)}
    client = NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(folder)}})
    client.execute(env=env)
    return nb


def text_of(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def card_of(cell):
    (card,) = [o for o in cell.outputs if MIME_TYPE in o.get("data", {})]
    return card


def test_a_restarted_kernel_brings_back_the_card_and_what_happened(tmp_path):
    first = run_notebook(
        tmp_path,
        "analysis.ipynb",
        [
            "%load_ext jupyter_plans",
            "import jupyter_plans\n"
            "args = {'expected_revision': 0, 'objectives': ['a chart'], 'steps': "
            f"{STEPS!r}}}\n"
            "print(jupyter_plans.current_session().call_tool('update_plan', args).content)",
        ],
    )
    assert card_of(first.cells[0])["data"][MIME_TYPE]["snapshot"]["cursor"] == 0
    assert text_of(first.cells[1]) == "Plan updated to revision 1.\n"
    # While the kernel is gone, an agent in another process finishes the plan.
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        agent = store.session("default")
        assert last_seen(agent, "analysis.ipynb") == 1  # the live card moved in that cell
        args = {"expected_revision": 1, "objectives": ["a chart"], "steps": DONE}
        assert not agent.call_tool("update_plan", args).is_error
        review = [{"objective": "a chart", "outcome": "drawn", "evidence": "figure 1"}]
        assert not agent.call_tool("finish_plan", {"review": review}).is_error

    second = run_notebook(
        tmp_path, "analysis.ipynb", ["%load_ext jupyter_plans", "%plan history 3", "%plan new"]
    )
    loading = second.cells[0]
    assert text_of(loading).splitlines() == [
        "Since you last looked (event 1): 2 events.",
        "2. agent update_plan: revision 2",
        "3. agent finish_plan: revision 2 finished, 1 objective reviewed",
    ]
    card = card_of(loading)
    assert card["data"][MIME_TYPE]["snapshot"]["cursor"] == 3
    assert card["data"][MIME_TYPE]["review"]["review"][0]["outcome"] == "drawn"
    assert card["data"]["text/plain"].splitlines()[:2] == [
        "Plan (default mode), revision 2: 1 of 1 steps marked complete",
        "Finished: the agent reviewed every objective",
    ]
    assert text_of(second.cells[1]).splitlines() == [
        "1. agent update_plan: revision 1",
        "2. agent update_plan: revision 2",
        "3. agent finish_plan: revision 2 finished, 1 objective reviewed",
    ]
    assert text_of(second.cells[2]) == (
        "Started a new plan session; earlier ones stay in the plan file.\n"
    )


def test_plan_export_writes_the_journal_beside_the_notebook(shell, tmp_path, capsys):
    load(shell, capsys)
    session = jupyter_plans.current_session()
    session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
    capsys.readouterr()
    shell.run_line_magic("plan", "export journal")
    out = capsys.readouterr().out
    folder = tmp_path / "journal"
    assert out == "Wrote checkpoint.md, plan.md, decisions.md, progress.md to journal (cursor 1).\n"
    assert "- [ ] **load**: Load sales.csv" in (folder / "plan.md").read_text()
    (tmp_path / "taken").write_text("x")
    shell.run_line_magic("plan", "export taken")
    err = capsys.readouterr().err
    assert err.startswith("%plan export: cannot export to ") and err.count("\n") == 1
