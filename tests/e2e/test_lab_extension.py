"""The JupyterLab extension in a real JupyterLab and Chromium: saved cards, the live Plan panel,
decisions from the panel, and hostile model text kept inert everywhere."""

import subprocess
import sys
from pathlib import Path

from jupyter_plans import PlanStore
from tests.e2e.lab_actions import save_card_output
from tests.e2e.notebook_page import loading_notebook, open_notebook, run_cells

HOSTILE = {
    "img": "<img src=x onerror=alert(1)>",
    "script": "<script>alert(2)</script>",
    "link": '<a href="javascript:alert(3)">click</a>',
    "md": "[click](javascript:alert(4))",
}
CLI = str(Path(sys.executable).with_name("jupyter-plans"))


def hostile_session(path):
    """A session whose every model-text field holds markup that must stay text."""
    session = PlanStore(path).session("default")
    session.on()
    proposal = {
        "explanation": HOSTILE["script"],
        "findings": [HOSTILE["img"], HOSTILE["md"]],
        "objectives": [HOSTILE["link"]],
        "phases": [
            {
                "title": HOSTILE["img"],
                "steps": [
                    {"id": "a", "description": HOSTILE["img"], "acceptance": HOSTILE["script"]},
                    {"id": "b", "description": HOSTILE["link"], "depends_on": ["a"]},
                ],
            }
        ],
    }
    assert not session.call_tool("plan_submit", proposal, turn_id="t1").is_error
    decision = {"title": HOSTILE["script"], "rationale": HOSTILE["img"], "sources": [HOSTILE["md"]]}
    assert not session.call_tool("record_decision", decision, turn_id="t1").is_error
    return session


def assert_inert(page, scope, dialogs):
    page.wait_for_timeout(500)  # on purpose: an injected element's handler would have run
    assert dialogs == []
    assert scope.locator("img, script, a[href^='javascript']").count() == 0
    text = scope.inner_text()
    for markup in (HOSTILE["img"], HOSTILE["script"], HOSTILE["link"]):
        assert markup in text


def test_a_saved_notebook_shows_its_cards_without_a_kernel(page, lab, dialogs):
    root = lab["root"]
    session = hostile_session(root / "scratch-saved.plans.sqlite")
    save_card_output(root, "saved", session)  # no kernelspec: no kernel is started
    page.goto(f"{lab['base']}/lab/tree/saved.ipynb?token={lab['token']}")
    card = page.locator(".jp-NotebookPanel:visible .jp-OutputArea .jp-plans-card").first
    card.get_by_text("Waiting for your decision").wait_for(timeout=60_000)
    assert card.get_by_role("button", name="Approve").count() == 0  # as it was: no buttons
    assert_inert(page, card, dialogs)


def test_the_panel_follows_other_processes_and_decides(page, lab, dialogs):
    root = lab["root"]
    loading_notebook(root, "panel.ipynb")
    plan_file = root / "panel.plans.sqlite"
    session = hostile_session(plan_file)
    open_notebook(page, lab, "panel.ipynb")
    run_cells(page, 0, 0)  # the kernel's own card of the same session
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator("#jupyter-plans-panel")
    panel.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    assert_inert(page, panel, dialogs)

    # Another process (the CLI) asks for changes and the agent re-submits: the panel follows.
    subprocess.run(
        [CLI, "plan", "--db", str(plan_file), "--session", "default", "revise", "add a check"],
        check=True,
    )
    revised = {
        "explanation": "plain now",
        "findings": [],
        "objectives": ["a chart"],
        "steps": [{"id": "check", "description": "Check the totals"}],
    }
    assert not session.call_tool("plan_submit", revised, turn_id="t2").is_error
    panel.get_by_text("Check the totals").wait_for(timeout=10_000)

    panel.get_by_role("button", name="Approve").click()
    panel.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    assert session.snapshot().mode == "default"
    assert session.snapshot().approved_proposal_hash is not None
    kernel_card = page.locator(".jp-NotebookPanel:visible .jp-OutputArea .jp-plans-card").first
    kernel_card.get_by_text("Check the totals").wait_for(timeout=10_000)
    kernel_card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
