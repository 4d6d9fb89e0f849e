"""Write the plan files of tests/store/test_old_files.py with the project's own earlier code.

Each file is written by the package as it was at one commit of the history (extracted with
`git archive`, put first on sys.path, run by write_plan.py), then kept here gzipped:

    .venv/bin/python tests/store/old_files/make.py     # from the repository's root

The commits are the ones where the store's tables changed. Not a test module.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# name -> (the commits whose code wrote the file, in turn, each in a session of its own; what
# its tables are). The commits are those where the store's tables changed.
FILES = {
    "first-commit": (["c0219be"], "version 1 of the first commit: the plan on the session row"),
    "v1-text-times": (["7b93dcd"], "version 1 with event times as text"),
    "v1": (["919eeef"], "version 1"),
    "v2": (["47b744e"], "version 2: questions"),
    "v3": (["2d83cc7"], "version 3: finished_seq and seen, made by SQLAlchemy"),
    "v3-shipped-ddl": (["d43a7df"], "version 3, made from the DDL shipped with the package"),
    "v4": (["0a44c5d"], "version 4: the call-id index partial"),
    "v5": (["3bbc3c1"], "version 5: call_digest"),
    "v6": (["23ba443"], "version 6: cells"),
    "v7": (["d952598"], "version 7: guard_seen"),
    "v7-comments": (["57dc681"], "version 7 of a branch where 7 meant comments"),
    "v7-comments-indexed": (["cd2abca"], "the same, with the comments' index"),
    "v7-agent-seq": (["f1f551a"], "version 7 of a branch where 7 meant agent_seq"),
    "v8": (["58d24c0"], "version 8: comments"),
    "v9": (["4df369d"], "version 9: agent_seq"),
    "v9-from-v7-comments": (
        ["57dc681", "6111b62"],
        "v7-comments stamped 9 by the code of 9 before its steps were frozen: no guard_seen",
    ),
    "v9-from-v7-agent-seq": (["f1f551a", "6111b62"], "the same from v7-agent-seq"),
    "upgraded": (
        [
            "919eeef",
            "47b744e",
            "2d83cc7",
            "d43a7df",
            "0a44c5d",
            "3bbc3c1",
            "23ba443",
            "d952598",
            "58d24c0",
        ],
        "made at version 1, then opened and written by the code of every later version to 8",
    ),
}


def extract(commit: str, into: Path) -> Path:
    """The package as it was at `commit`, with this checkout's built front end beside it."""
    into.mkdir()
    archive = subprocess.run(
        ["git", "archive", commit, "jupyter_plans"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    archive_path = into / "tree.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(into, filter="data")
    archive_path.unlink()
    static = ROOT / "jupyter_plans" / "static"
    if static.is_dir() and not (into / "jupyter_plans" / "static").exists():
        shutil.copytree(static, into / "jupyter_plans" / "static")
    return into


def write(commit: str, plan_file: Path, session_id: str, work: Path) -> dict:
    tree = extract(commit, work / f"{commit}-{len(list(work.iterdir()))}")
    env = {**os.environ, "PYTHONPATH": str(tree), "JUPYTERHUB_USER": "analyst"}
    done = subprocess.run(
        [sys.executable, str(HERE / "write_plan.py"), str(plan_file), session_id],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise SystemExit(f"{commit}: {done.stderr}")
    return json.loads(done.stdout)


def keep(plan_file: Path, name: str) -> None:
    for suffix in ("-wal", "-shm"):  # a closed store leaves none; a leftover would be lost here
        assert not Path(f"{plan_file}{suffix}").exists(), f"{plan_file}{suffix} left behind"
    data = gzip.compress(plan_file.read_bytes(), mtime=0)
    (HERE / f"{name}.plans.sqlite.gz").write_bytes(data)


def main() -> None:
    manifest = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (commits, what) in FILES.items():
            plan_file = work / f"{name}.plans.sqlite"
            wrote, snapshots = {}, {}
            for number, commit in enumerate(commits):
                session_id = "default" if number == 0 else f"s{number + 1}"
                done = write(commit, plan_file, session_id, work)
                wrote[commit] = done["wrote"]
                snapshots.update(done["snapshots"])
            keep(plan_file, name)
            manifest[name] = {
                "commits": commits,
                "what": what,
                "wrote": wrote,
                "snapshots": snapshots,
            }
            print(name, {commit: len(done) for commit, done in wrote.items()})
    text = json.dumps(manifest, indent=1) + "\n"
    (HERE / "files.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
