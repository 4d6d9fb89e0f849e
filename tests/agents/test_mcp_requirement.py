"""`jupyter-plans mcp` where the mcp package is missing or is 1.x (as beside Jupyter AI 3.2): one
line saying what was found and the fix, exit 1, no traceback; and the rest of the command line
works without mcp. A fake mcp 1.x (a folder first on PYTHONPATH, with its metadata) and an import
hook that hides mcp stand in for those environments; tests/agents/acp/test_jupyter_ai_env.py
runs the command in a real one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_plans.agents.mcp_requirement import FIX, unmet

ROOT = Path(__file__).resolve().parents[2]
MAIN = "import sys\nfrom jupyter_plans.cli import main\nsys.exit(main())\n"
# Imports as if mcp were not installed, then runs the command line.
HIDE_MCP = """
import importlib.abc, sys
class Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "mcp":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Hidden())
"""


def _dist(folder: Path, name: str, version: str) -> None:
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _fake_mcp(folder: Path, version: str, jupyter_ai: str | None = None) -> Path:
    (folder / "mcp").mkdir(parents=True)
    (folder / "mcp" / "__init__.py").write_text("")
    _dist(folder, "mcp", version)
    if jupyter_ai is not None:
        _dist(folder, "jupyter-ai", jupyter_ai)
    return folder


def _mcp(tmp_path: Path, code: str = MAIN, path: Path | None = None, *args: str):
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    command = args or ("mcp", "--db", str(tmp_path / "a.plans.sqlite"))
    return subprocess.run(
        [sys.executable, "-c", code, *command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_the_mcp_here_is_one_the_server_runs_on():
    assert unmet() is None


def test_mcp_1_x_is_named_with_the_extra_that_brings_2_x(tmp_path):
    line = _one_line(_mcp(tmp_path, path=_fake_mcp(tmp_path / "site", "1.26.0")))
    assert line == (
        "jupyter-plans mcp: the MCP server needs the mcp package 2.3 or newer (found 1.26.0): "
        f"{FIX}"
    )
    assert FIX == "pip install 'jupyter-plans[mcp]'"
    assert not (tmp_path / "a.plans.sqlite").exists()


def test_beside_jupyter_ai_3_2_the_server_is_sent_to_another_environment(tmp_path):
    site = _fake_mcp(tmp_path / "site", "1.26.0", jupyter_ai="3.2.0")
    line = _one_line(_mcp(tmp_path, path=site))
    assert line == (
        "jupyter-plans mcp: the MCP server needs the mcp package 2.3 or newer (found 1.26.0, "
        "which jupyter-ai 3.2.0 here keeps below 2): run the MCP server from another "
        f"environment, with {FIX}"
    )


@pytest.mark.parametrize(
    ("version", "said"), [("2.2.1", "(found 2.2.1)"), ("3.0.0", ", below 3 (found 3.0.0)")]
)
def test_other_versions_outside_the_extras_range(tmp_path, version, said):
    line = _one_line(_mcp(tmp_path, path=_fake_mcp(tmp_path / "site", version)))
    assert said in line and line.endswith(FIX)


def test_without_mcp_the_server_says_so_and_the_rest_of_the_command_line_works(tmp_path):
    line = _one_line(_mcp(tmp_path, HIDE_MCP + MAIN))
    assert line == (
        f"jupyter-plans mcp: the MCP server needs the mcp package 2.3 or newer, which is not "
        f"installed: {FIX}"
    )
    # The other commands, and the modules a notebook, the server and the hooks load, need no mcp.
    loads = (
        "jupyter_plans, jupyter_plans.cli, jupyter_plans.tools, jupyter_plans.server, "
        "jupyter_plans.hooks.command, jupyter_plans.agents.toolbox, "
        "jupyter_plans.notebook.magics, jupyter_plans.agents.acp.bridge"
    )
    check = "assert not [m for m in sys.modules if m.split('.')[0] == 'mcp'], 'mcp imported'\n"
    code = f"{HIDE_MCP}import {loads}\n{check}{MAIN}"
    db = str(tmp_path / "b.plans.sqlite")
    assert _mcp(tmp_path, code, None, "plan", "--db", db, "on").returncode == 0
    done = _mcp(tmp_path, code, None, "snapshot", "--db", db)
    assert done.returncode == 0, done.stderr
    assert '"mode":"plan"' in done.stdout.replace(" ", "")
