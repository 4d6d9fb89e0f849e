"""Steps and the cells that did them (DESIGN section 13), through the session's API on SQLite
and PostgreSQL: which runs are linked, the cell_ran events, the snapshot's `cells`, "changed
after completion", and that none of it touches the plan's revision or a proposal's hash."""

from __future__ import annotations

import hashlib

import pytest

from jupyter_plans.plan.fold import fold


def steps(*statuses):
    ids = ["load", "clean", "plot"]
    return [
        {"id": ids[i], "description": f"Step {ids[i]}", "status": status}
        for i, status in enumerate(statuses)
    ]


def update(session, *statuses):
    revision = session.snapshot().plan.revision if session.snapshot().plan else 0
    result = session.call_tool(
        "update_plan", {"expected_revision": revision, "steps": steps(*statuses)}
    )
    assert not result.is_error, result.content


def cells(session):
    return session.snapshot().model_dump(mode="json")["cells"]


def test_a_run_while_a_step_is_in_progress_is_linked_to_it(session):
    update(session, "in_progress", "pending", "pending")
    revision = session.snapshot().plan.revision
    (seq,) = session.cell_ran("cell-a", 3, True, "df = load()")
    event = session.events(after=seq - 1)[0]
    assert event.kind == "cell_ran"
    assert event.data == {
        "step_id": "load",
        "cell_id": "cell-a",
        "execution_count": 3,
        "ok": True,
        "code_sha256": hashlib.sha256(b"df = load()").hexdigest(),
    }
    session.cell_ran("cell-b", 4, False, "df.plot(")
    assert cells(session) == {
        "load": [
            {"cell_id": "cell-a", "execution_count": 3, "ok": True, "changed": False},
            {"cell_id": "cell-b", "execution_count": 4, "ok": False, "changed": False},
        ]
    }
    assert session.snapshot().plan.revision == revision  # a link is not a plan change
    assert fold("s", session.events()) == session.snapshot()


def test_no_step_in_progress_links_nothing(session):
    assert session.cell_ran("cell-a", 1, True, "x = 1") == []  # no plan at all
    update(session, "pending", "pending", "pending")
    cursor = session.cursor()
    assert session.cell_ran("cell-a", 2, True, "x = 1") == []
    assert session.cursor() == cursor and cells(session) == {}


def test_the_latest_run_of_each_cell_and_at_most_16_cells_a_step(session):
    update(session, "in_progress", "pending", "pending")
    for n in range(20):
        session.cell_ran(f"cell-{n}", n + 1, True, f"x = {n}")
    session.cell_ran("cell-19", 30, False, "x = 'again'")  # again: one entry, its latest run
    session.cell_ran("cell-5", 31, True, "x = 5")  # an old cell again: now the most recent
    linked = cells(session)["load"]
    assert len(linked) == 16
    assert [c["cell_id"] for c in linked][-2:] == ["cell-19", "cell-5"]
    assert linked[-2] == {
        "cell_id": "cell-19",
        "execution_count": 30,
        "ok": False,
        "changed": False,
    }
    assert "cell-0" not in {c["cell_id"] for c in linked}
    assert fold("s", session.events()) == session.snapshot()


def test_a_completed_steps_cell_run_again_with_other_code_is_changed_after_completion(session):
    update(session, "in_progress", "pending", "pending")
    session.cell_ran("cell-a", 1, True, "df = load('v1')")
    update(session, "completed", "pending", "pending")
    # The same code again, no step in progress: nothing to say.
    assert session.cell_ran("cell-a", 2, True, "df = load('v1')") == []
    assert cells(session)["load"][0]["changed"] is False
    # Other code: recorded against the completed step, though no step is in progress.
    (seq,) = session.cell_ran("cell-a", 3, True, "df = load('v2')")
    assert session.events(after=seq - 1)[0].data["step_id"] == "load"
    assert cells(session)["load"] == [
        {"cell_id": "cell-a", "execution_count": 3, "ok": True, "changed": True}
    ]
    # Nothing reopens the step by itself.
    assert session.snapshot().plan.steps[0].status == "completed"
    assert fold("s", session.events()) == session.snapshot()
    # The code as it was at completion again: no longer changed.
    session.cell_ran("cell-a", 4, True, "df = load('v1')")
    assert cells(session)["load"][0]["changed"] is False
    # Reopened and completed again: the code of that moment is what counts.
    session.cell_ran("cell-a", 5, True, "df = load('v3')")
    update(session, "in_progress", "pending", "pending")
    assert cells(session)["load"][0]["changed"] is False
    update(session, "completed", "pending", "pending")
    assert session.cell_ran("cell-a", 6, True, "df = load('v3')") == []
    assert fold("s", session.events()) == session.snapshot()


def test_a_completed_steps_cell_run_for_the_step_in_progress_is_linked_to_both(session):
    update(session, "in_progress", "pending", "pending")
    session.cell_ran("cell-a", 1, True, "df = load()")
    update(session, "completed", "in_progress", "pending")
    assert len(session.cell_ran("cell-a", 2, True, "df = load().dropna()")) == 2
    linked = cells(session)
    assert linked["load"][0]["changed"] is True and linked["clean"][0]["changed"] is False
    assert fold("s", session.events()) == session.snapshot()


def test_a_link_changes_no_waiting_proposals_hash(session):
    update(session, "in_progress", "pending", "pending")
    session.on()
    body = {"explanation": "Why", "findings": [], "objectives": ["o"], "steps": steps("pending")}
    for step in body["steps"]:
        del step["status"]
    assert not session.call_tool("plan_submit", body).is_error
    waiting = session.snapshot().pending_proposal_hash
    session.cell_ran("cell-a", 1, True, "x")  # the stored plan's step is still in progress
    assert session.snapshot().pending_proposal_hash == waiting


@pytest.mark.parametrize(
    ("cell_id", "said"),
    [
        ("", "cell_id is 0 bytes; it must be 1 to 128"),
        ("x" * 129, "cell_id is 129 bytes; it must be 1 to 128"),
        ("a\nb", "cell_id contains U+000A at character 1"),
        ("a\u202eb", "cell_id contains U+202E at character 1"),
        ("   ", "cell_id '   ' is blank; it names no cell"),
        ("\u200b", "cell_id '\\u200b' is blank; it names no cell"),
        (7, "cell_id must be text; found int"),
    ],
)
def test_a_bad_cell_id_is_refused_in_one_line_and_stores_nothing(session, cell_id, said):
    update(session, "in_progress", "pending", "pending")
    cursor = session.cursor()
    with pytest.raises(ValueError) as refused:
        session.cell_ran(cell_id, 1, True, "x")
    assert str(refused.value) == said
    assert session.cursor() == cursor


def test_a_bad_execution_count_is_refused(session):
    update(session, "in_progress", "pending", "pending")
    cursor = session.cursor()
    with pytest.raises(
        ValueError, match=r"execution_count must be 0 to 9223372036854775807; found -1"
    ):
        session.cell_ran("cell-a", -1, True, "x")
    with pytest.raises(ValueError, match="execution_count must be 0 to .*; found a larger number"):
        session.cell_ran("cell-a", 10**30, True, "x")
    assert session.cursor() == cursor
    assert session.cell_ran("cell-a", None, True, "x")  # a run without a count is linked
