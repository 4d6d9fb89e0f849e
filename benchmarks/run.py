"""Run every benchmark and print its table: `make bench`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import update_plan  # noqa: E402

if __name__ == "__main__":
    update_plan.main()
