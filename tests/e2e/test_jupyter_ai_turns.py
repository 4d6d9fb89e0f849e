"""Turn after turn in Jupyter AI's chat, with each real agent (DESIGN section 10, "the card and the
chat tell the same truth"): JupyterLab with Jupyter AI 3.2, the persona in front of the real
claude-agent-acp 0.101 or codex-acp 2.6, a stand-in of the model, Chromium. Plan mode from the
chat's own mode menu; the agent's edit refused, and shown refused in the chat; the proposal
approved on the card, its request closed in the chat; "Thanks!" with the menu still on Plan
leaves the session out of plan mode; a second task, a comment on a step of its proposal,
approved with the comment, the step reworded by the agent keeps it ("on an earlier wording");
a reload keeps one chat on one agent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from tests.agents.acp.dialects import PLAN
from tests.agents.acp.real import CLAUDE_0_101, CODEX_2_6, RealAgent
from tests.e2e.jupyter_ai import (
    bridges_and_agents,
    browser,
    chat,
    chat_lab,
    open_chat,
    open_lab,
    open_the_notebook,
    send,
)
from tests.e2e.lab_actions import run_new_cell

TIMEOUT = 120_000  # a turn of the real agent, in milliseconds
AGENTS = {"claude-0.101": CLAUDE_0_101, "codex-2.6": CODEX_2_6}
SHOTS = Path(__file__).parents[2] / "build" / "screenshots" / "jupyter-ai-turns"

pytestmark = pytest.mark.real_agents  # the real adapters, besides Jupyter AI


SECOND = ["Read the sales data", "Drop empty rows", "Plot monthly medians"]
REWORDED = [*SECOND[:2], "Plot the monthly medians by region"]
PLAN_2 = PLAN.replace("monthly totals", "monthly medians")
COMMENT = "Per region, please"


def script(agent: RealAgent, cwd: Path) -> list:
    dialect = agent.dialect
    return [
        *dialect.say("Hi."),
        *dialect.load("ExitPlanMode", "TodoWrite"),
        *dialect.edit(cwd),  # refused: plan mode
        *dialect.propose(),
        *dialect.say("Starting with the data."),
        *dialect.say("You are welcome."),
        # The second task, in plan mode again; approved with a comment the agent follows.
        *(dialect.todos(SECOND) if dialect.todos_in_plan_mode else []),
        *dialect.propose(PLAN_2),
        *dialect.todos(REWORDED),
        *dialect.say("Plotting by region."),
        *dialect.say("Going on."),
    ]


def card(page):
    """The notebook's live card (a card it showed before plan mode began is superseded)."""
    return page.locator(".jp-Notebook .jp-plans-card").last


def choose_plan_in_the_menu(page) -> None:
    """The chat's own mode menu (Claude: Mode; Codex: Collaboration mode), under More controls:
    its Plan item."""
    page.locator(".jp-jai-personaControls-overflow-btn").click()
    page.get_by_role("menuitem", name=re.compile(r"^Plan\b")).first.click()
    page.keyboard.press("Escape")


def session_modes(root: Path) -> list[str]:
    with PlanStore(root / "analysis.plans.sqlite") as store:
        return [e.data["mode"] for e in store.session().events() if e.kind == "mode_changed"]


@pytest.mark.parametrize("name", list(AGENTS))
def test_turn_after_turn_in_jupyter_ais_chat(name, tmp_path):
    agent = AGENTS[name]
    cwd = tmp_path / "root"
    with chat_lab(tmp_path, script(agent, cwd), agent) as lab, browser() as page:
        try:
            turns(page, lab, agent, cwd)
        except BaseException:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{name}-where-it-failed.png"))
            raise


