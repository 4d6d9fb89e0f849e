"""How a stand-in model speaks to each family of real agents: the tool calls its script makes to
keep a todo list, try an edit or a command, enter plan mode and propose. The conformance suite
(test_conformance.py) writes each scenario once in these words; an agent's entry in real.py
names its dialect. Adding an agent is a profile in the package and an entry (with a dialect)
here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from tests.standins.script import Turn, call, text

PLAN = """# Clean the sales data

Load sales.csv, drop the empty rows and plot the monthly totals.

1. Read the sales data
2. Drop empty rows
3. Plot monthly totals
"""
EXPLANATION = "Load sales.csv, drop the empty rows and plot the monthly totals."
STEPS = ["Read the sales data", "Drop empty rows", "Plot monthly totals"]
# The entries' active forms, as Claude Code sends the one in progress.
ACTIVE = ["Reading the sales data", "Dropping empty rows", "Plotting monthly totals"]
PATCH = "*** Begin Patch\n*** Add File: {name}\n+{text}\n*** End Patch\n"


@dataclass(frozen=True)
class Dialect:
    """The calls of one agent family. Each method gives a list of the model's turns."""

    name: str
    deferred: bool = False  # its plan and todo tools are loaded first (ToolSearch)
    todos_in_plan_mode: bool = True  # it keeps a todo list while planning
    enters_plan_mode: bool = False  # the model can switch it into plan mode by itself

    def load(self, *tools: str) -> list:
        if not self.deferred or self.name != "claude":
            return []
        query = {"query": "select:" + ",".join(tools), "max_results": 5}
        return [[call("ToolSearch", query)]]

    def todos(self, steps: list[str], started: int | None = None, done: int = 0) -> list:
        """One todo list: the first `done` steps completed, step `started` in progress."""
        if self.name == "claude":
            todos = []
            for index, (content, active) in enumerate(zip(steps, _active(steps), strict=True)):
                status = "completed" if index < done else "pending"
                status = "in_progress" if index == started else status
                todos.append({"content": content, "status": status, "activeForm": active})
            return [[call("TodoWrite", {"todos": todos})]]
        plan = [
            {
                "step": step,
                "status": "completed"
                if index < done
                else ("in_progress" if index == started else "pending"),
            }
            for index, step in enumerate(steps)
        ]
        return [[call("update_plan", {"plan": plan})]]

    def edit(self, cwd: Path, name: str = "x.txt", content: str = "cleaned") -> list:
        if self.name == "claude":
            path = str(cwd / name)
            return [
                [
                    text("Writing the cleaned file."),
                    call("Write", {"file_path": path, "content": content + "\n"}),
                ]
            ]
        return [
            [
                text("Writing the cleaned file."),
                call("apply_patch", PATCH.format(name=name, text=content)),
            ]
        ]

    def command(self, cwd: Path, name: str = "y.txt") -> list:
        if self.name == "claude":
            return [[call("Bash", {"command": f"touch {name}", "description": f"Create {name}"})]]
        escalated = {"sandbox_permissions": "require_escalated", "justification": f"Create {name}"}
        return [[call("exec_command", {"cmd": f"touch {name}", "workdir": str(cwd), **escalated})]]

    def long_command(self, cwd: Path, seconds: int) -> list:
        """A command that only reads, and runs SECONDS: time for the person to act meanwhile."""
        if self.name == "claude":
            return [[call("Bash", {"command": f"sleep {seconds}", "description": "Wait"})]]
        return [[call("exec_command", {"cmd": f"sleep {seconds}", "workdir": str(cwd)})]]

    def enter_plan_mode(self) -> list:
        return [*self.load("EnterPlanMode"), [call("EnterPlanMode", {})]]

    def propose(self, plan: str = PLAN) -> list:
        """Leave plan mode with PLAN: Claude Code writes its plan file and calls ExitPlanMode;
        Codex says its final plan in a <proposed_plan> block."""
        if self.name == "claude":
            return [
                Turn(lambda body: [call("Write", {"file_path": plan_path(body), "content": plan})]),
                [call("ExitPlanMode", {"plan": plan})],
            ]
        markdown = re.sub(r"^\d\. ", "- ", plan, flags=re.MULTILINE)
        return [[text(f"Here is the plan.\n\n<proposed_plan>\n{markdown}</proposed_plan>\n")]]

    def say(self, words: str) -> list:
        return [[text(words)]]


def _active(steps: list[str]) -> list[str]:
    known = dict(zip(STEPS, ACTIVE, strict=True))
    return [known.get(step, step) for step in steps]


def plan_path(body: dict) -> str:
    """The plan file Claude Code's plan mode tells the model to write."""
    found = re.search(r"create your plan at (/[^\s\"\\]+?\.md)", json.dumps(body))
    assert found, "Claude Code named no plan file"
    return found.group(1)


CLAUDE = Dialect("claude", enters_plan_mode=True)
CLAUDE_DEFERRED = Dialect("claude", deferred=True, enters_plan_mode=True)
# Codex's todo tool is refused in its plan mode.
CODEX = Dialect("codex", todos_in_plan_mode=False)
