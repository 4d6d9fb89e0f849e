"""%load_ext jupyter_plans and %plan through a real IPython InteractiveShell."""

import pytest

import jupyter_plans
from jupyter_plans import PlanStore
from tests.helpers.shell import load, plan, submit


def test_the_store_appears_beside_the_notebook(ip, tmp_path):
    notebook = tmp_path / "work" / "analysis.ipynb"
    notebook.parent.mkdir()
    session = load(ip, notebook)
    assert (tmp_path / "work" / "analysis.plans.sqlite").exists()
    assert session.store.path == tmp_path / "work" / "analysis.plans.sqlite"


@pytest.mark.parametrize("where", ["env", "vscode", "cwd"])
def test_other_ways_to_find_the_notebook(ip, tmp_path, monkeypatch, where):
    if where == "env":
        monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "from-env.ipynb"))
        expected = "from-env.plans.sqlite"
    elif where == "vscode":
        ip.user_ns["__vsc_ipynb_file__"] = str(tmp_path / "from-vscode.ipynb")
        expected = "from-vscode.plans.sqlite"
    else:
        expected = "default.plans.sqlite"
    assert load(ip).store.path == tmp_path / expected


def test_configuration_from_ipython_config(ip, tmp_path):
    ip.config.PlanMagics.database = str(tmp_path / "{notebook_stem}-team.sqlite")
    ip.config.PlanMagics.session_id = "review"
    session = load(ip, tmp_path / "nb.ipynb")
    assert session.store.path == tmp_path / "nb-team.sqlite"
    assert session.session_id == "review"


def test_a_session_per_notebook_in_a_shared_store(ip, tmp_path, capsys):
    ip.config.PlanMagics.database = str(tmp_path / "team.plans.sqlite")
    ip.config.PlanMagics.session_id = "{notebook_stem}"
    assert load(ip, tmp_path / "sales.ipynb").session_id == "sales"
    ip.run_line_magic("unload_ext", "jupyter_plans")
    ip.config.PlanMagics.session_id = "{notebook}"
    ip.user_ns["__session__"] = str(tmp_path / "sales.ipynb")
    ip.run_line_magic("load_ext", "jupyter_plans")
    err = capsys.readouterr().err
    assert "c.PlanMagics.session_id is '{notebook}'" in err and "{notebook_stem}" in err
    assert len(err.strip().splitlines()) == 1


def test_a_refused_store_is_one_line_and_no_magic(ip, tmp_path, capsys):
    real = tmp_path / "elsewhere.sqlite"
    PlanStore(real).close()
    (tmp_path / "nb.plans.sqlite").symlink_to(real)
    ip.user_ns["__session__"] = str(tmp_path / "nb.ipynb")
    capsys.readouterr()
    ip.run_line_magic("load_ext", "jupyter_plans")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symbolic link" in err
    assert "plan" not in ip.magics_manager.magics["line"]


def test_a_task_starts_plan_mode_and_goes_to_the_agent_as_the_persons_words(ip, capsys):
    session = load(ip)
    out, err = plan(ip, "Clean sales.csv; then fit a baseline", capsys)
    assert err == "" and "Plan mode on" in out
    assert session.snapshot().mode == "plan"
    [message] = session.deliver()
    assert (message.source, message.text) == ("person", "Clean sales.csv; then fit a baseline")


def test_verbs_match_without_case(ip, capsys):
    session = load(ip)
    plan(ip, "ON", capsys)
    assert session.snapshot().mode == "plan"
    plan(ip, "Off", capsys)
    assert session.snapshot().mode == "default"
    assert session.waiting_messages() == []  # a verb is never read as a task


