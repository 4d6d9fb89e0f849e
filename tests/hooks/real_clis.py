"""The real Claude Code and Codex CLIs the hook tests run: the ones the pinned ACP adapters bundle
and the newest ones people install directly, each pinned. `make agents`
(scripts/install-agents.sh) installs them in JUPYTER_PLANS_AGENTS (default
~/.cache/jupyter-plans/agents); a test of one that is missing skips with the reason, and fails
in CI."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from jupyter_plans import PlanStore
from jupyter_plans.store.following import follow
from tests.lanes import needs

AGENTS_DIR = Path(
    os.environ.get("JUPYTER_PLANS_AGENTS") or Path.home() / ".cache" / "jupyter-plans" / "agents"
)


@dataclass(frozen=True)
class Cli:
    id: str
    folder: str  # the npm prefix under AGENTS_DIR
    package: str  # the package whose package.json pins it
    pinned: str  # that package's version
    program: str  # the executable, relative to the prefix's node_modules
    version: str  # the CLI's own version, as it says it
    says_version: bool = True  # whether it tells its hooks its version

    @property
    def prefix(self) -> Path:
        return AGENTS_DIR / self.folder

    def command(self) -> list[str]:
        """The command that runs it; skipped (failed in CI) with the reason when missing."""
        needs("real_agents", self.package)
        manifest = self.prefix / "node_modules" / self.package / "package.json"
        try:
            found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            found = None
        program = self.prefix / "node_modules" / self.program
        if found == self.pinned and program.exists():
            if program.suffix == ".js":
                return [shutil.which("node") or "node", str(program)]
            return [str(program)]
        reason = f"{self.package} {self.pinned} is not installed in {self.prefix} (make agents)"
        if found is not None:
            reason = f"{self.package} in {self.prefix} is {found}, not {self.pinned} (make agents)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


CODEX_CLIS = [
    # What codex-acp 2.6 bundles (^0.166.0), and what people install directly.
    Cli("codex-0.166", "codex-2.6", "@openai/codex", "0.166.0", ".bin/codex", "0.166.0"),
    Cli("codex-0.171", "codex-0.171", "@openai/codex", "0.171.0", ".bin/codex", "0.171.0"),
]
CLAUDE_CLIS = [
    # What claude-agent-acp 0.23 and 0.101 bundle, and what people install directly.
    Cli(
        "claude-code-2.1.83",
        "claude-0.23",
        "@anthropic-ai/claude-agent-sdk",
        "0.2.83",
        "@anthropic-ai/claude-agent-sdk/cli.js",
        "2.1.83",
        says_version=False,
    ),
    Cli(
        "claude-code-2.1.318",
        "claude-0.101",
        "@anthropic-ai/claude-agent-sdk",
        "0.3.318",
        "@anthropic-ai/claude-agent-sdk-linux-x64/claude",
        "2.1.318",
    ),
    Cli(
        "claude-code-2.1.332",
        "claude-code-2.1.332",
        "@anthropic-ai/claude-code",
        "2.1.332",
        ".bin/claude",
        "2.1.332",
    ),
]


def notebook_in_plan_mode(folder: Path, name: str = "analysis.ipynb") -> Path:
    """A notebook in `folder` whose kernel opened its plan (so the plan file names it), in plan
    mode."""
    folder.mkdir(parents=True, exist_ok=True)
    notebook = folder / name
    notebook.write_text("{}")
    plan = notebook.with_name(notebook.stem + ".plans.sqlite")
    with follow.open_for(notebook, str(plan), PlanStore, "test") as store:
        store.session("default").on()
    return notebook
