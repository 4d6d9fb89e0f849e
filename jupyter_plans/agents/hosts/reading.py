"""What a host's check of the hooks (`hook doctor`, `hook install`) reads and says: the plan
whose hooks to look for, and the one line said of each host."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .commands import guards_plan


@dataclass(frozen=True)
class Plan:
    """Whose hooks to look for: the notebook or plan file named, and where they were installed."""

    notebook: Path | None
    plan: Path | None
    session: str | None
    installed: dict[str, Path]  # host -> the settings file the install wrote
    words: str  # the options that name this plan, for the fixing command

    def ours(self, command: str) -> bool:
        return guards_plan(command, self.notebook, self.plan, self.session)

    def folders(self, host: str) -> list[Path]:
        start = self.notebook or self.plan or Path.cwd() / "x"
        found = list(Path(os.path.abspath(start)).parents)
        recorded = self.installed.get(host)
        if recorded is not None and recorded.parent.parent not in found:
            found.insert(0, recorded.parent.parent)
        return found


@dataclass(frozen=True)
class Finding:
    host: str
    holds: bool
    line: str
    registered: bool = True  # False: no hook of this plan is registered for the host
