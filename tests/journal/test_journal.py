"""DESIGN section 8: the journal's Markdown views, made from the events, on both engines.

The files of each plan shape are compared with tests/journal/snapshots/SHAPE/; set
JUPYTER_PLANS_UPDATE_SNAPSHOTS=1 to rewrite them, to be reviewed in the diff.
"""

import itertools
import os
import re
from pathlib import Path

import pytest

import jupyter_plans.session.transaction
from jupyter_plans import PlanStore, PlanStoreError
from jupyter_plans.journal.markdown import inert
from jupyter_plans.journal.views import FILES, export, render

SNAPSHOTS = Path(__file__).parent / "snapshots"
HOSTILE = [
    "# x",
    "## Steps",
    "|a|b|",
    "[x](javascript:alert(1))",
    "![x](https://evil.example/p.png)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "`code` and ```fence```",
    "1. one",
    "7) seven",
    "- dash",
    "+ plus",
    "* star",
    "> quote",
    "---",
    "===",
    "*em* _em_ **bold** ~~gone~~",
    "&lt;b&gt; &copy;",
    "$x^2$",
    "see https://evil.example and www.evil.example or me@evil.example",
    "<https://evil.example>",
    "[^1] [ ] [x]",
    "trailing backslash \\",
    "\u200bzero width first",
]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """Event times from a fixed start, a second apart: the same history on every run."""
    ticks = itertools.count()
    start = 1_741_078_800_000  # 2025-03-04T09:00:00Z
    clock = jupyter_plans.session.transaction
    monkeypatch.setattr(clock, "_now_ms", lambda: start + 1000 * next(ticks))


def call(session, name, args, **kwargs):
    result = session.call_tool(name, args, **kwargs)
    assert not result.is_error, result.content
    return result


