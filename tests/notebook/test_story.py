"""The notebook tells the plan's story (issue: each card frozen at its own moment): in a real
kernel, a card that a newer card takes over from shows again what it showed when its own cell
ended, whatever happened between its cell and the newer card."""

from tests.helpers.kernel import run

PROPOSAL = {
    "explanation": "Load, then plot.",
    "findings": ["prices are in cents"],
    "objectives": ["a plot of weekly revenue"],
    "steps": [{"id": "load", "description": "Load the data"}],
}
REVISED = {
    "explanation": "Load, clean, then plot.",
    "findings": ["prices are in cents"],
    "objectives": ["a plot of weekly revenue"],
    "steps": [
        {"id": "load", "description": "Load the data"},
        {"id": "clean", "description": "Drop rows with null price"},
    ],
}


def card_states(messages) -> dict[str, dict]:
    """Each card's synced state after every message, in the order its comm was opened."""
    states: dict[str, dict] = {}
    for message in messages:
        content = message["content"]
        if message["msg_type"] == "comm_open" and "snapshot" in content["data"]["state"]:
            states[content["comm_id"]] = dict(content["data"]["state"])
        elif message["msg_type"] == "comm_msg" and content["comm_id"] in states:
            if content["data"].get("method") == "update":
                states[content["comm_id"]].update(content["data"].get("state", {}))
    return states


def test_a_superseded_card_shows_its_own_cells_moment(kernel, tmp_path):
    notebook = tmp_path / "story.ipynb"
    messages = run(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans")
    messages += run(
        kernel,
        "import jupyter_plans\nsession = jupyter_plans.current_session()\nsession.on()\n"
        f"first = session.call_tool('plan_submit', {PROPOSAL!r}, turn_id='t1')\n"
        "first_hash = session.snapshot().pending_proposal_hash\nprint(first_hash)",
    )
    # Between this cell and the next card: the person asks for changes, the agent proposes again.
    messages += run(kernel, "%plan revise keep the outliers")
    messages += run(
        kernel,
        f"second = session.call_tool('plan_submit', {REVISED!r}, turn_id='t2')\n"
        "print(session.snapshot().pending_proposal_hash)",
    )
    printed = "".join(  # a kernel may send one print's text and its newline apart
        m["content"]["text"]
        for m in messages
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    ).splitlines()
    first, second = printed[0], printed[-1]
    assert first != second and len(first) == 64
    loaded, proposed, revised = card_states(messages).values()
    # The card shown on load: plan mode was not on yet when its cell ended.
    assert loaded["superseded_by"] and loaded["snapshot"]["mode"] == "default"
    assert loaded["snapshot"]["pending_proposal_hash"] is None
    # The card of the cell that printed the first hash shows that proposal, not the revised one.
    assert proposed["superseded_by"]
    assert proposed["snapshot"]["pending_proposal_hash"] == first
    assert proposed["snapshot"]["plan"]["revision"] == 1 and proposed["notes"] is None
    # The newest card is live, with the revised proposal and the notes it answers.
    assert revised.get("superseded_by") is None
    assert revised["snapshot"]["pending_proposal_hash"] == second


def test_an_unloaded_extensions_cards_go_back_to_their_own_cells_moment(kernel, tmp_path):
    """After %unload_ext no card is live, so each shows what its own cell showed, as the saved
    notebook does (04: the card under %load_ext said "no plan yet", not the plan of later)."""
    notebook = tmp_path / "unloaded.ipynb"
    messages = run(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans")
    messages += run(
        kernel,
        "import jupyter_plans\nsession = jupyter_plans.current_session()\n"
        "session.call_tool('update_plan', {'expected_revision': 0, "
        "'steps': [{'id': 'load', 'description': 'Load the data'}]})",
    )
    (loaded,) = card_states(messages).values()
    assert loaded["snapshot"]["plan"]["revision"] == 1  # live while the extension is loaded
    messages += run(kernel, "%unload_ext jupyter_plans")
    (loaded,) = card_states(messages).values()
    assert loaded["ended"] and loaded["snapshot"]["plan"] is None
