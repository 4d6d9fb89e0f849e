"""Approving from the command palette in a real JupyterLab and Chromium: the dialog shows the
waiting proposal, and only the hash it showed is approved."""

import json
from pathlib import Path

from jupyter_plans.plan.who import local_person
from tests.e2e.lab_actions import run_new_cell
from tests.e2e.notebook_page import loading_notebook, open_notebook, run_cells
from tests.helpers.cli import run as cli
from tests.helpers.plans import PROPOSAL, RESUBMITTED


def submit(plan_file: Path, proposal: dict) -> str:
    """The agent, in another process, submits PROPOSAL; returns the waiting hash."""
    done = cli(
        "call", "--db", str(plan_file), "--session", "default", "plan_submit", json.dumps(proposal)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return snapshot(plan_file)["pending_proposal_hash"]


def snapshot(plan_file: Path) -> dict:
    done = cli("snapshot", "--db", str(plan_file), "--session", "default")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def decisions(plan_file: Path) -> list[dict]:
    done = cli("events", "--db", str(plan_file), "--session", "default")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [event["data"] for event in events if event["kind"] == "decision"]


def refusal_of(plan_file: Path, hash: str) -> str:
    """The one line the store gives for approving HASH now, as the CLI prints it (refused,
    it changes nothing): the server's decision route answers with the same line."""
    done = cli("plan", "--db", str(plan_file), "--session", "default", "approve", hash)
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stderr.strip().removeprefix("jupyter-plans: ")


def focus_notebook(page, lab, name: str) -> None:
    """Open NAME and click into it, as a person would before using the palette."""
    open_notebook(page, lab, name)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.wait_for_function(
        "() => window.jupyterapp.commands.isEnabled('jupyter-plans:approve')", timeout=30_000
    )


def approve_from_palette(page):
    """Runs the command without waiting for it: it resolves only once its dialog is closed."""
    page.evaluate("() => { void window.jupyterapp.commands.execute('jupyter-plans:approve'); }")


def notebook_with_plan_mode(lab, stem: str) -> Path:
    loading_notebook(lab["root"], f"{stem}.ipynb")
    plan_file = lab["root"] / f"{stem}.plans.sqlite"
    assert cli("plan", "--db", str(plan_file), "--session", "default", "on").returncode == 0
    return plan_file


def test_the_palette_shows_the_proposal_and_approves_that_hash(page, lab, dialogs):
    plan_file = notebook_with_plan_mode(lab, "palette")
    focus_notebook(page, lab, "palette.ipynb")
    toasts = page.locator(".jp-toast-message")

    # Nothing waits: the command says so, shows no dialog, changes nothing.
    approve_from_palette(page)
    toasts.get_by_text("no proposal is waiting for a decision").wait_for(timeout=10_000)
    assert page.locator(".jp-Dialog").count() == 0
    assert decisions(plan_file) == []

    shown = submit(plan_file, PROPOSAL)
    approve_from_palette(page)
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=10_000)
    text = dialog.inner_text()
    assert "palette.ipynb" in text
    assert PROPOSAL["explanation"] in text
    assert "3 steps" in text
    assert shown[:12] in text
    assert shown[:13] not in text  # the short hash: the first 12 hex digits
    dialog.locator(".jp-Dialog-content").screenshot(path="/tmp/approve-dialog.png")

    # Cancel changes nothing.
    dialog.get_by_role("button", name="Cancel", exact=True).click()
    dialog.wait_for(state="detached", timeout=10_000)
    page.wait_for_timeout(1000)  # on purpose: nothing is approved, in this while
    after_cancel = snapshot(plan_file)
    assert (after_cancel["mode"], after_cancel["pending_proposal_hash"]) == ("plan", shown)
    assert after_cancel["approved_proposal_hash"] is None
    assert decisions(plan_file) == []

    # Approve approves exactly the hash the dialog showed.
    approve_from_palette(page)
    dialog.wait_for(timeout=10_000)
    assert shown[:12] in dialog.inner_text()
    dialog.get_by_role("button", name="Approve", exact=True).click()
    toasts.get_by_text(f"proposal {shown[:12]} approved").wait_for(timeout=10_000)
    approved = snapshot(plan_file)
    assert approved["approved_proposal_hash"] == shown
    assert (approved["mode"], approved["pending_proposal_hash"]) == ("default", None)
    ((approval,),) = [decisions(plan_file)]
    by = approval.pop("by")  # the page's Jupyter user, from the command palette
    assert approval == {"action": "approved", "hash": shown}
    assert by["via"] == "palette" and isinstance(by["name"], str) and by["name"]
    # The Plan panel says who approved and where, as text.
    from tests.e2e.notebook_page import open_panel

    approved_chip = open_panel(page).locator(".jp-plans-approved")
    approved_chip.wait_for(timeout=10_000)
    page.screenshot(path=str(lab["root"].parent / "approved-by.png"))
    assert " ".join(approved_chip.inner_text().split()) == (
        f"approved {shown[:12]} by {by['name']} from the command palette"
    )
    assert dialogs == []


def test_a_proposal_resubmitted_while_the_dialog_is_open_is_not_approved(page, lab, dialogs):
    plan_file = notebook_with_plan_mode(lab, "race")
    shown = submit(plan_file, PROPOSAL)
    focus_notebook(page, lab, "race.ipynb")
    approve_from_palette(page)
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=10_000)
    assert "race.ipynb" in dialog.inner_text()
    assert shown[:12] in dialog.inner_text()

    # The agent re-submits while the person reads: the dialog still shows the first proposal.
    resubmitted = submit(plan_file, RESUBMITTED)
    assert resubmitted != shown
    dialog.get_by_role("button", name="Approve", exact=True).click()
    dialog.wait_for(state="detached", timeout=10_000)

    # The server's one-line refusal is shown; nothing is approved, and nothing is retried.
    page.locator(".jp-toast-message").get_by_text(refusal_of(plan_file, shown)).wait_for(
        timeout=10_000
    )
    page.wait_for_timeout(1000)  # on purpose: nothing is retried, in this while
    now = snapshot(plan_file)
    assert (now["mode"], now["pending_proposal_hash"]) == ("plan", resubmitted)
    assert now["approved_proposal_hash"] is None
    assert decisions(plan_file) == []
    assert page.locator(".jp-Dialog").count() == 0
    assert dialogs == []


def test_plan_approve_binds_the_proposal_the_live_card_last_showed(page, lab, dialogs):
    plan_file = notebook_with_plan_mode(lab, "seen")
    first = submit(plan_file, PROPOSAL)
    open_notebook(page, lab, "seen.ipynb")
    run_cells(page, 0, 0)  # the live card, showing the first proposal
    card = page.locator(".jp-OutputArea .jp-plans-card").first
    card.get_by_text(first[:12], exact=True).wait_for(timeout=30_000)

    # The agent re-submits from another process: the card shows it without any cell run,
    # and tells its kernel so; `%plan approve` then binds what the card shows now.
    second = submit(plan_file, RESUBMITTED)
    card.get_by_text(second[:12], exact=True).wait_for(timeout=30_000)
    card.get_by_text("Fit one baseline per store").wait_for(timeout=10_000)
    # The drawing that shows it sent the kernel the card's "seen" (widget.ts): that message is
    # on the kernel's shell channel ahead of the next cell.
    run_new_cell(page, "%plan approve")
    approved = snapshot(plan_file)
    assert approved["approved_proposal_hash"] == second
    assert decisions(plan_file) == [
        {"action": "approved", "hash": second, "by": {"name": local_person(), "via": "magic"}}
    ]
    assert dialogs == []
