"""An agent process writing to a notebook's plan as fast as it can, for the rename tests.

    python -m tests.server._agent_writer PLAN_FILE STOP_FILE

Records decisions `w0`, `w1`, ... one call at a time; prints each title once the store
accepted it (so the test knows every accepted write), and stops when STOP_FILE exists. A refusal
is said on stderr, each distinct one once, so a test that waits in vain shows why.
"""

import sys
from pathlib import Path

from jupyter_plans import PlanStore


def main(plan: str, stop: str) -> None:
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
