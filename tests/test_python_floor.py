"""The package runs on the Python its requires-python names: ruff checks for that version, every
module parses with that version's grammar, imports nothing its standard library lacks, and
imports on this interpreter, which is at the floor or above it."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jupyter_plans"

# What the standard library gained after 3.8, by the version that added it: modules, and names
# of modules (a vermin-like table of what this code might reach for).
ADDED = {
    "graphlib": (3, 9),
    "zoneinfo": (3, 9),
    "tomllib": (3, 11),
    "wsgiref.types": (3, 11),
    "asyncio.TaskGroup": (3, 11),
    "asyncio.timeout": (3, 11),
    "asyncio.Runner": (3, 11),
    "datetime.UTC": (3, 11),
    "enum.StrEnum": (3, 11),
    "typing.Self": (3, 11),
    "typing.NotRequired": (3, 11),
    "typing.Required": (3, 11),
    "typing.LiteralString": (3, 11),
    "typing.Never": (3, 11),
    "typing.assert_never": (3, 11),
    "typing.reveal_type": (3, 11),
    "hashlib.file_digest": (3, 11),
    "operator.call": (3, 11),
    "itertools.batched": (3, 12),
    "typing.override": (3, 12),
    "typing.TypeAliasType": (3, 12),
    "pathlib.Path.walk": (3, 12),
    "typing.ReadOnly": (3, 13),
    "typing.TypeIs": (3, 13),
    "warnings.deprecated": (3, 13),
    "copy.replace": (3, 13),
    "annotationlib": (3, 14),
}


def floor() -> tuple[int, int]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    requires = tomllib.loads(text)["project"]["requires-python"]
    assert requires.startswith(">="), f"requires-python is {requires!r}; expected >=X.Y"
    major, minor = requires[2:].split(".")[:2]
    return int(major), int(minor)


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "labextension" not in p.parts)


def reached(tree: ast.AST) -> list[tuple[str, int]]:
    """(module or module.name, line) for every import of the file, and every attribute read
    of a module it imported (asyncio.timeout)."""
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, node.lineno))
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                found.append((f"{node.module}.{alias.name}", node.lineno))
                found.append((node.module, node.lineno))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id)
            if module is not None:
                found.append((f"{module}.{node.attr}", node.lineno))
    return found


def too_new(path: Path, version: tuple[int, int]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), feature_version=version)
    where = path.relative_to(ROOT)
    return [
        f"{where}:{line}: {name} came with Python {'.'.join(map(str, ADDED[name]))}"
        for name, line in reached(tree)
        if name in ADDED and ADDED[name] > version
    ]


def test_ruff_checks_for_the_floor():
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    major, minor = floor()
    assert settings["tool"]["ruff"]["target-version"] == f"py{major}{minor}"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_is_written_for_the_floor(path):
    """Parsed with the floor's grammar (a newer syntax is a SyntaxError), and reaching for
    nothing its standard library lacks."""
    assert too_new(path, floor()) == []


def test_the_check_sees_what_an_older_floor_lacks(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import tomllib\nimport asyncio\nasyncio.timeout(1)\n")
    found = [
        name
        for name, _ in reached(ast.parse(module.read_text()))
        if name in ADDED and ADDED[name] > (3, 10)
    ]
    assert found == ["tomllib", "asyncio.timeout"]
    with pytest.raises(SyntaxError):
        ast.parse("type Alias = int\n", feature_version=(3, 11))


def test_every_module_imports_on_this_python():
    """Imported one by one in a fresh interpreter at the floor or above: what a user of the
    floor gets (the optional extras are installed here)."""
    assert sys.version_info[:2] >= floor()
    names = [  # a __main__ runs its command when imported: it is parsed above, not run
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in sources()
        if p.name != "__main__.py"
    ]
    code = (
        "import importlib, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(failed))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, *names], capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr[-2000:] + run.stdout[-2000:]
    assert run.stdout.strip() == ""
