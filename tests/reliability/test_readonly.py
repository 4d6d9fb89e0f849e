"""Read-only plan files and folders (DESIGN section 9, exact): a process that cannot write the
plan file or its folder still reads it (snapshot, events, export), a write is refused in one
line naming the file as read-only, and no side file is left that blocks the file's owner.

chmod does not stop root, and the suite runs as root in CI: there the commands run as user
nobody, given only the capability to read and search what root can (so it can run this
Python), never to write where the modes forbid it. The plan's folder is nobody's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans import PlanStore

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
STEPS = [{"id": "load", "description": "load the survey"}, {"id": "plot", "description": "plot it"}]
NOBODY = 65534
# As root: user nobody, held to file modes for writing, able to read and search everywhere.
AS_NOBODY = [
    "setpriv",
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    "--inh-caps=+dac_read_search",
    "--ambient-caps=+dac_read_search",
]


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"the read-only tests must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def owner_prefix(tmp_path_factory):
    """The command prefix that runs a process as the owner of the plan folder, held to its
    modes; the folder's owner is then that user. Checked on a read-only file first."""
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            _unavailable("as root, these tests need setpriv (util-linux) to run as nobody")
        prefix = AS_NOBODY
    probe = tmp_path_factory.mktemp("probe") / "read-only"
    probe.write_text("")
    _own(probe.parent)
    probe.chmod(0o444)
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", f"import jupyter_plans; open({str(probe)!r}, 'a')"],
        capture_output=True,
        text=True,
        env=_env(probe.parent),
    )
    if "PermissionError" not in proc.stderr:
        _unavailable(f"no process here is held to a file's modes: {proc.stderr.strip()!r}")
    return prefix


def _own(path: Path) -> None:
    """As root, give `path` and what is in it to nobody, who runs the commands."""
    if os.geteuid() == 0:
        for found in [path, *path.rglob("*")]:
            os.chown(found, NOBODY, NOBODY)


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _listing(folder: Path) -> dict[str, tuple[int, str]]:
    """Each file of the folder: its mode and its digest."""
    return {
        p.name: (stat.S_IMODE(p.stat().st_mode), hashlib.sha256(p.read_bytes()).hexdigest())
        for p in folder.iterdir()
    }


def _plan_file(folder: Path) -> Path:
    path = folder / "nb.plans.sqlite"
    with PlanStore(path) as store:
        session = store.session("s")
        session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        session.call_tool(
            "record_decision", {"title": "use the 2024 survey", "rationale": "newest"}
        )
    return path


