"""JupyterLab with Jupyter AI 3.2 (the environment `make jupyter-ai-env` builds), the persona
"Claude with plans" in front of the real claude-agent-acp, a stand-in of the model's API, and
Debian's Chromium: the journey of a person planning with Claude Code in Jupyter AI's chat.
Without Chromium, that environment or the agent the tests fail in CI and skip elsewhere."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.agents.acp.real import BY_NAME, RealAgent, require
from tests.e2e.browser import CHROMIUM, require_chromium
from tests.helpers.procs import command_line, descendants
from tests.jupyter_process import free_port, jupyter
from tests.lanes import needs

REPO = Path(__file__).parents[2]
VENV = REPO / "build" / "jupyter-ai-venv"
STAMP = VENV / ".installed"  # written by make once pip check passed
PERSONA = "jupyter-ai-personas::jupyter_plans::PlanCardPersona"
TOKEN = "plans-chat-token"
AGENT = BY_NAME["claude-0.101"]
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "id": "plan-on",
            "metadata": {},
            "source": "%load_ext jupyter_plans\n%plan on",
            "outputs": [],
            "execution_count": None,
        }
    ],
    "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def require_jupyter_ai() -> None:
    """The Jupyter AI 3.2 environment, with this checkout's labextension linked into it."""
    needs("jupyter_ai", "the Jupyter AI environment")
    reason = None
    linked = VENV / "share" / "jupyter" / "labextensions" / "jupyter-plans"
    if not STAMP.is_file():
        reason = f"{VENV.relative_to(REPO)} is missing (make jupyter-ai-env)"
    elif linked.resolve() != (REPO / "jupyter_plans" / "labextension").resolve():
        reason = f"{linked} is not this checkout's labextension (make jupyter-ai-env)"
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextlib.contextmanager
def chat_lab(tmp_path: Path, script, agent: RealAgent = AGENT):
    """JupyterLab from the Jupyter AI environment on tmp_path/root (analysis.ipynb in it), the
    persona running the real AGENT (claude-agent-acp 0.101 unless told) behind the bridge, its
    model answering SCRIPT. Yields {base, token, root, model, server}."""
    require_chromium()
    require_jupyter_ai()
    require(agent)
    root, home, config = tmp_path / "root", tmp_path / "home", tmp_path / "config"
    for folder in (root, config, root / ".settings"):
        folder.mkdir(parents=True)
    (root / "analysis.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (config / "jupyter_server_config.py").write_text(
        f"c.PlanCardPersona.agent = {agent.command!r}\n"
        f"c.PersonaManager.default_persona_id = {PERSONA!r}\n"
        # Jupyter AI's own MCP server, which it gives its agents: on a free port, not 3001.
        f"c.MCPExtensionApp.mcp_port = {free_port()}\n",
        encoding="utf-8",
    )
    (root / ".settings" / "overrides.json").write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:notification": {
                    "checkForUpdates": False,
                    "fetchNews": "false",
                }
            }
        )
    )
    options = (
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.app_settings_dir={root / '.settings'}",
        f"--LabApp.user_settings_dir={root / '.user-settings'}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
    )
    with agent.standin(script) as model:
        env = {
            **agent.env(home, model),
            "JUPYTER_CONFIG_DIR": str(config),
            "PATH": os.pathsep.join([str(VENV / "bin"), os.environ.get("PATH", "")]),
            # As root with IS_SANDBOX set, Claude Code asks for a mode it then refuses.
            "IS_SANDBOX": "",
            "PYTHONPATH": "",
            "VIRTUAL_ENV": str(VENV),
        }
        python = str(VENV / "bin" / "python")
        log = tmp_path / "lab.log"
        with jupyter("lab", root, TOKEN, *options, log=log, env=env, python=python) as (
            server,
            base,
        ):
            yield {"base": base, "token": TOKEN, "root": root, "model": model, "server": server}


@contextlib.contextmanager
def browser(viewport=(1500, 1100)):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
        )
        try:
            context = chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]})
            yield context.new_page()
        finally:
            chromium.close()


def processes_under(pid: int) -> list[str]:
    """The command lines of every process PID started, and theirs."""
    return [c for c in map(command_line, descendants(pid)) if c is not None]


def bridges_and_agents(pid: int, agent: RealAgent = AGENT) -> tuple[int, int]:
    """How many bridges and AGENT adapter processes the server runs."""
    commands = processes_under(pid)
    bridges = [c for c in commands if " acp --notebook " in c]
    # The adapter itself (node running its bin), not the CLI it starts (Codex's app server).
    agents = [
        c
        for c in commands
        if f"/{agent.bin} " in f"{c} " and " acp --notebook " not in c and "app-server" not in c
    ]
    return len(bridges), len(agents)


def copy_shots(shots: list[Path], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for shot in shots:
        shutil.copy(shot, folder / shot.name)


def open_lab(page, lab) -> None:
    page.goto(f"{lab['base']}/lab?token={lab['token']}")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started", timeout=60_000)


def open_chat(page, command: str, args: str) -> None:
    """The chat in the left side panel, made wide enough to read beside the notebook."""
    page.evaluate(f"() => window.jupyterapp.commands.execute('{command}', {args}).then(() => null)")
    page.locator(".jp-chat-input-container textarea").first.wait_for(timeout=30_000)
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle").first
    box = handle.bounding_box()
    if box is not None and box["x"] < 400:
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 300)
        page.mouse.down()
        page.mouse.move(560, box["y"] + 300, steps=8)
        page.mouse.up()


def chat(page):
    return page.locator(".jp-chat-messages-container").first


def send(page, words: str) -> None:
    box = page.locator(".jp-chat-input-container textarea").first
    box.click()
    box.fill(words)
    box.press("Enter")


def open_the_notebook(page) -> None:
    """Open analysis.ipynb, wait for its kernel, and run its one cell (it shows the card)."""
    page.evaluate(
        "() => window.jupyterapp.commands.execute('docmanager:open', "
        "{path: 'analysis.ipynb'}).then(() => null)"
    )
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=30_000)
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel",
        timeout=60_000,
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    page.locator(".jp-Notebook .jp-plans-card").first.wait_for(timeout=60_000)
