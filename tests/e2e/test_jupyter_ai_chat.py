"""The journey in Jupyter AI's chat (DESIGN section 10, "the card and the chat tell the same
truth"): JupyterLab with Jupyter AI 3.2, the persona "Claude with plans" in front of the real
claude-agent-acp 0.101, a stand-in of the model, Chromium. The person turns plan mode on in the
notebook, attaches the notebook to a chat and asks for a plan; the proposal on the card is the
plan in the chat; Request changes on the card; the next message brings a new proposal;
Approve on the card; the agent's edit asks in the chat. After each step the card says what the
agent is doing, and nothing it is not. A page reload keeps one chat on one session and one
agent process."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.agents.acp.dialects import CLAUDE_DEFERRED as CLAUDE
from tests.agents.acp.dialects import PLAN, STEPS
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

SHOTS = Path(__file__).parents[2] / "build" / "screenshots" / "jupyter-ai-chat"
SECOND = ["Read the sales data", "Drop empty rows", "Plot monthly medians"]
PLAN_2 = PLAN.replace("monthly totals", "monthly medians").replace(
    "3. Plot monthly totals", "3. Plot monthly medians"
)
NOTES = "Plot the medians, not the totals"
TIMEOUT = 120_000  # a turn of the real agent, in milliseconds

pytestmark = pytest.mark.real_agents  # the real claude-agent-acp, besides Jupyter AI


def script(cwd: Path) -> list:
    return [
        *CLAUDE.load("TodoWrite", "ExitPlanMode"),
        *CLAUDE.todos(STEPS, started=0),
        *CLAUDE.edit(cwd),  # refused: plan mode
        *CLAUDE.propose(PLAN),
        # The person asked for changes; their next message:
        *CLAUDE.todos(SECOND),
        *CLAUDE.propose(PLAN_2),
        # Approved on the card: edits ask in the chat.
        *CLAUDE.edit(cwd, "clean.py", "import pandas"),
        *CLAUDE.say("clean.py is written."),
        *CLAUDE.say("You are welcome."),
    ]


def card(page):
    return page.locator(".jp-Notebook .jp-plans-card").first


def banner_text(page) -> str:
    found = card(page).locator(".jp-plans-banner")
    return found.first.inner_text() if found.count() else ""


def shot(page, shots: list[Path], name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{len(shots) + 1:02d}-{name}.png"
    page.screenshot(path=str(path))
    shots.append(path)


def card_steps(page) -> list[str]:
    """The proposal's steps on the card (a step it removed since the last one is shown too)."""
    steps = card(page).locator(".jp-plans-step:not(.jp-plans-change-removed) .jp-plans-step-desc")
    return [s.strip() for s in steps.all_inner_texts()]


def plan_in_chat(page) -> list[str]:
    """The list of the newest plan the agent asks to approve in the chat."""
    text = chat(page).inner_text()
    newest = text.rsplit("Approve Plan", 1)[-1]
    return re.findall(r"^\s*\d\.\s+(.+?)\s*$", newest, flags=re.MULTILINE)[:3]


def test_planning_with_claude_code_in_jupyter_ais_chat(tmp_path):
    shots: list[Path] = []
    shutil.rmtree(SHOTS, ignore_errors=True)  # this run's screenshots only
    cwd = tmp_path / "root"
    with chat_lab(tmp_path, script(cwd)) as lab, browser() as page:
        try:
            journey(page, lab, cwd, shots)
        except BaseException:
            shot(page, shots, "where-it-failed")
            raise


