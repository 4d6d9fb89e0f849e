"""The agent's plan, mirrored: each ACP plan update is passed on and recorded as a revision
(author agent, name acp_plan), with stable ids, adapted to the plan's bounds, never refused."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

from jupyter_plans.agents.acp.mirror import REMEMBERED, PlanMirror
from tests import waiting

from .harness import agent_log, bridged, new_session, prompt, run, script, until


def entries(*pairs):
    return [
        {"content": content, "priority": "medium", "status": status} for content, status in pairs
    ]


def test_ids_follow_contents_by_first_appearance():
    mirror = PlanMirror()
    first, _ = mirror.adapt(
        entries(("Load", "completed"), ("Clean", "in_progress"), ("Plot", "pending"))
    )
    assert [s["id"] for s in first] == ["e1", "e2", "e3"]
    second, notes = mirror.adapt(
        entries(("Profile", "pending"), ("Load", "completed"), ("Plot", "pending"))
    )
    assert [(s["id"], s["description"]) for s in second] == [
        ("e4", "Profile"),
        ("e1", "Load"),
        ("e3", "Plot"),
    ]
    assert notes == []
    # A content that comes back keeps its id; a repeated content gets one id per occurrence.
    third, _ = mirror.adapt(
        entries(("Clean", "pending"), ("Clean", "pending"), ("Clean", "pending"))
    )
    assert [s["id"] for s in third] == ["e2", "e5", "e6"]


def test_a_step_keeps_its_id_and_wording_through_its_active_form():
    """Claude Code sends the entry in progress in its active form ("Reading the data")."""
    mirror = PlanMirror()
    mirror.adapt(entries(("Read the data", "pending"), ("Plot it", "pending")))
    working, _ = mirror.adapt(entries(("Reading the data", "in_progress"), ("Plot it", "pending")))
    assert [(s["id"], s["description"], s["status"]) for s in working] == [
        ("e1", "Read the data", "in_progress"),
        ("e2", "Plot it", "pending"),
    ]
    done, _ = mirror.adapt(entries(("Read the data", "completed"), ("Plotting it", "in_progress")))
    assert [(s["id"], s["description"], s["status"]) for s in done] == [
        ("e1", "Read the data", "completed"),
        ("e2", "Plot it", "in_progress"),
    ]
    # Its end may bring a wording never seen outside in_progress: the id stays, that wording
    # becomes the step's.
    ended, _ = mirror.adapt(entries(("Read the data", "completed"), ("Plot the data", "completed")))
    assert [(s["id"], s["description"]) for s in ended] == [
        ("e1", "Read the data"),
        ("e2", "Plot the data"),
    ]


def test_a_new_entry_in_progress_at_a_place_is_not_taken_for_an_active_form():
    mirror = PlanMirror()
    mirror.adapt(entries(("Load", "pending")))
    # "Load" is still in the list (moved down): the new entry is a new step.
    steps, _ = mirror.adapt(entries(("Profiling", "in_progress"), ("Load", "pending")))
    assert [(s["id"], s["description"]) for s in steps] == [("e2", "Profiling"), ("e1", "Load")]


def test_a_new_plan_started_where_a_finished_one_was_takes_its_own_words_and_new_ids():
    """A second task: its first entry starts in progress at a place the first plan's completed
    step held. It is a new step, never a rewording of the old one."""
    mirror = PlanMirror()
    mirror.adapt(entries(("Load sales.csv and inspect the columns", "pending")))
    mirror.adapt(entries(("Loading sales.csv and inspecting the columns", "in_progress")))
    mirror.adapt(entries(("Load sales.csv and inspect the columns", "completed")))
    second, _ = mirror.adapt(
        entries(("Fit a baseline linear model", "in_progress"), ("Report the R^2", "pending"))
    )
    assert [(s["id"], s["description"], s["status"]) for s in second] == [
        ("e2", "Fit a baseline linear model", "in_progress"),
        ("e3", "Report the R^2", "pending"),
    ]
    # A new plan in place of one that never started: the other entries changed too.
    fresh = PlanMirror()
    fresh.adapt(entries(("Read the data", "pending"), ("Plot it", "pending")))
    steps, _ = fresh.adapt(entries(("Profiling", "in_progress"), ("Summarise", "pending")))
    assert [(s["id"], s["description"]) for s in steps] == [
        ("e3", "Profiling"),
        ("e4", "Summarise"),
    ]


def test_the_proposal_takes_the_plan_texts_words_for_an_entry_in_its_active_form():
    """The first plan's entry was sent in progress, in its active form only; the plan text's
    list item is the step's words, and later updates keep them."""
    mirror = PlanMirror()
    mirror.adapt(entries(("Loading sales.csv", "in_progress"), ("Fit the model", "pending")))
    steps = mirror.take_words(["Load sales.csv", "Fit the model", "Plot the fit"])
    assert [(s["id"], s["description"]) for s in steps] == [
        ("e1", "Load sales.csv"),
        ("e2", "Fit the model"),
    ]
    again, _ = mirror.adapt(
        entries(("Loading sales.csv", "in_progress"), ("Fit the model", "pending"))
    )
    assert [(s["id"], s["description"]) for s in again] == [
        ("e1", "Load sales.csv"),
        ("e2", "Fit the model"),
    ]
    # Words that are not an active form of any item stay the agent's.
    other = PlanMirror()
    other.adapt(entries(("Checking the data", "in_progress")))
    assert [s["description"] for s in other.take_words(["Load sales.csv"])] == ["Checking the data"]


