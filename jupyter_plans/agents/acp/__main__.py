"""`python -m jupyter_plans.agents.acp ...`: the bridge, as `jupyter-plans acp` runs it."""

import sys

from .command import main

sys.exit(main(sys.argv[1:]))