def test_approve_by_hash_and_without(ip, capsys):
    session = load(ip)
    digest = submit(session)
    out, err = plan(ip, f"approve {digest}", capsys)
    assert err == "" and digest[:12] in out
    snapshot = session.snapshot()
    assert snapshot.mode == "default" and snapshot.approved_proposal_hash == digest
    digest = submit(session)
    out, err = plan(ip, "approve", capsys)  # not shown in this kernel yet: refused
    assert out == "" and f"proposal {digest[:12]} waits but has not been shown here" in err
    plan(ip, "", capsys)
    plan(ip, "approve", capsys)
    assert session.snapshot().approved_proposal_hash == digest


@pytest.mark.parametrize(
    "line",
    [
        "approve",  # nothing waits
        "approve {upper}",
        "approve {short}",
        "approve {digest} please",
        "approve and also delete the tests",
        "revise",
        "on now",
        "history lots",
        "export",
    ],
)
def test_refusals_are_one_line_on_stderr_and_change_nothing(ip, capsys, line):
    session = load(ip)
    if line != "approve":
        digest = submit(session)
        line = line.format(upper=digest.upper(), short=digest[:12], digest=digest)
    before = session.snapshot()
    out, err = plan(ip, line, capsys)
    assert err.count("\n") == 1 and err.startswith("%plan ")
    assert session.snapshot() == before
    assert session.waiting_messages() == []


class Writes:
    """A stream that keeps each write apart: a kernel sends a flush's writes as one message, and
    may flush between two writes."""

    def __init__(self):
        self.writes = []

    def write(self, text):
        self.writes.append(text)

    def flush(self):
        pass


def test_each_line_the_magic_says_is_one_write(ip, monkeypatch):
    session = load(ip)
    out, err = Writes(), Writes()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    ip.run_line_magic("plan", "resolve c9")
    ip.run_line_magic("plan", "Clean sales.csv")
    ip.run_line_magic("plan", "status")
    monkeypatch.undo()
    assert err.writes == ["%plan resolve: nothing to resolve: there is no comment c9\n"]
    assert out.writes[0] == "Plan mode on; the agent has your task: Clean sales.csv\n"
    assert len(out.writes) == 2 and out.writes[1].endswith("\n"), out.writes
    assert session.snapshot().mode == "plan"


def test_revise_status_history_and_off(ip, capsys, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "analyst")  # the person, named for every reader
    session = load(ip)
    submit(session)
    plan(ip, "revise split the loading step", capsys)
    assert session.snapshot().pending_proposal_hash is None
    assert session.snapshot().mode == "plan"
    out, _ = plan(ip, "status", capsys)
    assert out == "Plan mode, revision 1: 0 of 1 steps marked complete\n"
    out, _ = plan(ip, "history 3", capsys)
    assert out.splitlines() == [
        "3. proposal " + session.events()[2].data["hash"][:12] + " waits for a decision",
        "4. proposal " + session.events()[2].data["hash"][:12] + ": changes requested by "
        "analyst with %plan",
        "5. message queued from the person by analyst with %plan: split the loading step",
    ]
    plan(ip, "off", capsys)
    assert session.snapshot().mode == "default"


def test_new_starts_a_fresh_session_and_says_so(ip, capsys):
    first = load(ip)
    submit(first)
    out, _ = plan(ip, "new", capsys)
    assert out == "Started a new plan session; earlier ones stay in the plan file.\n"
    second = jupyter_plans.current_session()
    assert second.session_id == "session-2" and second.snapshot().plan is None
    assert first.snapshot().plan is not None  # kept
    assert second.store.current_session_id() == "session-2"


def test_show_displays_the_card_text(ip, capsys):
    session = load(ip)
    submit(session)
    out, _ = plan(ip, "", capsys)
    assert "Plan (plan mode), revision 1: 0 of 1 steps marked complete" in out
    assert "[ ] load: Load the data" in out


