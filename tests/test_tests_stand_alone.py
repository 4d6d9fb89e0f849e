"""The tests stand alone: no test module imports another test module or a conftest (shared code
lives in helper modules and fixtures), and the package, so the whole suite, imports without the
card's built front end (a card made without it says what is missing, in one line)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers.imports import PACKAGE

TESTS = Path(__file__).resolve().parent


def _name(path: Path, tests: Path = TESTS) -> str:
    parts = list(path.relative_to(tests.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_test_module(name: str) -> bool:
    leaf = name.rsplit(".", 1)[-1]
    return leaf.startswith("test_") or leaf == "conftest"


def imported_test_modules(path: Path, known: set[str], tests: Path = TESTS) -> set[str]:
    """The test modules and conftests that the module at `path` imports, anywhere in it."""
    module = _name(path, tests)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in known and _is_test_module(name)} - {module}


def test_no_test_module_imports_another():
    paths = {_name(path): path for path in TESTS.rglob("*.py")}
    leaning = {
        name: sorted(imported)
        for name, path in sorted(paths.items())
        if (imported := imported_test_modules(path, set(paths)))
    }
    assert leaning == {}, "move what they share into tests/helpers/ or a fixture"


def test_the_check_sees_every_way_of_importing(tmp_path):
    module = tmp_path / "tests" / "plan" / "test_x.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import tests.test_cli\n"
        "from tests.store import test_store\n"
        "from . import conftest\n"
        "def f():\n"
        "    from .test_fold import STEPS\n"
        "from tests.helpers.cli import run\n"
    )
    known = {"tests.test_cli", "tests.store.test_store", "tests.plan.conftest"}
    known |= {"tests.plan.test_fold", "tests.helpers.cli", "tests.plan.test_x"}
    found = imported_test_modules(module, known, tmp_path / "tests")
    assert found == known - {"tests.helpers.cli", "tests.plan.test_x"}


def test_the_package_imports_without_the_built_front_end(tmp_path):
    """A checkout that never ran the Node build (jupyter_plans/static is built output) imports
    every module, so pytest collects every test; making a card says what to build."""
    copy = tmp_path / "jupyter_plans"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("static", "labextension"))
    code = (
        "import importlib, pkgutil, sys, jupyter_plans\n"
        "assert jupyter_plans.__file__.startswith(sys.argv[1]), jupyter_plans.__file__\n"
        "for found in pkgutil.walk_packages(jupyter_plans.__path__, 'jupyter_plans.'):\n"
        "    if '__main__' not in found.name:\n"
        "        importlib.import_module(found.name)\n"
        "from jupyter_plans import PlanStore, PlanStoreError\n"
        "from jupyter_plans.notebook.widget import PlanCard\n"
        "try:\n"
        "    PlanCard(PlanStore(sys.argv[1] + '/a.plans.sqlite').session('s'))\n"
        "except PlanStoreError as refused:\n"
        "    print(refused)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"the card's front end {copy / 'static' / 'widget.js'} is missing; build it with "
        "`cd labextension && jlpm install && jlpm build` (pip install does this)\n"
    )
