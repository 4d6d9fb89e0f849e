"""The bridge's shape: one core for many agents. Its core modules name no agent (what differs
between agents is their profiles' data), its helpers take ports rather than the bridge or one
another and are given them when they are made, the ACP methods are named where the SDK names
them, and no import circle runs through the bridge's folder, even counting the imports written
only for type checkers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jupyter_plans.agents.acp.profiles import profiles
from tests.helpers.imports import PACKAGE, find_cycles, module_name, modules

ACP = PACKAGE / "agents" / "acp"
CORE = ("bridge", "modes", "forms", "guard", "proposals", "calls", "mirror", "options")
CORE += ("plans", "ports", "state", "status", "followup", "watch", "settings", "methods")
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


def _trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(ACP)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(ACP.rglob("*.py"))
    }


def test_acp_methods_are_named_only_as_the_sdk_names_them():
    """The bridge routes by tables keyed on `methods`' names, which are the ACP SDK's own
    (`acp.meta`): no other module of the bridge's folder spells an ACP method."""
    from acp.meta import AGENT_METHODS, CLIENT_METHODS

    names = set(AGENT_METHODS.values()) | set(CLIENT_METHODS.values())
    found = [
        f"{name}:{node.lineno} {node.value!r}"
        for name, tree in _trees().items()
        if name != "methods.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    ]
    assert found == [], "ACP methods spelt outside methods.py: " + ", ".join(found)


def test_no_object_is_wired_after_it_was_made():
    """No module of the bridge's folder sets what another object holds (`self.x.y = ...`):
    each helper is given its collaborators and callbacks when it is made, and keeps its own
    state."""
    found = [
        f"{name}:{node.lineno} {ast.unparse(node)}"
        for name, tree in _trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Attribute)
    ]
    assert found == [], "set from outside: " + ", ".join(found)


def test_the_helpers_take_ports_not_one_another():
    """A helper's constructor takes ports (`ports`' Protocols, callables) and the data records
    of `state`, never a class of another module of the bridge's folder (the bridge, which
    makes them all, takes its two peers)."""
    trees = _trees()
    classes = {
        node.name: name
        for name, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and name != "ports.py"
        and not any(ast.unparse(d) == "dataclass" for d in node.decorator_list)
    }
    found = []
    for name in (f"{module}.py" for module in CORE if module != "bridge"):
        for node in ast.walk(trees[name]):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                for arg in node.args.args + node.args.kwonlyargs:
                    written = ast.unparse(arg.annotation) if arg.annotation else ""
                    words = set(re.findall(r"\w+", written))
                    found += [
                        f"{name}:{arg.arg}: {word}"
                        for word in words
                        if word in classes and classes[word] != name
                    ]
    assert found == [], "helpers given concrete siblings: " + ", ".join(found)


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
