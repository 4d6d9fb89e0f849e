"""A plan file's changes, told by the file system: another process's commit, and nothing else."""

import subprocess
import sys
import threading
from pathlib import Path

from jupyter_plans import PlanStore
from jupyter_plans.store.changes import on_change
from tests.waiting import wait_until

WRITE = """
import sys
from jupyter_plans import PlanStore
PlanStore(sys.argv[1]).session().call_tool(
    "update_plan", {"expected_revision": 0, "steps": [{"id": "a", "description": "x"}]}
)
"""


def watching(folder: Path) -> None:
    """Wait until the folder's watch (its own thread) is up: a probe file in it is touched
    until its own listener is told; the plan files' listeners hear nothing of it."""
    probe, told = folder / "probe.plans.sqlite", threading.Event()
    stop = on_change(probe, told.set)
    try:
        wait_until(lambda: probe.touch() or told.wait(0.1), f"the watch of {folder}")
    finally:
        stop()


def test_another_process_commit_is_told_and_a_neighbour_file_is_not(tmp_path):
    plan, neighbour = tmp_path / "a.plans.sqlite", tmp_path / "b.plans.sqlite"
    PlanStore(plan).close()
    PlanStore(neighbour).close()
    told, other = threading.Event(), threading.Event()
    stop, stop_other = on_change(plan, told.set), on_change(neighbour, other.set)
    try:
        watching(tmp_path)
        subprocess.run([sys.executable, "-c", WRITE, str(neighbour)], check=True)
        assert other.wait(5), "the neighbour's commit was not told"
        # Nothing to wait for but time: a notice that should not come.
        assert not told.wait(0.5), "a commit to another file was told as this one's"
        subprocess.run([sys.executable, "-c", WRITE, str(plan)], check=True)
        assert told.wait(5), "another process's commit was not told"
    finally:
        stop()
        stop_other()


def test_a_failing_listener_does_not_stop_the_others(tmp_path):
    plan = tmp_path / "a.plans.sqlite"
    PlanStore(plan).close()
    told = threading.Event()

    def broken():
        raise RuntimeError("the loop is closed")

    stops = [on_change(plan, broken), on_change(plan, told.set)]
    try:
        watching(tmp_path)
        subprocess.run([sys.executable, "-c", WRITE, str(plan)], check=True)
        assert told.wait(5)
    finally:
        for stop in stops:
            stop()


def test_a_folder_deleted_and_made_again_is_watched_again(tmp_path):
    """A folder deleted and made again is watched again: the listener that was there and one
    that comes after are both told of a commit in it."""
    import shutil

    folder = tmp_path / "work"
    folder.mkdir()
    plan = folder / "a.plans.sqlite"
    PlanStore(plan).close()
    first = threading.Event()
    stop_first = on_change(plan, first.set)
    try:
        watching(folder)
        shutil.rmtree(folder)
        folder.mkdir()
        PlanStore(plan).close()
        watching(folder)  # the watcher has seen its folder go and come back
        told = threading.Event()
        stop = on_change(plan, told.set)
        try:
            first.clear()
            subprocess.run([sys.executable, "-c", WRITE, str(plan)], check=True)
            assert told.wait(5), "a commit in the folder made again was not told"
            assert first.wait(5), "the listener from before was not told"
        finally:
            stop()
    finally:
        stop_first()
