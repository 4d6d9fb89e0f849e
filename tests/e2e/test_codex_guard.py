"""The card's line while Codex would not run the plan's guard hook, in a real JupyterLab and
Chromium: its headline in one line under the decision, why and the fix behind a disclosure
(commands and paths as code, paths from the notebook's folder), and gone once the hooks are
trusted, without a change of the plan."""

import os
import subprocess
import sys
from pathlib import Path

import nbformat

from jupyter_plans import PlanStore
from tests.e2e.notebook_page import live_card

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]


def test_the_card_says_plan_mode_is_not_enforced_in_codex_until_trusted(page, lab, dialogs):
    root = lab["root"]
    codex_home = root.parent / "codex-guard-home"
    project = root / "codex-project"
    project.mkdir()
    notebook = project / "codex.ipynb"
    # The kernel reads Codex's home from its environment: the test's own, never the machine's.
    source = f"import os\nos.environ['CODEX_HOME'] = {str(codex_home)!r}\n%load_ext jupyter_plans"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(source)],
            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        ),
        notebook,
    )
    session = PlanStore(project / "codex.plans.sqlite").session("default")
    session.on()

    def install(*flags: str) -> None:
        subprocess.run(
            [*COMMAND, "hook", "install", "codex", "--notebook", str(notebook), *flags],
            check=True,
            capture_output=True,
            cwd=project,
            env={**os.environ, "CODEX_HOME": str(codex_home)},
            timeout=60,
        )

    install("--write")
    card = live_card(page, lab, "codex-project/codex")
    line = card.locator(".jp-plans-guard-warning")
    line.wait_for(timeout=30_000)
    assert line.get_attribute("role") == "note"
    # One line, its headline; why and the fix behind a disclosure, opened by keyboard.
    assert line.inner_text().strip() == "Plan mode is not enforced in Codex"
    summary = line.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    detail = line.locator(".jp-plans-guard-detail")
    detail.wait_for(timeout=5_000)
    text = detail.inner_text()
    assert "`" not in text and '"Trust all and continue"' in text
    # Commands and paths are code, paths as seen from the notebook's folder.
    codes = detail.locator("code").all_inner_texts()
    assert codes == [
        ".codex/hooks.json",
        "jupyter-plans hook install codex --notebook codex.ipynb --trust",
        "codex",
    ]
    assert "in this notebook's folder" in text

    # Trusted: the hook install writes to the plan file (no event, no cursor moved), and the
    # card reads its guards again with that, without waiting for a change of the plan.
    install("--trust")
    line.wait_for(state="detached", timeout=30_000)
    assert dialogs == []
