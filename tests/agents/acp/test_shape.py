"""The bridge's shape: one core for many agents. Its core modules name no agent (what differs
between agents is their profiles' data), its helpers take ports rather than the bridge, and no
import circle runs through the bridge's folder, even counting the imports written only for
type checkers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jupyter_plans.agents.acp.profiles import profiles
from tests.helpers.imports import PACKAGE, find_cycles, module_name, modules

ACP = PACKAGE / "agents" / "acp"
CORE = ("bridge", "modes", "forms", "guard", "proposals", "recorder", "mirror", "options")
CORE += ("plans", "ports", "state", "status", "followup", "watch", "settings")
# The agents' names and what only one of them says, as code or prose would name them.
AGENT_WORDS = re.compile(
    r"claude|codex|gemini|zed|anthropic|openai|exitplanmode|enterplanmode|todowrite"
    r"|collaboration_mode|read-only|acceptedits|bypasspermissions|dontask|claudecode",
    re.IGNORECASE,
)


def test_the_core_names_no_agent():
    for name in CORE:
        text = (ACP / f"{name}.py").read_text(encoding="utf-8")
        found = sorted({m.group(0).lower() for m in AGENT_WORDS.finditer(text)})
        assert found == [], f"agents/acp/{name}.py names {found}"


def test_the_helpers_take_ports_not_the_bridge():
    for name in CORE:
        if name == "bridge":
            continue
        tree = ast.parse((ACP / f"{name}.py").read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
        }
        assert "bridge" not in imported, f"agents/acp/{name}.py imports the bridge"


def _imports_counting_type_checking(module: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in known and name != module}


def test_no_import_circle_in_the_bridge_even_for_type_checkers():
    found = {name: path for name, path in modules().items() if path.is_relative_to(ACP)}
    known = set(found)
    edges = {n: _imports_counting_type_checking(n, p, known) for n, p in found.items()}
    assert find_cycles(edges) == []
    assert module_name(ACP / "bridge.py") in known


def test_every_profile_is_whole_and_answers_to_its_own_names():
    from jupyter_plans.agents.acp.profiles import choose

    for key, profile in profiles().items():
        assert profile.id == key
        assert profile.plan_text and all(
            place == "content" or place.startswith("rawInput.") for place in profile.plan_text
        )
        assert set(profile.turn_ending) <= set(profile.rejects) or not profile.rejects
        for name in profile.names:
            assert choose({"agentInfo": {"name": name, "version": "9"}}).id == key
    # An agent no profile names gets the default, under the name it gives itself.
    unknown = choose({"agentInfo": {"name": "x-acp", "title": "X\nagent", "version": "1"}})
    assert (unknown.id, unknown.label, unknown.version) == ("default", "X agent", "1")
    # One that announces the settings a profile's agents take is given that profile's data.
    cousin = choose(
        {"agentInfo": {"name": "fork"}, "agentCapabilities": {"_meta": {"claudeCode": {}}}}
    )
    assert cousin.session_settings is not None and cousin.label == "fork"