def flat(session):
    call(
        session,
        "update_plan",
        {
            "expected_revision": 0,
            "explanation": "Clean the sales data, then chart weekly revenue.",
            "findings": ["price is null in 3.1% of rows"],
            "objectives": ["a weekly revenue chart"],
            "steps": [
                {"id": "load", "description": "Load sales.csv"},
                {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
                {"id": "chart", "description": "Chart weekly revenue", "depends_on": ["clean"]},
            ],
        },
    )
    steps = [
        {
            "id": "load",
            "description": "Load sales.csv",
            "status": "completed",
            "acceptance": "13,290 rows",
            "evidence": "13,290 rows, 9 columns",
        },
        {
            "id": "clean",
            "description": "Drop rows with null price",
            "status": "in_progress",
            "depends_on": ["load"],
        },
        {"id": "chart", "description": "Chart weekly revenue", "depends_on": ["clean"]},
    ]
    # A refusal the agent corrects at once is counted, not listed.
    refused = session.call_tool("update_plan", {"expected_revision": 7, "steps": steps})
    assert refused.is_error
    call(session, "update_plan", {"expected_revision": 1, "steps": steps})


def phased(session):
    session.start_planning("Fit a baseline model of weekly revenue")
    call(session, "ask_user", {"question": "Which month is held out?"}, turn_id="t1")
    session.answer("June")
    body = {
        "explanation": "Two phases: the data, then the model.",
        "findings": ["two stores report cents"],
        "objectives": ["a baseline with MAPE on June"],
        "phases": [
            {
                "title": "Data",
                "steps": [
                    {"id": "load", "description": "Load sales.csv"},
                    {"id": "cents", "description": "Fix the cents", "depends_on": ["load"]},
                ],
            },
            {
                "title": "Model",
                "steps": [
                    {"id": "fit", "description": "Fit the baseline", "depends_on": ["cents"]},
                    {"id": "score", "description": "Score on June", "depends_on": ["fit"]},
                ],
            },
        ],
    }
    call(session, "plan_submit", body, turn_id="t2")
    session.revise("Hold out June only")
    body["phases"][1]["steps"][1]["description"] = "Score on June only"
    call(session, "plan_submit", body, turn_id="t3")
    session.approve()
    body["phases"][0]["steps"][0]["status"] = "completed"
    call(session, "update_plan", {"expected_revision": 2, **body}, turn_id="t4")
    # Refusals worth knowing: one the agent did not correct, and a late call.
    wrong = session.call_tool("record_decision", {"title": " ", "rationale": "x"}, turn_id="t4")
    assert wrong.is_error
    session.off()
    late = session.call_tool("update_plan", {"expected_revision": 3, **body}, turn_id="t4")
    assert late.is_error and "late" in late.content


def waiting(session):
    session.on()
    call(
        session,
        "plan_submit",
        {
            "explanation": "A small plan",
            "findings": [],
            "objectives": ["a chart"],
            "steps": [{"id": "chart", "description": "Chart it"}],
        },
        turn_id="t1",
    )


def decisions(session):
    flat(session)
    call(
        session,
        "record_decision",
        {
            "title": "Drop null prices",
            "rationale": "3.1% of rows; imputing would invent revenue",
            "sources": ["df.price.isna().mean() == 0.031", "the data owner, by mail"],
        },
    )
    call(session, "record_decision", {"title": "Weekly grain", "rationale": "daily is too noisy"})


def finished(session):
    objectives = ["a weekly revenue chart", "a baseline with its error"]
    steps = [
        {"id": "load", "description": "Load sales.csv", "status": "completed"},
        {"id": "fit", "description": "Fit the baseline", "status": "completed"},
    ]
    args = {"expected_revision": 0, "objectives": objectives, "steps": steps}
    call(session, "update_plan", args)
    review = [
        {"objective": objectives[0], "outcome": "drawn", "evidence": "figure 1, 26 weeks"},
        {"objective": objectives[1], "outcome": "fitted", "evidence": "MAPE 8.1% on June"},
    ]
    call(session, "finish_plan", {"review": review})


def hostile(session):
    session.start_planning(" / ".join(HOSTILE))
    steps = [
        {"id": f"s{i}", "description": text, "acceptance": text}
        for i, text in enumerate(HOSTILE[:12])
    ]
    steps.append({"id": "`|*[x]<b>", "description": "an id of markup", "depends_on": ["s0"]})
    body = {
        "explanation": HOSTILE[3],
        "findings": HOSTILE[:20],
        "objectives": HOSTILE[4:6],
        "phases": [{"title": HOSTILE[0], "steps": steps}, {"title": HOSTILE[2], "steps": []}],
    }
    call(session, "plan_submit", body, turn_id="t1")
    session.approve()
    for step in steps:
        step["status"], step["evidence"] = "completed", HOSTILE[5]
    call(session, "update_plan", {"expected_revision": 1, **body}, turn_id="t1")
    decision = {"title": HOSTILE[0], "rationale": HOSTILE[3], "sources": HOSTILE[:20]}
    call(session, "record_decision", decision)
    review = [{"objective": o, "outcome": HOSTILE[6], "evidence": HOSTILE[2]} for o in HOSTILE[4:6]]
    call(session, "finish_plan", {"review": review})


def cells(session):
    """The cells that did the steps (DESIGN section 13), one of them changed after its step
    was completed and one with an id of markup."""
    flat(session)
    session.cell_ran("clean-1", 4, True, "df = df.dropna(subset=['price'])")
    session.cell_ran("`|*[x]<b>", 5, False, "df.plot(")
    steps = session.snapshot().model_dump(mode="json")["plan"]["steps"]
    steps[1]["status"] = "completed"
    call(session, "update_plan", {"expected_revision": 2, "steps": steps})
    session.cell_ran("clean-1", 7, True, "df = df.dropna()")


def comments(session):
    """The person's comments (DESIGN section 14): on a step, on the plan, on a step reworded
    and on one removed since; one addressed by the agent, one resolved, one hostile; and an
    approval with the open ones to follow."""
    waiting(session)
    session.comment("chart", "use weekly bins", by="alice")
    session.comment(None, HOSTILE[5] + "\nsecond line", by="bob")
    session.comment("chart", "label the axes", by="alice")
    session.revise("", by="alice")
    call(
        session,
        "plan_submit",
        {
            "explanation": "A small plan, with weekly bins",
            "findings": [],
            "objectives": ["a chart"],
            "steps": [{"id": "chart", "description": "Chart it by week"}],
        },
        turn_id="t2",
    )
    call(session, "comment_reply", {"comment_id": "c1", "reply": "Weekly bins now"}, turn_id="t2")
    session.resolve_comment("c1", by="alice")
    session.approve(by="alice")


SHAPES = {
    "empty": lambda session: None,
    "flat": flat,
    "phased": phased,
    "waiting": waiting,
    "decisions": decisions,
    "finished": finished,
    "hostile": hostile,
    "cells": cells,
    "comments": comments,
}


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_matches_its_snapshot_and_a_second_export_is_identical(
    session, tmp_path, shape, monkeypatch
):
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")  # the person deciding, on every machine
    SHAPES[shape](session)
    cursor, files = export(session, tmp_path / "one")
    assert [file.name for file in files] == list(FILES) and cursor == session.cursor()
    texts = {file.name: file.read_bytes() for file in files}
    export(session, tmp_path / "two")
    assert {name: (tmp_path / "two" / name).read_bytes() for name in FILES} == texts
    for name, text in texts.items():
        assert f"Session s, cursor {cursor}.".encode() in text.split(b"\n")[2], name
        expected = SNAPSHOTS / shape / name
        if os.environ.get("JUPYTER_PLANS_UPDATE_SNAPSHOTS"):
            expected.parent.mkdir(parents=True, exist_ok=True)
            expected.write_bytes(text)
        assert text.decode() == expected.read_text(encoding="utf-8"), f"{shape}/{name}"


def test_the_views_are_made_from_the_events_alone_and_never_read_back(session, tmp_path):
    tmp_path = tmp_path / "journal"
    tmp_path.mkdir()
    finished(session)
    (tmp_path / "plan.md").write_text("# edited by hand\n")
    export(session, tmp_path)
    assert "edited by hand" not in (tmp_path / "plan.md").read_text()
    assert render("s", session.events()) == {
        name: (tmp_path / name).read_text(encoding="utf-8") for name in FILES
    }
    # A later change moves the stamp and the views with it.
    more = {"expected_revision": 1, "steps": [{"id": "load", "description": "Load it again"}]}
    call(session, "update_plan", more)
    cursor, _ = export(session, tmp_path)
    assert f"cursor {cursor}." in (tmp_path / "checkpoint.md").read_text()
    assert "- Finished: no" in (tmp_path / "checkpoint.md").read_text()
    assert "reopened the finished plan" in (tmp_path / "progress.md").read_text()


def test_a_failed_export_leaves_each_file_whole_and_no_temporary_file(
    session, tmp_path, monkeypatch
):
    tmp_path = tmp_path / "journal"
    flat(session)
    export(session, tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in FILES}
    call(session, "record_decision", {"title": "More", "rationale": "so the views change"})
    replaced = []

    def failing_replace(source, target):
        if len(replaced) == 2:
            raise OSError(28, "No space left on device")
        replaced.append(target)
        os.rename(source, target)

    monkeypatch.setattr("jupyter_plans.journal.views.os.replace", failing_replace)
    with pytest.raises(PlanStoreError, match="cannot export to .*: No space left on device$"):
        export(session, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)  # no .tmp left
    texts = render("s", session.events())
    for name in FILES:
        now = (tmp_path / name).read_bytes()
        assert now in (before[name], texts[name].encode()), name


def test_a_folder_that_is_a_file_is_refused_in_one_line(session, tmp_path):
    (tmp_path / "taken").write_text("x")
    with pytest.raises(PlanStoreError) as refused:
        export(session, tmp_path / "taken")
    assert "\n" not in str(refused.value) and "cannot export to" in str(refused.value)


@pytest.mark.parametrize("text", HOSTILE)
def test_inert_text_shows_as_written_and_makes_no_structure(text):
    mistune = pytest.importorskip("mistune")
    markdown = mistune.create_markdown(
        escape=False, plugins=["table", "strikethrough", "url", "math", "footnotes", "task_lists"]
    )
    made = inert(text)
    assert "\n" not in made and made == inert(text)
    for frame in ("{}", "- {}", "## {}", "| {} | b |\n| --- | --- |\n| {} | c |"):
        html = markdown(frame.format(made, made) + "\n")
        tags = set(re.findall(r"<([a-z0-9]+)", html))
        assert tags <= {"p", "ul", "li", "h2", "table", "thead", "tbody", "tr", "th", "td"}, html
        assert html.count("<li") <= 1 and html.count("<h2") <= 1 and html.count("<tr") <= 2


def test_inert_keeps_the_words():
    assert inert("Load sales.csv (13,290 rows)") == "Load sales.csv (13,290 rows)"
    assert inert("1. one") == "1\\. one" and inert("3.1% of rows") == "3.1% of rows"
    assert inert("- a\n# b") == "\\- a \\# b"
    assert inert("a\x00b\tc") == "a b c"
    assert inert(None) == "" and inert("") == ""


def test_the_cli_exports_and_a_bad_folder_is_one_line_exit_1(tmp_path):
    from tests.helpers.cli import on

    db = str(tmp_path / "nb.plans.sqlite")
    with PlanStore(db) as store:
        finished(store.session("s"))
    done = on(db, "export", str(tmp_path / "journal"))
    assert done.returncode == 0, done.stderr
    assert "(cursor 2)" in done.stdout and done.stderr == ""
    assert sorted(p.name for p in (tmp_path / "journal").iterdir()) == sorted(FILES)
    (tmp_path / "taken").write_text("x")
    refused = on(db, "export", str(tmp_path / "taken"))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("jupyter-plans: cannot export to ")
    assert len(refused.stderr.strip("\n").splitlines()) == 1


def test_new_views_are_readable_and_a_replaced_view_keeps_its_mode(session, tmp_path):
    _, files = export(session, tmp_path / "journal")
    assert {file.stat().st_mode & 0o777 for file in files} == {0o644}
    files[0].chmod(0o600)
    export(session, tmp_path / "journal")
    assert files[0].stat().st_mode & 0o777 == 0o600
