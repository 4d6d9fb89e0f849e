"""The README is the front door: at most 400 lines, its Quick start exactly `make demo` and
`make test`, each of its links leading to a file of the repository (and a heading of it), and each
command it shows for connecting an agent one the manual shows too, where the tests run it as
written (tests/test_docs_as_written.py, tests/agents/acp/test_launch.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def section(title: str) -> str:
    return README.read_text(encoding="utf-8").split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_a_front_door():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 400


def test_the_quick_start_is_the_two_commands():
    """A new user's first screen: exactly `make demo` and `make test`, each with its comment."""
    (shell,) = re.findall(r"```sh\n(.*?)```", section("Quick start"), flags=re.S)
    commands = [line.split("#")[0].strip() for line in shell.splitlines()]
    assert [command for command in commands if command] == ["make demo", "make test"]


def _anchors(page: Path) -> set[str]:
    """The heading anchors GitHub and the site (MyST) make for a Markdown page."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        found.add(slug)
    return found


def test_every_link_of_the_readme_leads_somewhere():
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", README.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            broken.append(f"{target}: the README links only into the repository")
            continue
        path, _, anchor = target.partition("#")
        if not (ROOT / path).exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in _anchors(ROOT / path):
            broken.append(f"{target}: no such heading")
    assert broken == []


def test_the_readmes_commands_for_agents_are_the_manuals():
    manual = (ROOT / "docs" / "connect.md").read_text(encoding="utf-8")
    shown = re.findall(r"```sh\n(.*?)```", section("Connect your agent"), flags=re.S)
    lines = [line.strip() for block in shown for line in block.splitlines() if line.strip()]
    assert len(lines) >= 4
    assert [line for line in lines if line not in manual] == []
