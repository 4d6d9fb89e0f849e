"""Steps that check themselves (DESIGN section 17) in a real kernel: an approved check runs at
the end of the cell after its step was completed (here by another process, as an MCP agent
would), once; a raising check and a check stopped after 10 s fail without breaking the cell; an
unapproved check never runs by itself; `%plan check` runs them when the person asks."""

from __future__ import annotations

import time

from jupyter_plans import PlanStore
from tests.notebook.kernel import execute as run
from tests.notebook.kernel import printed
from tests.waiting import wait_until

PLAN = {
    "explanation": "Clean the prices, then fit",
    "findings": [],
    "objectives": ["A baseline"],
    "steps": [
        {"id": "clean", "description": "Drop rows with no price", "check": "missing == 0"},
        {"id": "boom", "description": "A check that raises", "check": "1 / 0"},
        {
            "id": "spy",
            "description": "A check that leaves a mark",
            "check": "ran.append(1) or True",
        },
        {"id": "chart", "description": "Chart it", "check": "True"},
    ],
}


def execute(client, code, cell_id=None):
    """Run code as a notebook front end does; (what it printed, its reply's content)."""
    messages, reply = run(client, code, cell_id)
    return printed(messages), reply


def start(kernel, tmp_path, approve=True, plan=PLAN):
    """The extension loaded in the kernel, the plan proposed (and approved, unless not)."""
    notebook = tmp_path / "prices.ipynb"
    execute(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans", "load")
    code = (
        "import jupyter_plans\nsession = jupyter_plans.current_session()\nran = []\n"
        f"session.on()\nsession.call_tool('plan_submit', {plan!r})\n"
    )
    _, reply = execute(kernel, code + ("_ = session.approve()" if approve else ""), "setup")
    assert reply["status"] == "ok"
    return tmp_path / "prices.plans.sqlite"


def complete(plan_file, *ids, **changes):
    """Another process (an agent over MCP) marks steps completed, changing checks as told."""
    with PlanStore(plan_file) as store:
        session = store.session()
        plan = session.snapshot().plan.model_dump()
        for step in plan["steps"]:
            if step["id"] in ids:
                step["status"] = "completed"
            step["check"] = changes.get(step["id"], step["check"])
        args = {"expected_revision": plan["revision"], "steps": plan["steps"]}
        result = session.call_tool("update_plan", {**args, "objectives": plan["objectives"]})
        assert not result.is_error, result.content


def checks(plan_file, want=lambda found: True):
    def read():
        with PlanStore(plan_file) as store:
            found = store.session().snapshot().model_dump(mode="json")["checks"]
        return found if want(found) else None

    return wait_until(read, "the checks recorded after the cell")


def test_an_approved_check_runs_at_the_end_of_the_next_cell_once(kernel, tmp_path):
    plan_file = start(kernel, tmp_path)
    execute(kernel, "missing = 3", "c1")
    complete(plan_file, "clean", "boom")
    printed, reply = execute(kernel, "print('the cell ran')\n'its value'", "c2")
    # The cell's result stands; then each check said in one line, the raising one its error.
    assert reply["status"] == "ok"
    assert printed == (
        "the cell ran\n"
        "check clean: failed: False\n"
        "check boom: failed: ZeroDivisionError: division by zero\n"
    )
    found = checks(plan_file, lambda c: c["boom"]["status"] == "failed")
    count = reply["execution_count"]
    assert found["clean"] == {
        "status": "failed",
        "value": "False",
        "error": None,
        "execution_count": count,
        "seq": found["clean"]["seq"],
    }
    assert found["boom"]["error"] == "ZeroDivisionError: division by zero"
    assert found["chart"]["status"] == "not_run"  # not completed: not due
    # Not due again until its step is completed again.
    printed, _ = execute(kernel, "missing = 0", "c3")
    assert printed == ""
    # %plan check STEP runs it now, because the person asked; the line says how it went.
    printed, reply = execute(kernel, "%plan check clean", "c4")
    assert printed == "clean: passed\n"
    found = checks(plan_file, lambda c: c["clean"]["status"] == "passed")
    assert found["clean"]["execution_count"] == reply["execution_count"]
    # And `all`: one line per step with a check, nothing else.
    printed, _ = execute(kernel, "%plan check all", "c5")
    lines = "clean: passed\nboom: failed: ZeroDivisionError: division by zero\n"
    assert printed == lines + "spy: not run\nchart: not run\n"


def test_code_run_inside_a_cell_does_not_end_it(kernel, tmp_path):
    """The built-in agent runs code inside its cell: the checks run when the cell itself ends."""
    plan_file = start(kernel, tmp_path)
    complete(plan_file, "clean")
    code = (
        "get_ipython().run_cell('missing = 0', store_history=False)\nprint('after the inner run')"
    )
    printed, _ = execute(kernel, "missing = 1\n" + code, "outer")
    assert printed == "after the inner run\ncheck clean: passed\n"
    assert checks(plan_file, lambda c: c["clean"]["status"] == "passed")


def test_an_unapproved_check_never_runs_by_itself(kernel, tmp_path):
    plan_file = start(kernel, tmp_path, approve=False)  # proposed, never approved
    complete(plan_file, "spy", "chart")
    printed, _ = execute(kernel, "x = 1", "c1")
    printed += execute(kernel, "x = 2", "c2")[0]
    assert printed == ""
    assert execute(kernel, "print(ran)", "c3")[0] == "[]\n"  # its code did not run
    assert {step: c["status"] for step, c in checks(plan_file).items()} == dict.fromkeys(
        ("clean", "boom", "spy", "chart"), "unapproved"
    )
    printed, _ = execute(kernel, "%plan check all", "c4")
    assert printed == "clean: unapproved\nboom: unapproved\nspy: unapproved\nchart: unapproved\n"
    assert execute(kernel, "print(ran)", "c5")[0] == "[]\n"
    # The person asks for one by its position: it runs, and stays unapproved.
    assert execute(kernel, "%plan check 3", "c6")[0] == "spy: passed\n"
    assert execute(kernel, "print(ran)", "c7")[0] == "[1]\n"
    assert checks(plan_file)["spy"]["status"] == "unapproved"


def test_a_check_changed_after_the_approval_is_not_run(kernel, tmp_path):
    plan_file = start(kernel, tmp_path)
    complete(plan_file, "spy", "chart", spy="ran.append(2) or True")
    printed, _ = execute(kernel, "x = 1", "c1")
    assert printed == "check chart: passed\n"  # the approved one ran; the changed one did not
    assert execute(kernel, "print(ran)", "c2")[0] == "[]\n"
    assert checks(plan_file)["spy"]["status"] == "unapproved"


def test_a_check_is_stopped_after_10_seconds_and_the_cell_stands(kernel, tmp_path):
    slow = [{**PLAN["steps"][3], "check": "__import__('time').sleep(60) or True"}]
    plan_file = start(kernel, tmp_path, plan={**PLAN, "steps": PLAN["steps"][:3] + slow})
    complete(plan_file, "chart")
    started = time.monotonic()
    printed, reply = execute(kernel, "print('the cell ran')", "c1")
    took = time.monotonic() - started
    assert reply["status"] == "ok"
    stopped = "TimeoutError: the check ran for 10 s and was stopped"
    assert printed == f"the cell ran\ncheck chart: failed: {stopped}\n"
    assert 9.5 < took < 40, took
    found = checks(plan_file, lambda c: c["chart"]["status"] == "failed")
    assert found["chart"]["error"] == stopped
    # The kernel goes on as before, and its own alarms are its own again.
    printed, reply = execute(kernel, "import signal\nprint(signal.getitimer(signal.ITIMER_REAL))")
    assert (printed, reply["status"]) == ("(0.0, 0.0)\n", "ok")


def test_a_check_run_off_the_main_thread_is_stopped_too():
    """Code may call run_check from a thread of its own: no signal reaches it there, so the
    check is stopped by an exception raised in that thread."""
    import threading
    import types

    from jupyter_plans.notebook.checks import CheckRunner
    from jupyter_plans.plan.checks import CheckRun

    namespace = {"spin": lambda: [None for _ in iter(int, 1)]}  # never returns by itself
    shell = types.SimpleNamespace(user_ns=namespace, user_global_ns=namespace)
    runner = CheckRunner(shell, lambda: None, seconds=0.5)
    found = []
    thread = threading.Thread(target=lambda: found.append(runner.evaluate("spin()")))
    started = time.monotonic()
    thread.start()
    thread.join(30)
    assert found == [CheckRun(False, None, "TimeoutError: the check ran for 0.5 s and was stopped")]
    assert time.monotonic() - started < 10
