"""The card's line while Codex would not run the plan's guard hook, in a real JupyterLab and
Chromium: shown as text under the header, and gone once the hooks are trusted and the card is
redrawn."""

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
    text = line.inner_text()
    assert text.startswith("Plan mode is not enforced in Codex")
    assert f"--notebook {notebook} --trust" in text and '"Trust all and continue"' in text
    assert card.locator(".jp-plans-guard-warning-text *").count() == 0  # text, no markup

    install("--trust")
    # The card is redrawn with the plan's next change (here, one from another process).
    session.off()
    line.wait_for(state="detached", timeout=30_000)
    assert dialogs == []
