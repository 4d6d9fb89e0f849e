"""Who decided, with two people on one JupyterLab (DESIGN section 12): a server whose identity
provider knows alice and bob by their tokens, each in a browser of their own. Alice approves
in the Plan panel, bob on the live card in the notebook; each decision names its person and
where, and each page's panel says so as it happens."""

import json
import shutil

import pytest

from tests.e2e.browser import CHROMIUM, require_chromium
from tests.e2e.notebook_page import agent_session, open_notebook, open_panel, run_cells
from tests.helpers.plans import PROPOSAL, RESUBMITTED
from tests.jupyter_process import jupyter

# Loaded by the server from its root folder (its working directory): two people, one token each.
IDENTITY = """
from jupyter_server.auth.identity import IdentityProvider, User

PEOPLE = {"alice-token": "alice", "bob-token": "bob"}


class TwoPeople(IdentityProvider):
    # A person signs in once with their token in the address; their cookie says who they are
    # from then on. The server's own token (every JupyterLab page sends it) names nobody where
    # a person's cookie came with it.
    def get_user_token(self, handler):
        token = handler.get_argument("token", "") or self.get_token(handler) or ""
        if token in PEOPLE:
            return User(username=PEOPLE[token])
        if token == self.token and self.get_user_cookie(handler) is None:
            return User(username="host")
        return None
"""


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    require_chromium()
    root = tmp_path_factory.mktemp("team")
    (root / "two_people.py").write_text(IDENTITY)
    settings = root / ".settings"
    settings.mkdir()
    quiet = {"checkForUpdates": False, "fetchNews": "false"}
    overrides = {"@jupyterlab/apputils-extension:notification": quiet}
    (settings / "overrides.json").write_text(json.dumps(overrides))
    options = (
        "--ServerApp.identity_provider_class=two_people.TwoPeople",
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
    )
    found = {"PYTHONPATH": str(root)}  # where the server finds two_people.py
    with jupyter("lab", root, "server-token", *options, log=root / "lab.log", env=found) as (
        _,
        base,
    ):
        yield {"base": base, "root": root}
    shutil.rmtree(root / ".workspaces", ignore_errors=True)


@pytest.fixture
def browsers():
    """A page for alice and one for bob: two browser contexts, so two sets of cookies."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        pages = {}
        for person in ("alice", "bob"):
            context = browser.new_context(viewport={"width": 1300, "height": 1400})
            pages[person] = context.new_page()
        yield pages
        browser.close()


def decisions(session) -> list[dict]:
    return [e.data for e in session.events() if e.kind == "decision"]


def test_two_people_each_decision_names_who_and_where(team, browsers):
    alice, bob = browsers["alice"], browsers["bob"]
    session = agent_session(team["root"], "team")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    first = session.snapshot().pending_proposal_hash

    # Alice approves in the Plan panel.
    open_notebook(alice, {**team, "token": "alice-token"}, "team.ipynb")
    identity = "() => window.jupyterapp.serviceManager.user.ready.then(() =>"
    identity += " window.jupyterapp.serviceManager.user.identity.username)"
    assert alice.evaluate(identity) == "alice"
    alices_panel = open_panel(alice)
    alices_panel.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    alices_panel.get_by_role("button", name="Approve").click()
    approved = alices_panel.locator(".jp-plans-approved")
    approved.wait_for(timeout=10_000)
    assert approved.text_content().endswith(f"approved {first[:12]} by alice in the panel")
    assert decisions(session) == [
        {"action": "approved", "hash": first, "by": {"name": "alice", "via": "panel"}}
    ]

    # The agent proposes again; bob approves on the live card in his own page.
    session.on()
    assert not session.call_tool("plan_submit", RESUBMITTED, turn_id="t2").is_error
    second = session.snapshot().pending_proposal_hash
    open_notebook(bob, {**team, "token": "bob-token"}, "team.ipynb")
    assert bob.evaluate(identity) == "bob"
    run_cells(bob, 0, 0)
    card = bob.locator(".jp-OutputArea .jp-plans-card").first
    card.get_by_text("Waiting for your decision").wait_for(timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    card.get_by_text("Waiting for your decision").wait_for(state="detached", timeout=10_000)
    assert decisions(session)[-1] == {
        "action": "approved",
        "hash": second,
        "by": {"name": "bob", "via": "card"},
    }
    # The kernel's own person is neither of them: the name came from bob's page.
    assert card.locator(".jp-plans-approved").text_content().endswith("by bob on the card")

    # Alice's panel, live, says who approved the second proposal and where.
    alice.wait_for_function(
        """(expected) => {
            const line = document.querySelector('#jupyter-plans-panel .jp-plans-approved');
            return line !== null && line.textContent.endsWith(expected);
        }""",
        arg=f"approved {second[:12]} by bob on the card",
        timeout=10_000,
    )
    # The person a saved output or a nbval run shows is never in the card's text/plain.
    text = bob.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets[0].model
                  .outputs.toJSON().map(o => (o.data || {})['text/plain'] || '').join('')"""
    )
    assert "bob" not in text and "alice" not in text
