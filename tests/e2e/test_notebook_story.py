"""The notebooks in notebooks/ read as their story in a real JupyterLab and Chromium:
each card shows the mode, revision and waiting proposal its own cell printed (the output's
text/plain), in the saved notebook reopened without running a cell, and in the page after
Run All, where only the card of a session shown last follows the plan as it is now."""

from __future__ import annotations

import json
import re
import time
import urllib.parse
import urllib.request

import pytest

from jupyter_plans.card.view import MIME_TYPE
from tests.e2e.lab_actions import CURRENT, run_new_cell
from tests.e2e.notebook_page import open_notebook

NOTEBOOKS = [
    "01-quickstart.ipynb",
    "02-teaching-plan-approval.ipynb",
    "03-regression-example.ipynb",
    "04-resume-after-restart.ipynb",
    "05-acp-bridge.ipynb",
    "06-steps-and-cells.ipynb",
]

HEAD = re.compile(r"^Plan \((plan|default) mode\)(?:, revision (\d+): |: no plan yet$)")
WAITING = re.compile(r"^Proposal ([0-9a-f]{12}) waits for your decision$")

# For each card output of the open notebook, in order: its cell, its session, its own
# text/plain (as the notebook's model holds it, which is what is saved), and what the one
# visible card drawn for it shows.
READ_CARDS = """(mime) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const found = [];
    panel.content.widgets.forEach((cell, index) => {
        if (cell.model.type !== 'code') return;
        const outputs = cell.model.outputs;
        for (let i = 0; i < outputs.length; i++) {
            const data = outputs.get(i).data;
            if (!(mime in data)) continue;
            const text = data['text/plain'];
            const child = cell.outputArea.widgets[i];
            const cards = child ? [...child.node.querySelectorAll('.jp-plans-card')]
                .filter(card => card.closest('.lm-mod-hidden') === null) : [];
            const card = cards.length === 1 ? cards[0] : null;
            const one = (selector) => {
                const node = card && card.querySelector(selector);
                return node ? node.textContent.trim() : null;
            };
            found.push({
                cell: index,
                session: data[mime].snapshot.session_id,
                text: Array.isArray(text) ? text.join('') : text,
                cards: cards.length,
                shown: card === null ? null : {
                    chip: one(':scope > .jp-plans-header .jp-plans-chip'),
                    agent_chip: card.querySelector(
                        ':scope > .jp-plans-header .jp-plans-chip-agent') !== null,
                    rev: one(':scope > .jp-plans-header .jp-plans-rev'),
                    hash: one(':scope > .jp-plans-body > .jp-plans-banner-waiting .jp-plans-hash'),
                    notice: one(':scope > .jp-plans-notice'),
                    saved: card.querySelector(':scope > .jp-plans-notice-saved') !== null,
                },
            });
        }
    });
    return found;
}"""


def printed(text: str) -> dict:
    """The mode, revision and waiting proposal a card's text/plain says (plan/text.py)."""
    lines = text.split("\n")
    head = HEAD.match(lines[0])
    assert head, f"not a card's text/plain: {lines[0]!r}"
    # The waiting proposal comes second, or third after a finished plan's line.
    waiting = [m.group(1) for line in lines[1:3] if (m := WAITING.match(line))]
    return {
        "mode": head.group(1),
        "revision": int(head.group(2)) if head.group(2) else None,
        "proposal": waiting[0] if waiting else None,
    }


def shown(card: dict | None) -> dict | None:
    """The same three facts as the drawn card shows them: its mode chip, its 'rev N' (absent
    while there is no plan) and the short hash in its 'Waiting for your decision' banner."""
    if card is None:
        return None
    rev = re.fullmatch(r"rev (\d+)", card["rev"]) if card["rev"] is not None else None
    assert card["rev"] is None or rev, f"the card's revision reads {card['rev']!r}"
    # Out of plan mode, a bridged agent's card shows the agent's own mode ("default: edits
    # ask") where the session's default mode would be.
    mode = {"PLAN MODE": "plan", "DEFAULT MODE": "default"}.get(card["chip"], card["chip"])
    return {
        "mode": "default" if card.get("agent_chip") else mode,
        "revision": int(rev.group(1)) if rev else None,
        "proposal": card["hash"],
    }


def read_cards(page) -> list[dict]:
    return page.evaluate(READ_CARDS, MIME_TYPE)


def settled(page, expected: list[dict], live: bool, timeout: float = 30) -> list[dict]:
    """The card outputs once each is drawn as one visible card (the kernel's live card when
    `live`, else the saved one) showing what `expected` says, in order; after `timeout`
    seconds, as they are then, for the assertions to say what differs. A wait for the page to
    settle, never a measure of its speed."""
    deadline = time.monotonic() + timeout
    while True:
        cards = read_cards(page)
        drawn = len(cards) == len(expected) and all(
            c["cards"] == 1 and c["shown"]["saved"] != live for c in cards
        )
        if drawn and [shown(c["shown"]) for c in cards] == expected:
            return cards
        if time.monotonic() > deadline:
            return cards
        page.wait_for_timeout(100)  # the poll's interval


def mismatches(cards: list[dict], expected: list[dict], said: list[str]) -> list[str]:
    """One line per card that does not show what is expected of it."""
    return [
        f"cell {card['cell']}: {why} {want}, the card shows {shown(card['shown'])}"
        f" ({card['shown']})"
        for card, want, why in zip(cards, expected, said, strict=True)
        if shown(card["shown"]) != want
    ]