def turns(page, lab, agent: RealAgent, cwd: Path) -> None:
    # The notebook shows its card, and leaves plan mode to the chat.
    notebook = json.loads((lab["root"] / "analysis.ipynb").read_text(encoding="utf-8"))
    notebook["cells"][0]["source"] = "%load_ext jupyter_plans\n%plan"
    (lab["root"] / "analysis.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    open_lab(page, lab)
    open_the_notebook(page)
    # The chat named after the notebook keeps its plan; the first message starts the agent.
    open_chat(page, "jupyterlab-chat:createAndOpen", "{name: 'analysis', inSidePanel: true}")
    send(page, "Hello")
    chat(page).get_by_text("Hi.").wait_for(timeout=TIMEOUT)

    # Plan from the chat's mode menu, then the task.
    choose_plan_in_the_menu(page)
    send(page, "Clean the sales data")
    card(page).get_by_text("Waiting for your decision").wait_for(timeout=TIMEOUT)
    assert session_modes(lab["root"]) == ["plan"]
    # The edit the guard refused shows refused in the chat, not still at work.
    chat(page).locator(".jp-jupyter-ai-acp-client-tool-call-failed").first.wait_for(timeout=30_000)
    assert not (cwd / "x.txt").exists()

    # Approve on the card: the chat's request is closed (its buttons give way to the answer).
    card(page).get_by_role("button", name="Approve").click()
    card(page).locator(".jp-plans-approved").wait_for(timeout=30_000)
    chat(page).get_by_text("Starting with the data.").wait_for(timeout=TIMEOUT)
    buttons = chat(page).locator(".jp-jupyter-ai-acp-client-permission-buttons")
    buttons.first.wait_for(state="detached", timeout=30_000)

    # "Thanks!", the menu still on Plan: no switch; the session stays out of plan mode.
    send(page, "Thanks!")
    chat(page).get_by_text("You are welcome.").wait_for(timeout=TIMEOUT)
    assert session_modes(lab["root"]) == ["plan", "default"]
    assert "PLAN MODE" not in card(page).inner_text()

    # A second task, plan mode from the notebook; a comment on a step of its proposal.
    run_new_cell(page, "%plan on")
    send(page, "Now plot the medians")
    card(page).get_by_text("Waiting for your decision").wait_for(timeout=TIMEOUT)
    step = card(page).locator(".jp-plans-step", has_text=SECOND[2]).first
    step_id = step.get_attribute("data-step-id")
    card(page).get_by_role("button", name=f"Comment on step {step_id}").click()
    card(page).locator("textarea").fill(COMMENT)
    card(page).locator("textarea").press("Control+Enter")
    card(page).get_by_text(COMMENT).wait_for(timeout=30_000)
    # Approved with the comment; the agent rewords that step as it follows it: the same step,
    # its comment now on an earlier wording.
    card(page).get_by_role("button", name="Approve").click()
    chat(page).get_by_text("Plotting by region.").wait_for(timeout=TIMEOUT)
    card(page).get_by_text(f"on an earlier wording: {SECOND[2]}").wait_for(timeout=30_000)
    card(page).get_by_text(REWORDED[2]).wait_for(timeout=30_000)
    with PlanStore(lab["root"] / "analysis.plans.sqlite") as store:
        session = store.session()
        approved = [e.data for e in session.events() if e.kind == "decision"][-1]
        assert (approved["action"], approved["comments"]) == ("approved", ["c1"])
        (comment,) = session.snapshot().comments
        assert comment.step_id == step_id
    assert session_modes(lab["root"]) == ["plan", "default", "plan", "default"]

    # A reload: the same chat goes on with its one agent, still out of plan mode.
    page.reload()
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started")
    open_chat(page, "jupyterlab-chat:open", "{filepath: 'analysis.chat', inSidePanel: true}")
    send(page, "Go on")
    chat(page).get_by_text("Going on.").wait_for(timeout=TIMEOUT)
    assert session_modes(lab["root"]) == ["plan", "default", "plan", "default"]
    assert bridges_and_agents(lab["server"].pid, agent) == (1, 1)
