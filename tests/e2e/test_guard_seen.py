"""What the live card and the Plan panel say of the guards (DESIGN section 15), in a real
JupyterLab and Chromium: in plan mode, plainly, that the guard installed for this notebook has
not been heard from; once the hook ran (in another process, which moves no cursor), "guard:
Claude Code 2.1.332, N s ago", the age going on by itself without a cell being run; all of it
as text."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat

from jupyter_plans import PlanStore
from tests.e2e.notebook_page import live_card

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
WRITE = json.dumps(
    {
        "session_id": "c1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "x.py", "content": "1"},
    }
).encode()
AGE = re.compile(r"guard: Claude Code 2\.1\.332, (\d+) s ago")


def test_the_card_and_the_panel_say_which_guards_were_heard_from_and_when(page, lab):
    project = lab["root"] / "guard-project"
    project.mkdir()
    notebook = project / "guarded.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("%load_ext jupyter_plans")],
            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        ),
        notebook,
    )
    home = lab["root"].parent / "guard-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "AI_"))}
    subprocess.run(
        [*COMMAND, "hook", "install", "claude-code", "--notebook", str(notebook), "--write"],
        check=True,
        capture_output=True,
        cwd=project,
        env={**env, "HOME": str(home)},
        timeout=60,
    )
    card = live_card(page, lab, "guard-project/guarded")
    with PlanStore(project / "guarded.plans.sqlite") as store:
        store.session("default").on()  # from another process, as a kernel or the server would

    silent = card.locator(".jp-plans-guard-silent")
    silent.wait_for(timeout=30_000)
    said = silent.inner_text().strip()
    assert said == "Claude Code's guard has not been heard from since plan mode began"
    assert silent.get_attribute("role") == "note"
    silent.locator("summary").click()  # why, and the command that says more
    doctor = silent.locator(".jp-plans-guard-detail code")
    assert doctor.inner_text() == "jupyter-plans hook doctor claude-code --notebook guarded.ipynb"
    assert "In this notebook's folder" in silent.locator(".jp-plans-guard-detail").inner_text()
    assert silent.locator("strong, code").count() == 2  # the headline and the command: no markup
    page.evaluate("() => window.jupyterapp.commands.execute('jupyter-plans:open-panel')")
    panel = page.locator(".jp-plans-panel")
    panel.locator(".jp-plans-guard-silent").wait_for(timeout=30_000)

    hook = subprocess.run(
        [*COMMAND, "hook", "PreToolUse", "--notebook", str(notebook)],
        input=WRITE,
        capture_output=True,
        env={**env, "CLAUDE_PROJECT_DIR": str(project), "AI_AGENT": "claude-code_2-1-332_cli"},
        timeout=60,
    )
    assert b'"deny"' in hook.stdout, hook.stderr
    seen = card.locator(".jp-plans-guard-seen")
    seen.wait_for(timeout=30_000)
    silent.wait_for(state="detached", timeout=30_000)
    first = int(AGE.search(seen.inner_text()).group(1))
    # The age goes on by itself: no cell runs and nothing changes in the plan.
    page.wait_for_function(
        "([first]) => { const found = document.querySelector('.jp-OutputArea "
        ".jp-plans-guard-seen'); const m = found && /, (\\d+) s ago/.exec(found.textContent);"
        " return m && Number(m[1]) >= first + 2; }",
        arg=[first],
        timeout=15_000,
    )
    # The panel heard of it from its sessions stream (a heartbeat moves no cursor).
    panel.locator(".jp-plans-guard-seen").wait_for(timeout=30_000)
    panel.locator(".jp-plans-guard-silent").wait_for(state="detached", timeout=30_000)
    assert AGE.search(panel.locator(".jp-plans-guard-seen").inner_text())
