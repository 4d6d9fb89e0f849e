"""An agent process writing to a notebook's plan as fast as it can, for the rename tests.

    python -m tests.server._agent_writer PLAN_FILE STOP_FILE

Records decisions `w0`, `w1`, ... one call at a time; prints each title once the store
accepted it (so the test knows every accepted write), and stops when STOP_FILE exists. A refusal
is said on stderr, each distinct one once, so a test that waits in vain shows why; SIGUSR1
dumps where the writer is (faulthandler) to stderr.

Tests start it with `AgentWriter`, which sends its output to a file: through a pipe the test
reads only at the end, the writer would block once the pipe held 64 KiB (some 10,900 titles).
"""

from __future__ import annotations

import faulthandler
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).parents[2]


class AgentWriter:
    """The writer in a process of its own, writing to PLAN (its own files in a folder apart)."""

    def __init__(self, plan: Path) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="agent-writer-")
        folder = Path(self._folder.name)
        self._stop, self._out = folder / "stop", folder / "accepted.txt"
        with self._out.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.server._agent_writer", str(plan), str(self._stop)],
                stdout=out,
                cwd=REPO,
            )

    def say_where(self) -> None:
        """Have the writer dump its stack on stderr (for a test that waited in vain)."""
        self.process.send_signal(signal.SIGUSR1)
        time.sleep(1)  # the dump is written by the writer, in its own time

    def stop(self) -> list[str]:
        """Stop the writer; the titles it said were accepted, once it said it stopped."""
        self._stop.touch()
        self.process.wait(timeout=60)
        said = self._out.read_text().split()
        self._folder.cleanup()
        assert said and said[-1] == "stopped", said[-3:]
        return said[:-1]


def main(plan: str, stop: str) -> None:
    from jupyter_plans import PlanStore

    faulthandler.register(signal.SIGUSR1)
    session = PlanStore(plan).session("default")
    stop_file = Path(stop)
    i = 0
    refused: set[str] = set()
    while not stop_file.exists():
        title = f"w{i}"
        result = session.call_tool(
            "record_decision", {"title": title, "rationale": "written during a rename"}
        )
        if not result.is_error:
            print(title, flush=True)
        elif (said := str(result.content)) not in refused:
            refused.add(said)
            print(f"{title} refused: {said}", file=sys.stderr, flush=True)
        i += 1
    print("stopped", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