def test_a_reworded_entry_keeps_its_id():
    """DESIGN section 10's alignment: equal contents align; between them, as many entries on
    both sides pair in order, else by their words (half of the shorter one's in common, the
    closest pair first); an old entry left unpaired is removed, a new one gets a new id."""
    first = [("Read the sales data", "pending"), ("Drop empty rows", "pending")]
    last = ("Plot monthly totals", "pending")

    def rows(steps):
        return [(s["id"], s["description"]) for s in steps]

    mirror = PlanMirror()
    mirror.adapt(entries(*first, last))
    # In place, as many on both sides: paired in order, whatever the words.
    steps, _ = mirror.adapt(entries(first[0], ("Remove rows with no amount", "pending"), last))
    assert rows(steps) == [
        ("e1", "Read the sales data"),
        ("e2", "Remove rows with no amount"),
        ("e3", "Plot monthly totals"),
    ]
    # One more entry between the same two: paired by words, the other is new.
    steps, _ = mirror.adapt(
        entries(
            first[0],
            ("Check the dates", "pending"),
            ("Remove the rows with no amount", "pending"),
            last,
        )
    )
    assert rows(steps)[1:3] == [("e4", "Check the dates"), ("e2", "Remove the rows with no amount")]
    # The closest pair first: two old entries share words with the new one; the second
    # shares the most.
    steps, _ = mirror.adapt(entries(first[0], ("Remove the dates with no amount", "pending"), last))
    assert rows(steps)[1] == ("e2", "Remove the dates with no amount")
    # Nothing in common with what was between: the old one is removed, the new one new.
    steps, _ = mirror.adapt(entries(first[0], ("Fit", "pending"), ("Export", "pending"), last))
    assert rows(steps)[1:3] == [("e5", "Fit"), ("e6", "Export")]
    # A rewording is remembered: the words coming back keep the id.
    steps, _ = mirror.adapt(entries(first[0], ("Remove rows with no amount", "pending"), last))
    assert rows(steps)[1] == ("e2", "Remove rows with no amount")


def test_a_reworded_step_keeps_its_comments_on_an_earlier_wording(tmp_path, person):
    """The person comments on a step; the agent's next plan rewords it: the same step, shown
    reworded on the card, its comment "on an earlier wording", none "on a removed step"."""
    from jupyter_plans.card.view import card_data

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            before = [["Read the data", "pending"], ["Plot totals", "pending"]]
            await prompt(conn, sid, script({"plan": before}))
            await person("comment", "e2", "per month, please", "alice")
            after = [["Read the data", "pending"], ["Plot the totals per month", "pending"]]
            await prompt(conn, sid, script({"plan": after}))
            await until(lambda: person.snapshot()["plan"]["revision"] == 2)
            steps = [(s["id"], s["description"]) for s in person.snapshot()["plan"]["steps"]]
            assert steps == [("e1", "Read the data"), ("e2", "Plot the totals per month")]
            (comment,) = card_data(person.session, "a.ipynb")["snapshot"]["comments"]
            assert comment["step_id"] == "e2"
            from jupyter_plans.plan.comments import anchor_words

            words = anchor_words(comment, person.snapshot()["plan"])
            assert words == "on an earlier wording: Plot totals"

    run(main())


def test_the_proposal_takes_a_longer_list_items_words_for_an_active_form():
    """The first plan's entry in its active form only ("Loading sales.csv"); the plan text's
    item says more ("Load sales.csv and inspect the columns"): the item's words, all of them."""
    mirror = PlanMirror()
    mirror.adapt(entries(("Loading sales.csv", "in_progress"), ("Plotting the totals", "pending")))
    items = ["Load sales.csv and inspect the columns", "Plot the totals by month, as bars"]
    steps = mirror.take_words(items)
    assert [(s["id"], s["description"]) for s in steps] == [("e1", items[0]), ("e2", items[1])]