class Runner:
    def __init__(self, prefix: list[str], home: Path) -> None:
        self.prefix, self.home = prefix, home

    def __call__(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*self.prefix, *COMMAND, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(self.home),
        )

    def start(self, script: str) -> subprocess.Popen:
        return subprocess.Popen(
            [*self.prefix, sys.executable, "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_env(self.home),
        )


@pytest.fixture
def run(owner_prefix, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _own(home)
    return Runner(owner_prefix, home)


def _refused_as_read_only(proc, path: Path) -> None:
    lines = proc.stderr.strip("\n").splitlines()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and proc.stdout == "", proc
    assert str(path) in lines[0] and "read-only" in lines[0], lines


def _reads_show_the_plan(run, path: Path, export_to: Path, revision: int = 1) -> None:
    proc = run("snapshot", "--db", str(path), "--session", "s")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    plan = json.loads(proc.stdout)["plan"]
    assert plan["revision"] == revision and [s["id"] for s in plan["steps"]] == ["load", "plot"]
    proc = run("events", "--db", str(path), "--session", "s")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    kinds = [json.loads(line)["kind"] for line in proc.stdout.splitlines()]
    assert kinds.count("plan_updated") == revision and "decision_recorded" in kinds
    proc = run("export", "--db", str(path), "--session", "s", str(export_to))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "load the survey" in (export_to / "plan.md").read_text()
    assert "use the 2024 survey" in (export_to / "decisions.md").read_text()


def _writes_are_refused(run, path: Path) -> None:
    _refused_as_read_only(run("plan", "--db", str(path), "--session", "s", "on"), path)
    update = json.dumps({"expected_revision": 1, "steps": STEPS[:1]})
    _refused_as_read_only(
        run("call", "--db", str(path), "--session", "s", "update_plan", update), path
    )


def _layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a notebook folder with a plan file, the plan file, a folder for exports), both folders
    owned by the unprivileged user the tests run the command line as."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    path = _plan_file(folder)
    exports = tmp_path / "exports"
    exports.mkdir()
    _own(folder)
    _own(exports)
    return folder, path, exports


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_plan_file_or_folder_is_read_and_never_written(run, tmp_path, what, figure):
    folder, path, exports = _layout(tmp_path)
    before = _listing(folder)
    assert list(before) == [path.name], "a plan file at rest has no side file"
    read_only, mode = (path, 0o444) if what == "file" else (folder, 0o555)
    writable = stat.S_IMODE(read_only.stat().st_mode)
    read_only.chmod(mode)
    try:
        _reads_show_the_plan(run, path, exports)
        _writes_are_refused(run, path)
        assert _listing(folder) == {
            path.name: (stat.S_IMODE(path.stat().st_mode), before[path.name][1])
        }
    finally:
        read_only.chmod(writable)
    assert _listing(folder) == before, "the file is byte-identical and no side file was made"
    # Nothing was left that keeps the owner from writing once the file is writable again.
    proc = run("plan", "--db", str(path), "--session", "s", "on")
    assert proc.returncode == 0, proc.stderr
    assert list(_listing(folder)) == [path.name]
    figure(
        f"{what} made read-only ({oct(mode)}): snapshot, events, export read the plan; plan on "
        "and call refused in one line; no side file; the owner writes afterwards"
    )


_HOLD = """
import sys
from jupyter_plans import PlanStore
store = PlanStore({path!r})
session = store.session("s")
steps = {steps!r}
result = session.call_tool("update_plan", {{"expected_revision": 1, "steps": steps}})
assert not result.is_error, result
print("written", flush=True)
sys.stdin.read()  # holds the file open, its last commit still in the -wal, until told
store.close()
"""


def test_a_read_only_folder_is_read_through_the_wal_of_a_writer_that_has_it_open(run, tmp_path):
    """The owner's kernel has the file open (its last commit is in the -wal, not yet in the
    file) when the folder becomes read-only: a reader sees that commit, writes nothing, and
    changes neither the file nor the writer's -wal, nor the modes of either side file."""
    folder, path, exports = _layout(tmp_path)
    writer = run.start(_HOLD.format(path=str(path), steps=STEPS))
    try:
        assert writer.stdout.readline().strip() == "written"
        sides = _listing(folder)
        assert sorted(sides) == sorted([path.name, f"{path.name}-shm", f"{path.name}-wal"])
        folder.chmod(0o555)
        try:
            _reads_show_the_plan(run, path, exports, revision=2)
            _writes_are_refused(run, path)
            # Readers take read marks in the -shm (shared memory); the rest is as it was.
            after = _listing(folder)
            shm = f"{path.name}-shm"
            assert after[shm][0] == sides[shm][0] and after.keys() == sides.keys()
            assert {k: v for k, v in after.items() if k != shm} == {
                k: v for k, v in sides.items() if k != shm
            }, "the file and the writer's -wal are as it left them"
        finally:
            folder.chmod(0o755)
    finally:
        writer.stdin.close()
        assert writer.wait(timeout=60) == 0
    assert list(_listing(folder)) == [path.name], "the writer closed the file as usual"


def test_a_read_only_folder_without_a_plan_file_reads_an_empty_session(run, tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _own(folder)
    path = folder / "nb.plans.sqlite"
    folder.chmod(0o555)
    try:
        proc = run("snapshot", "--db", str(path), "--session", "s")
        assert proc.returncode == 0, proc.stderr
        snapshot = json.loads(proc.stdout)
        assert (snapshot["cursor"], snapshot["mode"], snapshot["plan"]) == (0, "default", None)
        _writes_are_refused(run, path)
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)
