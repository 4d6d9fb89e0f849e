"""jupyter-plans[acp] in one environment with Jupyter AI 3.2 itself (`jupyter-ai` 3.2 and
`jupyter-ai-acp-client` 0.3.3): `make jupyter-ai-env` installs them together in
build/jupyter-ai-venv, and here pip check finds no conflict there, the persona's tests pass there
against the installed Jupyter AI, and `jupyter-plans mcp` says in one line why the MCP server
belongs in another environment (Jupyter AI 3.2 keeps mcp below 2). Skipped without that
environment, failed in CI."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lanes import needs

from .harness import ROOT

VENV = ROOT / "build" / "jupyter-ai-venv"
STAMP = VENV / ".installed"  # written by make once pip check has passed
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")
PERSONA_TESTS = Path(__file__).with_name("test_persona.py")


@pytest.fixture(scope="module")
def env():
    """The environment for a process of the Jupyter AI venv: its own bin first, CI set so that
    the persona's tests fail rather than skip without Jupyter AI."""
    needs("jupyter_ai", "the Jupyter AI environment")
    if not STAMP.is_file():
        reason = f"{VENV.relative_to(ROOT)} is missing (make jupyter-ai-env)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    environ = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    environ["PATH"] = os.pathsep.join([str(BIN), environ.get("PATH", "")])
    environ["VIRTUAL_ENV"] = str(VENV)
    environ["CI"] = "true"
    return environ


def _run(env: dict, *command: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def test_jupyter_ai_3_2_and_the_acp_extra_install_together(env):
    checked = _run(env, str(BIN / "python"), "-m", "pip", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    code = (
        "import importlib.metadata as m, jupyter_plans\n"
        "names = ('jupyter-ai', 'jupyter-ai-acp-client', 'agent-client-protocol', 'mcp')\n"
        "print(*[m.version(n) for n in names], jupyter_plans.__file__)\n"
    )
    done = _run(env, str(BIN / "python"), "-c", code)
    assert done.returncode == 0, done.stderr
    jupyter_ai, acp_client, sdk, mcp, package = done.stdout.split()
    assert jupyter_ai.startswith("3.2.")
    assert acp_client == "0.3.3"
    assert sdk.startswith("0.11.")
    assert mcp.startswith("1.")  # why the [mcp] extra cannot be here
    assert Path(package).resolve().is_relative_to(ROOT / "jupyter_plans")  # this checkout


def test_the_persona_tests_pass_under_installed_jupyter_ai(env):
    tests = ast.parse(PERSONA_TESTS.read_text(encoding="utf-8")).body
    count = sum(isinstance(n, ast.FunctionDef) and n.name.startswith("test_") for n in tests)
    relative = str(PERSONA_TESTS.relative_to(ROOT))
    done = _run(
        env, str(BIN / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", relative,
        timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output  # 5, no test collected, fails too
    summary = output.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= count > 0, summary
    assert not re.search(r"skipped|xfailed|xpassed|deselected|error", summary), summary


def test_the_mcp_server_there_points_to_another_environment(env, tmp_path):
    done = _run(env, str(BIN / "jupyter-plans"), "mcp", "--db", str(tmp_path / "a.plans.sqlite"))
    assert done.returncode == 1
    assert done.stdout == "" and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert re.fullmatch(
        r"jupyter-plans mcp: the MCP server needs the mcp package 2\.3 or newer "
        r"\(found 1\.[\w.]+, which jupyter-ai 3\.2\.[\w.]+ here keeps below 2\): run the MCP "
        r"server from another environment, with pip install 'jupyter-plans\[mcp\]'",
        line,
    ), line