def test_active_forms_are_told_by_their_first_word():
    from jupyter_plans.agents.acp.text import active_form_of

    pairs = [
        ("Loading sales.csv", "Load sales.csv"),
        ("Fitting a baseline linear model", "Fit a baseline linear model"),
        ("Writing the report.", "Write the report"),
        ("Plotting **monthly** totals", "Plot monthly totals"),
        ("Reading the data", "read the data"),
        ("Loading sales.csv", "Load sales.csv and inspect the columns"),
        ("Loading sales.csv and inspecting the columns", "Load sales.csv and inspect the columns"),
    ]
    for active, item in pairs:
        assert active_form_of(active, item), (active, item)
    for active, item in [
        ("Loading sales.csv", "Load orders.csv"),
        ("Load sales.csv", "Load sales.csv"),
        ("Sing a song", "S a song"),
        ("Loading", "Load sales.csv"),
        ("Loading sales.csv and more", "Load sales.csv"),
        ("Loading orders.csv", "Load sales.csv and inspect the columns"),
    ]:
        assert not active_form_of(active, item), (active, item)


def test_ids_are_seeded_from_the_stored_plan():
    stored = [{"id": "e7", "description": "Load"}, {"id": "custom", "description": "Plot"}]
    steps, _ = PlanMirror(stored).adapt(entries(("Load", "pending"), ("Plot", "pending")))
    assert [s["id"] for s in steps] == ["e7", "e8"]


def test_long_content_is_cut_at_a_character_boundary_with_an_ellipsis():
    content = "é" * 200  # 400 bytes, two per character
    (step,), notes = PlanMirror().adapt(entries((content, "pending")))
    assert step["description"].endswith("…")
    assert len(step["description"].encode()) <= 240
    assert content.startswith(step["description"][:-1])
    assert step["description"][:-1] == "é" * 118  # 236 bytes: one more would pass 240 with "…"
    assert len(notes) == 1 and "cut" in notes[0] and "240" in notes[0]


def test_entries_past_32_are_left_out_and_a_second_in_progress_is_pending():
    pairs = [(f"step {n}", "in_progress" if n in (3, 5) else "pending") for n in range(1, 41)]
    steps, notes = PlanMirror().adapt(entries(*pairs))
    assert len(steps) == 32
    assert [s["status"] for s in steps[2:5]] == ["in_progress", "pending", "pending"]
    assert any("33 to 40 left out" in n for n in notes)
    assert any("entry 5" in n and "second in_progress" in n for n in notes)


def test_what_a_step_cannot_hold_is_adapted_not_refused():
    raw = [
        {"content": "line one\nline two\u202e", "status": "pending"},
        {"content": "   ", "status": "pending"},
        {"content": "Finish", "status": "done"},
        {"status": "pending"},
    ]
    steps, notes = PlanMirror().adapt(raw)
    assert [s["description"] for s in steps] == [
        "line one line two",
        "(no text)",
        "Finish",
        "(no text)",
    ]
    assert [s["status"] for s in steps] == ["pending"] * 4
    assert len(notes) == 4


def _plan_events(person):
    return [e for e in person.events("plan_updated")]


def test_a_plan_update_reaches_the_client_and_is_a_revision_by_the_agent(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            plan = [
                ["Load the CSV", "completed"],
                ["Fit the model", "in_progress"],
                ["Plot", "pending"],
            ]
            await prompt(conn, sid, script({"plan": plan}))
            (update,) = client.kinds("plan")
            assert [(e.content, e.status) for e in update.entries] == [tuple(p) for p in plan]

            snapshot = person.snapshot()
            assert snapshot["plan"]["revision"] == 1
            assert [
                (s["id"], s["description"], s["status"]) for s in snapshot["plan"]["steps"]
            ] == [
                ("e1", "Load the CSV", "completed"),
                ("e2", "Fit the model", "in_progress"),
                ("e3", "Plot", "pending"),
            ]
            (event,) = _plan_events(person)
            assert (event.data["name"], event.data["author"]) == ("acp_plan", "agent")
            assert event.data["result"]["is_error"] is False

    run(main())


def test_a_plan_update_of_items_is_mirrored_and_one_of_markdown_only_passed_on(tmp_path, person):
    """ACP's newer `plan_update` (to clients with the plan capability): its `items` plan is
    the agent's plan as `plan` is; a `markdown` one is passed on and is no revision."""
    items = {
        "sessionUpdate": "plan_update",
        "plan": {
            "type": "items",
            "planId": "todo",
            "entries": [
                {"content": "Load", "status": "completed", "priority": "medium"},
                {"content": "Fit", "status": "in_progress", "priority": "medium"},
            ],
        },
    }
    markdown = {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": "plan-mode", "content": "# Plan\n\n- Load"},
    }

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"raw_update": items}, {"raw_update": markdown}))
            log = agent_log(tmp_path)
            sent = [e for e in log if e["message"].get("method") == "session/update"]
            assert len(sent) >= 2
            snapshot = person.snapshot()
            assert snapshot["plan"]["revision"] == 1
            assert [
                (s["id"], s["description"], s["status"]) for s in snapshot["plan"]["steps"]
            ] == [
                ("e1", "Load", "completed"),
                ("e2", "Fit", "in_progress"),
            ]
            assert len(_plan_events(person)) == 1

    run(main())