def saved_texts(path) -> list[tuple[int, str]]:
    """(cell index, text/plain) of each card output of the saved notebook at PATH, in order."""
    notebook = json.loads(path.read_text())
    return [
        (index, "".join(output["data"]["text/plain"]))
        for index, cell in enumerate(notebook["cells"])
        for output in cell.get("outputs", [])
        if MIME_TYPE in output.get("data", {})
    ]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_saved_notebooks_read_as_their_story(page, lab, name, dialogs, errors):
    """Reopened without running a cell, each saved card shows what its own cell printed."""
    saved = saved_texts(lab["root"] / name)
    assert len(saved) >= 2, "every notebook shows at least two cards"
    expected = [printed(text) for _, text in saved]
    open_notebook(page, lab, name)
    cards = settled(page, expected, live=False)
    assert [(c["cell"], c["text"]) for c in cards] == saved  # the outputs the file holds
    assert [c["cards"] for c in cards] == [1] * len(saved)
    wrong = mismatches(cards, expected, ["printed"] * len(saved))
    assert not wrong, "\n".join(wrong)
    # Each is the saved card, saying which revision it shows.
    for card in cards:
        assert card["shown"]["notice"].startswith("Saved output: "), card
    assert dialogs == []
    errors.assert_none()


# A cell tagged raises-exception fails on purpose (06 shows a failed run); Run All goes on.
EXPECTED = (
    "const expected = cell => (cell.model.getMetadata('tags') || []).includes('raises-exception');"
)


def run_all(page) -> None:
    """Kernel > Restart Kernel and Run All Cells, its dialog accepted, on cleared outputs;
    returns when every code cell ran (or one raised unexpectedly) and the kernel is idle."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function(
        f"() => {CURRENT}.content.widgets.every("
        " cell => cell.model.type !== 'code' || cell.model.executionCount === null)",
        timeout=30_000,
    )
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:restart-run-all'); }")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    accept.wait_for(timeout=30_000)
    accept.click()
    page.wait_for_function(
        f"""() => {{
            {EXPECTED}
            const panel = {CURRENT};
            const code = panel.content.widgets.filter(cell => cell.model.type === 'code');
            const failed = code.some(cell => !expected(cell) && cell.model.outputs.toJSON()
                .some(output => output.output_type === 'error'));
            const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
            return failed || (kernel && kernel.status === 'idle'
                && code.every(cell => cell.model.executionCount !== null));
        }}""",
        timeout=300_000,
    )


def raised(page) -> list[str]:
    return page.evaluate(
        f"""() => {{ {EXPECTED} return {CURRENT}.content.widgets.flatMap((cell, index) =>
            cell.model.type !== 'code' || expected(cell) ? [] : cell.model.outputs.toJSON()
                .filter(output => output.output_type === 'error')
                .map(output => `cell ${{index}}: ${{output.ename}}: ${{output.evalue}}`)); }}"""
    )


def plan_now(lab, name: str, session: str) -> dict:
    """The session's mode, revision and waiting proposal as the server reads the plan file."""
    query = urllib.parse.urlencode({"path": name, "session": session})
    request = urllib.request.Request(
        f"{lab['base']}/api/plans/snapshot?{query}",
        headers={"Authorization": f"token {lab['token']}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        snapshot = json.load(answer)
    waiting = snapshot["pending_proposal_hash"]
    return {
        "mode": snapshot["mode"],
        "revision": snapshot["plan"]["revision"] if snapshot["plan"] else None,
        "proposal": waiting[:12] if waiting else None,
    }


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_run_all_reads_as_its_story(page, lab, name, dialogs, errors):
    """Run top to bottom in the page, each card shows what its own cell printed; the one
    exception is the card of a session shown last, which stays live: it shows the plan as it
    is now, until a newer card of its session takes over, when it too goes back to what its
    cell printed."""
    count = len(saved_texts(lab["root"] / name))
    open_notebook(page, lab, name)
    run_all(page)
    assert raised(page) == []

    outputs = read_cards(page)
    assert len(outputs) == count, [(c["cell"], c["text"].split("\n")[0]) for c in outputs]
    last = {c["session"]: index for index, c in enumerate(outputs)}  # the live card of each
    now = {session: plan_now(lab, name, session) for session in last}
    expected, said = [], []
    for index, output in enumerate(outputs):
        if last[output["session"]] == index:
            expected.append(now[output["session"]])
            said.append("its session is now at")
        else:
            expected.append(printed(output["text"]))
            said.append("printed")
    cards = settled(page, expected, live=True)
    assert [c["cards"] for c in cards] == [1] * count
    assert [c["shown"]["saved"] for c in cards] == [False] * count  # the kernel's cards
    wrong = mismatches(cards, expected, said)
    assert not wrong, "\n".join(wrong)

    # A %plan now shows the plan as it is: the card live until then goes back to its own cell.
    run_new_cell(page, "%plan")
    outputs = read_cards(page)
    assert len(outputs) == count + 1
    assert printed(outputs[-1]["text"]) == now[outputs[-1]["session"]]
    expected = [printed(output["text"]) for output in outputs]
    cards = settled(page, expected, live=True)
    assert [c["cards"] for c in cards] == [1] * (count + 1)
    wrong = mismatches(cards, expected, ["printed"] * (count + 1))
    assert not wrong, "\n".join(wrong)
    assert dialogs == []
    errors.assert_none()
