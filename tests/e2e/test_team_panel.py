"""A team's plan in PostgreSQL (DESIGN section 16), in a real JupyterLab configured once with
--JupyterPlansApp.database and a session per notebook path, and Chromium: the live card, the
Plan panel and a card whose kernel is gone all show that plan and decide on it, and no plan
file appears beside the notebook."""

import pytest

from jupyter_plans import PlanStore
from tests.e2e.browser import launch, require_chromium
from tests.e2e.lab_actions import CARDS, shut_down_kernel
from tests.e2e.notebook_page import loading_notebook, open_notebook, open_panel, run_cells
from tests.engines import postgres_schema
from tests.helpers.plans import PROPOSAL, RESUBMITTED
from tests.jupyter_process import jupyter_lab

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def team_lab(tmp_path_factory):
    require_chromium()
    root = tmp_path_factory.mktemp("team-lab")
    with postgres_schema() as url:
        options = (
            f"--JupyterPlansApp.database={url}",
            "--JupyterPlansApp.session_id={notebook_path}",
        )
        token = "plans-e2e-token"
        with jupyter_lab(root, token, *options) as base:
            yield {"base": base, "token": token, "root": root, "database": url}


@pytest.fixture
def team_page(team_lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(viewport={"width": 1100, "height": 2400})
        yield context.new_page()
        browser.close()


def test_the_panel_and_a_card_whose_kernel_is_gone_decide_on_the_teams_plan(team_page, team_lab):
    page, root = team_page, team_lab["root"]
    (root / "q3").mkdir()
    loading_notebook(root / "q3", "sales.ipynb")
    with PlanStore(team_lab["database"]) as store:
        agent = store.session("q3/sales.ipynb")  # an agent elsewhere, on the team's database
        agent.on()
        assert not agent.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
        waiting = agent.snapshot().pending_proposal_hash

        # The live card and the Plan panel show the team's plan, waiting.
        open_notebook(page, team_lab, "q3/sales.ipynb")
        run_cells(page, 0, 0)
        card = page.locator(CARDS).first
        card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
        panel = open_panel(page)
        panel.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
        assert panel.locator(".jp-plans-hash").first.inner_text() == waiting[:12]

        # Approved in the panel: in the team's database, by the panel.
        panel.get_by_role("button", name="Approve").click()
        panel.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
        snapshot = agent.snapshot()
        assert (snapshot.mode, snapshot.approved_proposal_hash) == ("default", waiting)
        card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)

        # The kernel is gone; the agent proposes again; the card decides through the server.
        shut_down_kernel(page)
        card.locator(".jp-plans-notice-server").wait_for(timeout=10_000)
        agent.on()
        assert not agent.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error
        again = agent.snapshot().pending_proposal_hash
        card.get_by_text("Fit one baseline per store").wait_for(timeout=10_000)
        card.get_by_role("button", name="Approve").click()
        card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
        snapshot = agent.snapshot()
        assert (snapshot.mode, snapshot.approved_proposal_hash) == ("default", again)
        vias = [e.data["by"]["via"] for e in agent.events() if e.kind == "decision"]
        assert vias == ["panel", "card"]
        assert [s["session_id"] for s in store.sessions()] == ["q3/sales.ipynb"]
    assert sorted(p.name for p in (root / "q3").iterdir() if not p.name.startswith(".")) == [
        "sales.ipynb"
    ]
