"""A card in a real kernel follows changes that another process commits, without a cell run."""

import random
import statistics
import time

from jupyter_plans import PlanStore
from tests.helpers.kernel import run

SETUP = """
__session__ = {notebook!r}
%load_ext jupyter_plans
card = get_ipython().magics_manager.registry["PlanMagics"].card()
display(card)
"""


def cards_reach(client, cards, cursor, deadline):
    """Wait until every card's synced snapshot is at `cursor`."""
    behind = set(cards)
    while behind and time.monotonic() < deadline:
        try:
            msg = client.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:
            break
        content = msg["content"]
        if msg["msg_type"] == "comm_msg" and content["data"].get("method") == "update":
            snapshot = content["data"].get("state", {}).get("snapshot")
            if snapshot is not None and snapshot["cursor"] == cursor:
                behind.discard(content["comm_id"])
    assert not behind, f"{len(behind)} of {len(cards)} cards did not follow the store"


def test_another_process_writes_and_the_card_follows(kernel, tmp_path):
    notebook = tmp_path / "live.ipynb"
    opened = run(kernel, SETUP.format(notebook=str(notebook)))
    # The cards the setup opened: the one shown on load, and `card`, shown after it.
    cards = live_cards(opened)
    assert len(cards) == 1, "the card shown on load was not superseded by the newer one"
    writer = PlanStore(tmp_path / "live.plans.sqlite").session("default")
    latencies = []
    pause = random.Random(0)
    for revision in range(20):
        steps = [{"id": "a", "description": f"revision {revision + 1}"}]
        started = time.monotonic()
        writer.call_tool("update_plan", {"expected_revision": revision, "steps": steps})
        cards_reach(kernel, cards, writer.cursor(), started + 10)
        latencies.append(time.monotonic() - started)
        time.sleep(pause.uniform(0, 0.3))  # on purpose: land anywhere in the poll interval
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * len(latencies)) - 1]
    print(
        f"cross-process update to the card's synced state: p50 {p50 * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms over {len(latencies)} changes"
    )
    assert p95 < 5  # generous: this proves it follows by itself, not a speed limit


def live_cards(opened):
    """The comm ids of the cards the messages opened that are still live at the end: a card
    shown later supersedes the earlier ones of its session."""
    cards, superseded = [], set()
    for message in opened:
        content = message["content"]
        if message["msg_type"] == "comm_open" and "snapshot" in content["data"]["state"]:
            cards.append(content["comm_id"])
        if message["msg_type"] == "comm_msg" and content["data"].get("method") == "update":
            if content["data"].get("state", {}).get("superseded_by"):
                superseded.add(content["comm_id"])
    return set(cards) - superseded


def test_the_file_systems_notice_not_the_poll_brings_another_process_change(kernel, tmp_path):
    """With the poll set to a minute, each change still arrives in seconds: the kernel is told
    by the file system (inotify through watchfiles), it does not wait for its next look."""
    notebook = tmp_path / "told.ipynb"
    config = "get_ipython().config.PlanMagics.poll_interval = 60\n"
    opened = run(kernel, config + SETUP.format(notebook=str(notebook)))
    cards = live_cards(opened)
    writer = PlanStore(tmp_path / "told.plans.sqlite").session("default")
    for revision in range(5):
        steps = [{"id": "a", "description": f"revision {revision + 1}"}]
        started = time.monotonic()
        writer.call_tool("update_plan", {"expected_revision": revision, "steps": steps})
        cards_reach(kernel, cards, writer.cursor(), started + 10)
        assert time.monotonic() - started < 10  # the poll would take up to 60 s
