"""The extension in an IPython shell as a person uses it: loaded, %plan run, a proposal
submitted, a card's button pressed."""

from __future__ import annotations

import jupyter_plans

PROPOSAL = {
    "explanation": "why",
    "findings": ["what is there"],
    "objectives": ["what for"],
    "steps": [{"id": "load", "description": "Load the data"}],
}


def load(ip, notebook=None):
    if notebook is not None:
        ip.user_ns["__session__"] = str(notebook)
    ip.run_line_magic("load_ext", "jupyter_plans")
    return jupyter_plans.current_session()


def plan(ip, line, capsys):
    """Run %plan LINE; return (stdout, stderr)."""
    capsys.readouterr()
    ip.run_line_magic("plan", line)
    captured = capsys.readouterr()
    return captured.out, captured.err


def submit(session):
    session.on()
    result = session.call_tool("plan_submit", PROPOSAL, turn_id="t1")
    assert not result.is_error, result.content
    return session.snapshot().pending_proposal_hash


def press(card, **content):
    """What the front end sends when a button is pressed (its `model.send(content)`), as the
    card's comm hands it over in the kernel."""
    message = {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    card.comm.handle_msg(message)
