"""An approval binds what the person was shown (DESIGN section 4): a bare `%plan approve` the
proposal this kernel last showed, the CLI's only after asking on a terminal, the server's only
with a hash; never a proposal that arrived unseen."""

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import jupyter_plans
from jupyter_plans import PlanStore
from tests.helpers.shell import press

PROPOSAL = {
    "explanation": "why",
    "findings": ["what is there"],
    "objectives": ["what for"],
    "steps": [{"id": "load", "description": "Load the data"}],
}
CLI = [sys.executable, "-m", "jupyter_plans.cli"]


def proposal(n: int) -> dict:
    return {**PROPOSAL, "steps": [{"id": "load", "description": f"Load the data, version {n}"}]}


def load(ip):
    ip.run_line_magic("load_ext", "jupyter_plans")
    return jupyter_plans.current_session()


def magic(ip, line, capsys):
    capsys.readouterr()
    ip.run_line_magic("plan", line)
    captured = capsys.readouterr()
    return captured.out, captured.err


def submit(session, n=0):
    if session.snapshot().mode != "plan":
        session.on()
    result = session.call_tool("plan_submit", proposal(n))
    assert not result.is_error, result.content
    return session.waiting_proposal()


def test_a_bare_approve_needs_the_proposal_shown_here(ip, capsys):
    session = load(ip)
    digest = submit(session)
    out, err = magic(ip, "approve", capsys)
    assert out == "" and digest[:12] in err and "has not been shown here" in err
    assert err.count("\n") == 1 and session.waiting_proposal() == digest
    magic(ip, "", capsys)  # %plan shows the card, and with it the proposal
    out, err = magic(ip, "approve", capsys)
    assert err == "" and f"Approved proposal {digest[:12]}" in out
    assert session.snapshot().approved_proposal_hash == digest


def test_a_proposal_that_replaced_the_shown_one_is_not_approved_unseen(ip, capsys):
    session = load(ip)
    shown = submit(session, 1)
    magic(ip, "", capsys)
    newer = submit(session, 2)  # the agent re-submits after the person looked
    out, err = magic(ip, "approve", capsys)
    assert out == "" and f"{shown[:12]} was superseded by {newer[:12]}" in err
    assert session.waiting_proposal() == newer and session.snapshot().mode == "plan"
    # By its full hash, or once shown, the newer one is approved.
    magic(ip, "", capsys)
    out, err = magic(ip, "approve", capsys)
    assert err == "" and session.snapshot().approved_proposal_hash == newer


def test_the_card_reports_what_it_rendered_and_approves_only_by_hash(ip, capsys):
    from jupyter_plans.notebook.widget import PlanCard

    session = load(ip)
    digest = submit(session)
    card = PlanCard(session)
    press(card, action="approve")
    assert "no proposal hash" in card.error and session.waiting_proposal() == digest
    press(card, action="seen", hash=digest)
    assert session.shown_proposal() == digest
    out, err = magic(ip, "approve", capsys)
    assert err == "" and session.snapshot().approved_proposal_hash == digest


def test_a_racing_agent_never_gets_an_unseen_proposal_approved(ip, capsys, tmp_path):
    """An agent process re-submits as fast as it can while the person shows the card and
    approves with a bare %plan approve, again and again."""
    session = load(ip)
    db = session.store.path
    submit(session)
    stop = tmp_path / "stop"
    agent = subprocess.Popen(
        [sys.executable, "-c", _RESUBMITTING_AGENT, str(db), session.session_id, str(stop)],
        stderr=subprocess.PIPE,
        text=True,
    )
    approved, refused, unseen = 0, 0, 0
    try:
        deadline = time.monotonic() + 60
        while approved + refused < 40 and time.monotonic() < deadline:
            if session.waiting_proposal() is None:
                time.sleep(0.005)
                continue
            magic(ip, "", capsys)
            shown = session.shown_proposal()
            time.sleep(0.002 * (approved + refused) % 0.02)  # on purpose: varies the race
            out, err = magic(ip, "approve", capsys)
            if out.startswith("Approved"):
                approved += 1
                unseen += session.snapshot().approved_proposal_hash != shown
            else:
                assert err.count("\n") == 1, err
                refused += 1
    finally:
        stop.touch()
        agent.wait(timeout=30)
    assert agent.returncode == 0, agent.stderr.read()
    assert approved + refused >= 20
    assert unseen == 0, f"{unseen} of {approved} approvals bound a proposal not shown"
    assert approved > 0 and refused > 0  # both sides of the race were met


_RESUBMITTING_AGENT = """
import sys, pathlib
from jupyter_plans import PlanStore
db, sid, stop = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
with PlanStore(db) as store:
    session = store.session(sid)
    n = 0
    while not stop.exists():
        n += 1
        if session.snapshot().mode != "plan":
            session.on()
        steps = [{"id": "load", "description": f"Load the data, take {n}"}]
        args = {"explanation": "why", "findings": [], "objectives": ["a"], "steps": steps}
        session.call_tool("plan_submit", args)
"""


# The CLI.


def _cli(db, *args, **kwargs):
    return subprocess.run(
        [*CLI, "plan", "--db", str(db), "--session", "s", *args],
        capture_output=True,
        text=True,
        timeout=60,
        **kwargs,
    )


def _waiting(tmp_path) -> tuple[Path, str]:
    db = tmp_path / "nb.plans.sqlite"
    with PlanStore(db) as store:
        return db, submit(store.session("s"))


def test_the_cli_refuses_a_bare_approve_without_a_terminal(tmp_path):
    db, digest = _waiting(tmp_path)
    done = _cli(db, "approve", stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and digest[:12] in done.stderr
    assert "terminal" in done.stderr and "Traceback" not in done.stderr
    with PlanStore(db) as store:
        assert store.session("s").waiting_proposal() == digest
    assert _cli(db, "approve", digest, stdin=subprocess.DEVNULL).returncode == 0


def _on_a_terminal(db, answer: str, before_answer=None) -> tuple[int, str]:
    """Run `plan approve` with a pseudo-terminal as its standard input and output."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [*CLI, "plan", "--db", str(db), "--session", "s", "approve"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    screen = b""
    deadline = time.monotonic() + 60
    while b"[y/N]" not in screen and time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            screen += os.read(leader, 4096)
    if before_answer is not None:
        before_answer()
    os.write(leader, answer.encode() + b"\n")
    while True:
        ready, _, _ = select.select([leader], [], [], 5)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    os.close(leader)
    return process.wait(timeout=30), screen.decode(errors="replace")


def test_the_cli_shows_the_proposal_and_its_hash_and_asks_on_a_terminal(tmp_path):
    db, digest = _waiting(tmp_path)
    code, screen = _on_a_terminal(db, "n")
    assert code == 1 and digest in screen and "Load the data, version 0" in screen
    assert "not approved" in screen
    code, screen = _on_a_terminal(db, "y")
    assert code == 0 and f"Approved proposal {digest[:12]}" in screen
    with PlanStore(db) as store:
        assert store.session("s").snapshot().approved_proposal_hash == digest


def test_the_cli_approves_what_it_showed_not_what_came_while_it_asked(tmp_path):
    db, shown = _waiting(tmp_path)

    def resubmit():
        with PlanStore(db) as store:
            submit(store.session("s"), 9)

    code, screen = _on_a_terminal(db, "y", before_answer=resubmit)
    assert code == 1 and f"{shown[:12]} was superseded" in screen
    with PlanStore(db) as store:
        snapshot = store.session("s").snapshot()
    assert snapshot.approved_proposal_hash is None and snapshot.mode == "plan"