def journey(page, lab, cwd: Path, shots: list[Path]) -> None:
    if True:
        open_lab(page, lab)
        # Plan mode in the notebook, before any agent.
        open_the_notebook(page)
        card(page).get_by_text("Plan mode waits for an agent").wait_for(timeout=30_000)
        assert "researching" not in banner_text(page)
        shot(page, shots, "plan-mode-waits-for-an-agent")

        # A chat of another name, the notebook attached to its first message.
        open_chat(page, "jupyterlab-chat:createAndOpen", "{name: 'journey', inSidePanel: true}")
        page.get_by_role("button", name="Add attachment").click()
        dialog = page.locator(".jp-Dialog")
        dialog.get_by_text("analysis.ipynb").click()
        dialog.get_by_role("button", name="Select").click()
        dialog.wait_for(state="detached")
        send(page, "Clean the sales data")
        chat(page).get_by_text("keeps the agent's plan on the card of").wait_for(timeout=TIMEOUT)
        card(page).get_by_text("Waiting for your decision").wait_for(timeout=TIMEOUT)
        page.get_by_role("button", name="Yes, manually approve edits").wait_for(timeout=30_000)
        # The proposal on the card is the plan in the chat, in the plan's own words.
        assert card_steps(page) == STEPS
        assert plan_in_chat(page) == STEPS
        assert "Write x.txt" in chat(page).inner_text()  # refused, and shown so in the chat
        assert not (cwd / "x.txt").exists()
        shot(page, shots, "the-proposal-on-the-card-is-the-plan-in-the-chat")

        # Request changes on the card: the turn is over; the agent waits for the chat.
        card(page).get_by_role("button", name="Request changes…").click()
        card(page).locator("textarea").fill(NOTES)
        card(page).get_by_role("button", name="Send").click()
        card(page).get_by_text("Claude Code waits for your next message in the chat.").wait_for(
            timeout=TIMEOUT
        )
        assert "researching" not in banner_text(page)
        assert NOTES in card(page).inner_text()
        shot(page, shots, "after-request-changes-the-agent-waits-for-the-chat")

        # The next message: the notes go with it; a new proposal.
        send(page, "Go on")
        card(page).get_by_text("Waiting for your decision").wait_for(timeout=TIMEOUT)
        page.wait_for_function(
            "(steps) => Array.from(document.querySelectorAll("
            "'.jp-Notebook .jp-plans-step:not(.jp-plans-change-removed) .jp-plans-step-desc'))"
            ".map(e => e.textContent.trim()).join('|') === steps",
            arg="|".join(SECOND),
            timeout=TIMEOUT,
        )
        assert plan_in_chat(page) == SECOND
        assert NOTES in str(lab["model"].turns()[-1].body)
        shot(page, shots, "the-second-proposal")

        # Approve on the card: the agent goes on, and its edit asks in the chat.
        card(page).get_by_role("button", name="Approve").click()
        card(page).locator(".jp-plans-approved").wait_for(timeout=30_000)
        page.get_by_role("button", name="Yes", exact=True).wait_for(timeout=TIMEOUT)
        assert "Write clean.py" in chat(page).inner_text()
        card(page).locator(".jp-plans-chip-agent").get_by_text("default: edits ask").wait_for(
            timeout=30_000
        )
        assert "DEFAULT MODE" not in card(page).inner_text()
        assert not (cwd / "clean.py").exists()
        shot(page, shots, "approved-on-the-card-the-edit-asks-in-the-chat")
        page.get_by_role("button", name="Yes", exact=True).click()
        chat(page).get_by_text("clean.py is written.").wait_for(timeout=TIMEOUT)
        assert (cwd / "clean.py").read_text().strip() == "import pandas"
        assert bridges_and_agents(lab["server"].pid) == (1, 1)
        # The Plan panel says the agent's mode as the card does.
        page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
        panel = page.locator("#jupyter-plans-panel")
        panel.locator(".jp-plans-chip-agent").get_by_text("default: edits ask").wait_for(
            timeout=30_000
        )
        shot(page, shots, "the-edit-allowed-in-the-chat")

        # A page reload: the same chat goes on in its one session, with one agent process.
        page.reload()
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started")
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=30_000)
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel",
            timeout=60_000,
        )
        open_chat(page, "jupyterlab-chat:open", "{filepath: 'journey.chat', inSidePanel: true}")
        send(page, "Thanks")
        run_new_cell(page, "%plan")
        # Claude Code comes back in its own first mode (auto) for the session it continues:
        # the bridge gives it the mode that asked, and the card says so.
        card(page).get_by_text("default: edits ask").wait_for(timeout=TIMEOUT)
        chat(page).get_by_text("You are welcome.").wait_for(timeout=TIMEOUT)
        assert bridges_and_agents(lab["server"].pid) == (1, 1)
        # The same conversation: the agent's session went on, with what was said before it.
        assert "Clean the sales data" in str(lab["model"].turns()[-1].body)
        shot(page, shots, "after-a-reload-one-session-one-agent")