def test_an_unchanged_plan_adds_no_revision_and_ids_stay(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            one = {"plan": [["A", "pending"], ["B", "pending"]]}
            two = {"plan": [["C", "pending"], ["A", "in_progress"], ["B", "pending"]]}
            await prompt(conn, sid, script(one, one, two, two))
            assert len(client.kinds("plan")) == 4  # every update still reaches the client
            events = _plan_events(person)
            assert len(events) == 2
            assert [s["id"] for s in events[1].data["plan"]["steps"]] == ["e3", "e1", "e2"]
            assert person.snapshot()["plan"]["revision"] == 2

    run(main())


def test_each_adaptation_is_named_in_the_event(tmp_path, person):
    long = "x" * 250 + "ü" * 10
    pairs = [[long, "in_progress"], ["second", "in_progress"]] + [
        [f"s{n}", "pending"] for n in range(40)
    ]

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"plan": pairs}))
            (update,) = client.kinds("plan")
            assert len(update.entries) == 42  # the client sees what the agent sent
            (event,) = _plan_events(person)
            steps = event.data["plan"]["steps"]
            assert len(steps) == 32
            assert steps[0]["description"] == "x" * 237 + "…"
            assert steps[1]["status"] == "pending"
            content = event.data["result"]["content"]
            assert "entry 1" in content and "cut" in content
            assert "entry 2 (e2) is a second in_progress entry" in content
            assert "entries 33 to 42 left out" in content

    run(main())


def test_a_status_the_sdk_would_not_take_is_still_mirrored(tmp_path, person):
    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            raw = [{"content": "Ship it", "priority": "high", "status": "done"}]
            await prompt(conn, sid, script({"raw_plan": raw}))
            (event,) = await until(lambda: _plan_events(person), what="the plan recorded")
            assert event.data["plan"]["steps"][0]["status"] == "pending"
            assert "'done'" in event.data["result"]["content"]

    run(main())


def test_the_mirror_keeps_the_ids_of_the_most_recent_contents_only():
    """An agent that renames its steps all day does not grow the bridge: the ids of the 4096
    most recently seen contents are kept; a content forgotten and sent again gets a new id."""
    mirror = PlanMirror()
    (first,), _ = mirror.adapt(entries(("Load", "pending")))
    for n in range(5000):
        mirror.adapt(entries((f"step {n}", "pending"), ("Plot", "pending")))
    assert len(mirror._ids) <= REMEMBERED
    again, _ = mirror.adapt(entries(("Load", "pending"), ("Plot", "pending")))
    assert again[0]["id"] != first["id"]  # forgotten: a new id
    assert again[1]["id"] == "e3"  # seen all along: kept


def test_messages_pass_on_while_another_process_holds_the_plan_file(tmp_path, person):
    """The relay waits for no plan write: with the plan file's write lock held elsewhere, the
    agent's next message reaches the client while the lock is still held; the turn ends once
    its plan is recorded."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        connection = sqlite3.connect(tmp_path / "a.plans.sqlite", isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait(30)
        connection.execute("COMMIT")
        connection.close()

    async def main():
        async with bridged(tmp_path) as (client, conn, _):
            sid = await new_session(conn, tmp_path)
            await prompt(conn, sid, script({"say": "first"}))  # its context block delivered
            holder = threading.Thread(target=hold)
            holder.start()
            held.wait(10)
            try:
                plan = {"plan": [["Load", "pending"]]}
                started = time.monotonic()
                running = prompt(conn, sid, script(plan, {"say": "still here"}))
                await waiting.until(
                    lambda: any("still here" in str(u) for _, u in client.updates),
                    "the agent's next message, the lock held",
                )
                print(f"relayed {time.monotonic() - started:.3f} s after the prompt, lock held")
                assert not running.done()  # the turn's end waits for its plan
            finally:
                release.set()
                holder.join()
            await asyncio.wait_for(running, 30)
            assert [s["description"] for s in person.snapshot()["plan"]["steps"]] == ["Load"]

    run(main())
