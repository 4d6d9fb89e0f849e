"""POST /api/plans/comment through a real `jupyter server` (DESIGN section 14): 200 with the
snapshot, 409 refused, 400 malformed, 403 without Jupyter's authentication; who is Jupyter's
identity of the request, never a name the body gives."""

import json
import urllib.request

import pytest

from jupyter_plans import PlanStore
from tests.helpers.plans import ONE_STEP_PROPOSAL as PROPOSAL
from tests.http import request
from tests.jupyter_process import SERVER_TOKEN as TOKEN


@pytest.fixture
def notebook(server, request):
    """A notebook in the server root with a plan that has a waiting proposal."""
    name = f"nb_{request.node.name[:40]}.ipynb".replace("[", "_").replace("]", "_")
    (server["root"] / name).write_text("{}")
    session = PlanStore(server["root"] / name.replace(".ipynb", ".plans.sqlite")).session("default")
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    return name, session


def identity(server):
    """(the name Jupyter records for a shared token's requests, a cookie that keeps it)."""
    first = urllib.request.Request(f"{server['base']}/api/me")
    first.add_header("Authorization", f"token {TOKEN}")
    with urllib.request.urlopen(first, timeout=10) as response:
        me = json.loads(response.read())
        cookie = "; ".join(c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or [])
    return me["identity"]["display_name"], {"Cookie": cookie}


def test_add_resolve_and_reopen_answer_the_snapshot_and_name_the_jupyter_user(server, notebook):
    name, session = notebook
    person, same = identity(server)
    route = f"/api/plans/comment?path={name}"
    body = {"step_id": "load", "text": "mind the header", "via": "panel"}
    status, snapshot = request(server, "POST", route, body, headers=same)
    assert status == 200 and snapshot == session.snapshot().model_dump(mode="json")
    (comment,) = snapshot["comments"]
    assert comment["by"] == {"name": person, "via": "panel"}
    assert (comment["id"], comment["anchor"], comment["status"]) == ("c1", "Load the data", "open")
    status, snapshot = request(server, "POST", route, {"step_id": None, "text": "short"})
    assert status == 200 and snapshot["comments"][1]["step_id"] is None
    status, snapshot = request(server, "POST", route, {"resolve": "c1"}, headers=same)
    assert status == 200 and snapshot["comments"][0]["status"] == "resolved"
    assert session.events()[-1].data == {
        "comment_id": "c1",
        "by": {"name": person, "via": "server"},
    }
    status, snapshot = request(server, "POST", route, {"reopen": "c1", "via": "card"})
    assert status == 200 and snapshot["comments"][0]["status"] == "open"
    assert session.events()[-1].data["by"]["via"] == "card"


def test_refused_is_409_and_malformed_is_400_with_nothing_stored(server, notebook):
    name, session = notebook
    route = f"/api/plans/comment?path={name}"
    cursor = session.cursor()
    for refused, words in (
        ({"step_id": "nope", "text": "x"}, "step_id 'nope' is not a step"),
        ({"step_id": "load", "text": " "}, "text is blank"),
        ({"step_id": "load", "text": "x" * 2001}, "the limit is 2000"),
        ({"resolve": "c1"}, "there is no comment c1"),
        ({"reopen": "c"}, "is not a comment id"),
    ):
        status, body = request(server, "POST", route, refused)
        assert status == 409 and words in body["message"] and "\n" not in body["message"]
    for malformed in (
        b"{not json",
        {},
        {"step_id": "load"},
        {"text": "x", "resolve": "c1"},
        {"text": 5},
        {"resolve": "c1", "by": {"name": "mallory"}},
        {"text": "x", "via": "cli"},
        [1],
    ):
        status, body = request(server, "POST", route, malformed)
        assert status == 400 and body["message"].startswith("malformed comment"), body
    assert session.cursor() == cursor
    status, _ = request(server, "POST", route, {"step_id": "load", "text": "x"}, token=None)
    assert status == 403 and session.cursor() == cursor


@pytest.mark.parametrize("path", ["missing.ipynb", "../outside.ipynb"])
def test_a_notebook_that_is_not_there_is_not_commented_on(server, path):
    status, body = request(server, "POST", f"/api/plans/comment?path={path}", {"text": "x"})
    assert status in (403, 404) and "message" in body


def test_a_comment_holds_no_character_that_does_not_show(server, notebook):
    name, session = notebook
    route = f"/api/plans/comment?path={name}"
    cursor = session.cursor()
    for char in ("\U000e0041", "\u3164", "\u00ad", "\u2062", "\u180e", "\u034f", "\ufff9"):
        status, body = request(server, "POST", route, {"step_id": "load", "text": f"a{char}b"})
        assert status == 409 and f"U+{ord(char):04X} at character 1" in body["message"], body
    assert session.cursor() == cursor


def test_a_refused_comment_on_a_notebook_without_a_plan_makes_no_plan_file(server):
    name = "no_plan_yet.ipynb"
    (server["root"] / name).write_text("{}")
    route = f"/api/plans/comment?path={name}"
    for body, words in (
        ({"step_id": None, "text": "hello"}, "there is no plan yet"),
        ({"step_id": "load", "text": "a\u3164b"}, "there is no plan yet"),
        ({"resolve": "c1"}, "there is no plan yet"),
        ({"reopen": "c1"}, "there is no plan yet"),
    ):
        status, answer = request(server, "POST", route, body)
        assert status == 409 and words in answer["message"], answer
    made = sorted(p.name for p in server["root"].iterdir() if p.name.startswith("no_plan_yet"))
    assert made == [name]
