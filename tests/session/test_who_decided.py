"""Who decided (DESIGN section 12): every event a person's act appends carries `by: {name,
via}`, from the API, the magic, the CLI and the server; old events read back with by null; a
name no person has is refused in one line and changes nothing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import DecisionRefused, PlanStore
from jupyter_plans.plan.text import describe_event
from jupyter_plans.plan.who import local_person

PROPOSAL = {
    "explanation": "why",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load the data"}],
}


def person_events(session) -> list[tuple[str, dict | None]]:
    kinds = ("decision", "mode_changed", "message_queued", "plan_updated")
    return [
        (e.kind, e.data.get("by"))
        for e in session.events()
        if e.kind in kinds
        and (e.kind != "message_queued" or e.data["source"] == "person")
        and (e.kind != "plan_updated" or e.data["name"] == "user_edit")
    ]


def test_every_act_of_the_person_through_the_api_says_who(session, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    session.start_planning("Chart the sales")
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    session.revise("Split the load step", by="bob")
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t2").is_error
    edit = {"expected_revision": 2, "steps": [{"id": "load", "description": "Load it all"}]}
    session.edit_plan(edit, by={"name": "carol", "via": "panel"})
    session.approve(by="dave")
    session.off()
    alice = {"name": "alice", "via": "api"}
    assert person_events(session) == [
        ("mode_changed", alice),
        ("message_queued", alice),
        ("decision", {"name": "bob", "via": "api"}),
        ("message_queued", {"name": "bob", "via": "api"}),
        ("plan_updated", {"name": "carol", "via": "panel"}),
        ("decision", {"name": "dave", "via": "api"}),
        ("mode_changed", {"name": "dave", "via": "api"}),
    ]
    # The agent's own acts carry no person.
    kinds = {e.kind for e in session.events() if "by" in e.data}
    assert "proposal_submitted" not in kinds and "decision_recorded" not in kinds


def test_without_jupyterhub_the_name_is_the_systems_user(session, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    session.on()
    (event,) = [e for e in session.events() if e.kind == "mode_changed"]
    assert event.data["by"] == {"name": local_person(), "via": "api"}
    assert local_person() is not None


@pytest.mark.parametrize(
    ("by", "said"),
    [
        ("x" * 201, "by: the name is 201 characters; at most 200"),
        ("", "by: the name must be one line of text, not blank"),
        ("al\nice", "by: the name"),
        ({"name": "alice", "via": "fax"}, "by.via is 'fax'; it must be one of"),
        (7, "by: the name must be text; found int"),
    ],
)
def test_a_name_no_person_has_is_refused_and_changes_nothing(session, by, said):
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    before = session.cursor()
    with pytest.raises(DecisionRefused, match=said.replace("(", r"\(")) as refused:
        session.approve(by=by)
    assert "\n" not in str(refused.value)
    assert session.cursor() == before and session.snapshot().pending_proposal_hash is not None


def test_history_names_the_person_for_every_reader(session):
    """A saved notebook is read by others: the history names the person, also to that person."""
    session.on(by={"name": "alice", "via": "panel"})
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    session.approve(by={"name": "bob", "via": "magic"})
    told = {e.kind: describe_event(e) for e in session.events()}
    assert told["decision"].endswith(": approved by bob with %plan")
    assert told["mode_changed"].endswith(". mode is now default by bob with %plan")
    assert describe_event(session.events()[0]) == "1. mode is now plan by alice in the panel"
    assert not [e for e in session.events() if "by you" in describe_event(e)]


def test_history_in_a_kernel_names_its_own_person(tmp_path, monkeypatch):
    """`%plan history` in a real kernel run as `analyst`: "by analyst", never "by you"."""
    from jupyter_client.manager import start_new_kernel

    monkeypatch.setenv("JUPYTERHUB_USER", "analyst")
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    try:
        code = (
            f"__session__ = {str(tmp_path / 'nb.ipynb')!r}\n"
            "get_ipython().config.PlanMagics.auto_display = False\n"
            "%load_ext jupyter_plans\n%plan on\n%plan history"
        )
        reply = client.execute_interactive(code, timeout=60, output_hook=_keep(printed := []))
        assert reply["content"]["status"] == "ok"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(printed).splitlines()[-1] == "1. mode is now plan by analyst with %plan"


def _keep(into: list):
    def hook(message: dict) -> None:
        if message["msg_type"] == "stream":
            into.append(message["content"]["text"])

    return hook


_NAMES_NOT_SEEN = [
    ("al\u200bice", "U+200B"),  # zero-width space: shows as "alice"
    ("alice\U000e0041", "U+E0041"),  # a tag character
    ("\ufeffalice", "U+FEFF"),  # the byte order mark
    ("ali\u00adce", "U+00AD"),  # a soft hyphen
    ("al\u2060ice", "U+2060"),  # a word joiner
    (" alice", "begins or ends with a space"),
]


@pytest.mark.parametrize(("name", "said"), _NAMES_NOT_SEEN)
def test_a_name_with_characters_that_do_not_show_is_refused(session, name, said):
    session.on()
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    before = session.cursor()
    with pytest.raises(DecisionRefused, match=said.replace("+", r"\+")) as refused:
        session.approve(by=name)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("by: the name")
    assert session.cursor() == before and session.snapshot().pending_proposal_hash is not None


def test_the_cli_refuses_a_name_that_does_not_show_as_itself(tmp_path):
    db = tmp_path / "a.plans.sqlite"
    digest = waiting(db)
    cli = [sys.executable, "-m", "jupyter_plans.cli", "plan", "--db", str(db), "--session", "s"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [*cli, "approve", digest, "--by", "al\u200bice"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "U+200B" in done.stderr
    with PlanStore(db) as store:
        assert store.session("s").snapshot().pending_proposal_hash == digest


def waiting(path: Path) -> str:
    """A plan file whose session `s` has a proposal waiting; its hash."""
    with PlanStore(path) as store:
        session = store.session("s")
        session.on()
        assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
        return session.snapshot().pending_proposal_hash


def test_events_written_before_read_back_with_by_null(tmp_path):
    path = tmp_path / "old.plans.sqlite"
    waiting(path)
    with PlanStore(path) as store:
        store.session("s").approve()
    import sqlite3

    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT seq, data FROM plans_events WHERE kind != 'plan_updated'")
    for seq, data in rows.fetchall():  # as an earlier version wrote them: no `by`
        value = json.loads(data)
        value.pop("by", None)
        connection.execute(
            "UPDATE plans_events SET data = ? WHERE seq = ?", (json.dumps(value), seq)
        )
    connection.commit()
    connection.close()
    with PlanStore(path) as store:
        events = store.session("s").events()
    assert [e.data["by"] for e in events if e.kind in ("decision", "mode_changed")] == [None] * 3
    assert "by" not in [e for e in events if e.kind == "proposal_submitted"][0].data


def test_the_cli_decides_as_the_system_user_or_by(tmp_path):
    db = tmp_path / "a.plans.sqlite"
    digest = waiting(db)
    cli = [sys.executable, "-m", "jupyter_plans.cli", "plan", "--db", str(db), "--session", "s"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    env.pop("JUPYTERHUB_USER", None)
    bad = subprocess.run([*cli, "approve", digest, "--by", "x" * 300], capture_output=True, env=env)
    assert (
        bad.returncode == 1 and b"at most 200" in bad.stderr and len(bad.stderr.splitlines()) == 1
    )
    done = subprocess.run([*cli, "approve", digest, "--by", "erin"], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    subprocess.run([*cli, "on"], check=True, env=env)
    with PlanStore(db) as store:
        events = store.session("s").events()
    decided = [e.data["by"] for e in events if e.kind in ("decision", "mode_changed")]
    import getpass

    assert decided[-3:] == [
        {"name": "erin", "via": "cli"},
        {"name": "erin", "via": "cli"},
        {"name": getpass.getuser(), "via": "cli"},  # no --by: the system's user
    ]


def test_the_display_name_is_shown_beside_the_recorded_name(session):
    """Jupyter's identity has a display name ("Dana Scully") beside its username ("dana"): the
    record keeps the username, and the display name is shown beside it where it says another."""
    session.on(by={"name": "dana", "display": "Dana Scully", "via": "panel"})
    assert not session.call_tool("plan_submit", PROPOSAL, turn_id="t1").is_error
    session.approve(by={"name": "bob", "display": "bob", "via": "card"})  # the same: not kept
    on = next(e for e in session.events() if e.kind == "mode_changed")
    approved = next(e for e in session.events() if e.kind == "decision")
    assert on.data["by"] == {"name": "dana", "via": "panel", "display": "Dana Scully"}
    assert approved.data["by"] == {"name": "bob", "via": "card"}
    assert describe_event(on).endswith("mode is now plan by dana (Dana Scully) in the panel")
    # A display name that does not show as itself is left out, never recorded in its place.
    session.on(by={"name": "eve", "display": "E\u200bve", "via": "panel"})
    last = [e for e in session.events() if e.kind == "mode_changed"][-1]
    assert last.data["by"] == {"name": "eve", "via": "panel"}
