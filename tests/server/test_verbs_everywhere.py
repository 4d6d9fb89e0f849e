"""The person's verbs refuse in the same line on every surface: %plan and the card's buttons
in a real kernel, `jupyter-plans plan` as a subprocess, and the routes of a real `jupyter
server`; and a refusal changes nothing on any of them."""

import pytest

from jupyter_plans import PlanStore
from tests.helpers.cli import run as cli
from tests.helpers.kernel import run
from tests.helpers.plans import ONE_STEP_PROPOSAL
from tests.http import request

OTHER_HASH = "0" * 64
# (the magic's words after %plan, the command line's words after `plan`, the route and its
# body, what the card sends where it has the verb, the one line every surface says).
REFUSALS = [
    (
        "on now",
        ["on", "now"],
        ("decision", {"action": "on", "notes": "now"}),
        None,
        "on takes nothing after it; found 'now'",
    ),
    (
        "off now",
        ["off", "now"],
        ("decision", {"action": "off", "hash": "now"}),
        None,
        "off takes nothing after it; found 'now'",
    ),
    (
        "approve abc def",
        ["approve", "abc", "def"],
        ("decision", {"action": "approve", "hash": "abc def"}),
        {"action": "approve", "hash": "abc def"},
        "approve takes only the 64-hex hash of the waiting proposal; found 'abc def'",
    ),
    (
        f"approve {OTHER_HASH}",
        ["approve", OTHER_HASH],
        ("decision", {"action": "approve", "hash": OTHER_HASH}),
        {"action": "approve", "hash": OTHER_HASH},
        None,  # the session's own line, whatever its words: the same everywhere
    ),
    (
        "revise",
        ["revise"],
        ("decision", {"action": "revise"}),
        {"action": "revise"},
        "revise needs NOTES: say what should change",
    ),
    (
        "comment nope mind the header",
        ["comment", "nope", "mind the header"],
        ("comment", {"step_id": "nope", "text": "mind the header"}),
        {"action": "comment", "step_id": "nope", "text": "mind the header"},
        None,
    ),
    (
        "resolve",
        ["resolve"],
        ("comment", {"resolve": ""}),
        {"action": "resolve"},
        "resolve takes one comment id (c1, c2, ...); found ''",
    ),
    (
        "reopen c1 c2",
        ["reopen", "c1", "c2"],
        ("comment", {"reopen": "c1 c2"}),
        {"action": "reopen", "comment_id": "c1 c2"},
        "reopen takes one comment id (c1, c2, ...); found 'c1 c2'",
    ),
    (
        "resolve c9",
        ["resolve", "c9"],
        ("comment", {"resolve": "c9"}),
        {"action": "resolve", "comment_id": "c9"},
        "nothing to resolve: there is no comment c9",
    ),
]


@pytest.fixture
def plan(server):
    """A notebook in the server's root whose plan has a waiting proposal, and no comment."""
    notebook = server["root"] / "verbs.ipynb"
    notebook.write_text("{}")
    session = PlanStore(server["root"] / "verbs.plans.sqlite").session("default")
    session.on()
    assert not session.call_tool("plan_submit", ONE_STEP_PROPOSAL, turn_id="t1").is_error
    return notebook, session


def said_by_the_magic(kernel, words):
    stderr = [
        m["content"]["text"]
        for m in run(kernel, f"%plan {words}")
        if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    ]
    verb = words.split()[0]
    assert len(stderr) == 1 and stderr[0].startswith(f"%plan {verb}: "), stderr
    return stderr[0].removeprefix(f"%plan {verb}: ").rstrip("\n")


# The card's buttons, as its front end sends them (tests/helpers/shell.py's press), in the kernel.
CARD = """
import jupyter_plans
from jupyter_plans.notebook.widget import PlanCard

card = PlanCard(jupyter_plans.current_session())

def press(content):
    message = {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    card.comm.handle_msg(message)
    print(card.error)
"""


def said_by_the_card(kernel, content):
    stdout = [
        m["content"]["text"]
        for m in run(kernel, f"press({content!r})")
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    ]
    return "".join(stdout).rstrip("\n")


def said_by_the_command_line(notebook, words):
    proc = cli("plan", "--notebook", str(notebook), *words)
    assert proc.returncode == 1 and proc.stdout == "", (proc.stdout, proc.stderr)
    return proc.stderr.removeprefix("jupyter-plans: ").rstrip("\n")


def said_by_the_route(server, route, body):
    status, answer = request(server, "POST", f"/api/plans/{route}?path=verbs.ipynb", body)
    assert status == 409, (status, answer)
    return answer["message"]


def test_each_refusal_reads_the_same_on_every_surface_and_changes_nothing(server, plan, kernel):
    notebook, session = plan
    run(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans\n{CARD}")
    before = session.snapshot().model_dump(mode="json")
    for magic, words, (route, body), card, line in REFUSALS:
        said = {
            "magic": said_by_the_magic(kernel, magic),
            "cli": said_by_the_command_line(notebook, words),
            "route": said_by_the_route(server, route, body),
        }
        if card is not None:
            said["card"] = said_by_the_card(kernel, card)
        expected = line or said["magic"]
        assert said == dict.fromkeys(said, expected), magic
        assert "\n" not in expected
        assert session.snapshot().model_dump(mode="json") == before, magic