def test_unload_removes_the_magic_the_hook_and_the_watcher(ip):
    session = load(ip)
    registry = ip.magics_manager.registry
    magics, agent_magics = registry["PlanMagics"], registry["AgentMagics"]
    card = magics.card()
    assert magics.after_cell in ip.events.callbacks["post_run_cell"]
    assert magics._followers == [agent_magics.after_decision]
    assert "agent" in ip.magics_manager.magics["cell"]
    ip.run_line_magic("agent", "")  # the first %agent attaches the agent (nothing to send)
    agent = agent_magics.current
    assert agent is not None
    assert agent in ip.configurables
    ip.run_line_magic("unload_ext", "jupyter_plans")
    assert "plan" not in ip.magics_manager.magics["line"]
    assert "agent" not in ip.magics_manager.magics["line"]
    assert "agent" not in ip.magics_manager.magics["cell"]
    assert not {"PlanMagics", "AgentMagics"} & set(ip.magics_manager.registry)
    assert magics.after_cell not in ip.events.callbacks["post_run_cell"]
    assert magics._followers == [] and agent not in ip.configurables
    assert agent_magics.current is None
    assert list(magics.watcher._cards) == [] and magics.store._listeners == []
    with pytest.raises(jupyter_plans.PlanStoreError, match="load the extension first"):
        jupyter_plans.current_session()
    del card
    ip.run_line_magic("load_ext", "jupyter_plans")  # and it loads again
    # A session held from before says what to do, not only that its store is closed.
    with pytest.raises(jupyter_plans.PlanStoreError) as held:
        session.snapshot()
    assert str(held.value).endswith(
        "is closed: the plan extension was unloaded; after %load_ext jupyter_plans, call "
        "jupyter_plans.current_session() again for the notebook's session"
    )
    assert jupyter_plans.current_session().snapshot().session_id == "default"


def test_the_card_shows_after_the_loading_cell_and_when_a_proposal_comes(ip, capsys):
    ip.config.PlanMagics.auto_display = True
    capsys.readouterr()
    ip.run_cell("%load_ext jupyter_plans\n%plan new")
    out = capsys.readouterr().out
    assert out.endswith("Plan (default mode): no plan yet\n")  # the new session's card
    session = jupyter_plans.current_session()
    ip.run_cell("1 + 1")
    assert "Plan (" not in capsys.readouterr().out
    submit(session)
    ip.run_cell("1 + 1")
    assert "Proposal " in capsys.readouterr().out
    ip.run_cell("1 + 1")
    assert "Proposal " not in capsys.readouterr().out  # shown once per proposal


def test_a_new_kernel_shows_the_card_and_the_news_without_loading_pydantic(tmp_path):
    """%load_ext in a fresh interpreter, on a notebook whose plan moved on since it was last
    shown: the news, the card and %plan status come out, and pydantic is never imported
    (the models load with the first call that returns one)."""
    import subprocess
    import sys

    from jupyter_plans.notebook.resume import remember_seen

    notebook = tmp_path / "analysis.ipynb"
    with PlanStore(tmp_path / "analysis.plans.sqlite") as store:
        session = store.session("default")
        steps = [{"id": "load", "description": "Load the data", "status": "completed"}]
        session.call_tool("update_plan", {"expected_revision": 0, "steps": steps})
        remember_seen(session, notebook.name, session.cursor())
        session.call_tool("record_decision", {"title": "Keep June", "rationale": "full month"})
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.user_ns['__session__'] = sys.argv[1]\n"
        "assert shell.run_cell('%load_ext jupyter_plans').success\n"
        "assert shell.run_cell('%plan status').success\n"
        "print('pydantic loaded:', 'pydantic.main' in sys.modules)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(notebook)], capture_output=True, text=True, check=True
    )
    assert "Since you last looked (event 1): 1 event." in run.stdout
    assert "agent recorded a decision: Keep June" in run.stdout
    assert "[x] load: Load the data" in run.stdout  # the card, as text
    assert "Default mode, revision 1: 1 of 1 steps marked complete" in run.stdout
    assert run.stdout.strip().endswith("pydantic loaded: False"), run.stdout
