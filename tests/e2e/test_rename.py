"""A notebook renamed in a real JupyterLab (the rename its file browser makes) keeps its plan:
the plan file follows, and the Plan panel, the running kernel and a restarted kernel all show
the same plan under the new name (DESIGN section 11)."""

import json

from tests.e2e.lab_actions import CURRENT, output_json, restart_kernel, wait_idle
from tests.e2e.notebook_page import (
    agent_session,
    open_notebook,
    open_panel,
    run_cell_without_waiting,
    run_cells,
)

OLD, NEW = "Untitled-renamed.ipynb", "analysis-renamed.ipynb"
WHICH = (
    "import jupyter_plans; s = jupyter_plans.current_session(); "
    "print(s.store.path.name, len(s.snapshot().decisions))"
)


def printed(page, cell: int) -> str:
    outputs = json.loads(output_json(page, cell))
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")


def test_a_notebook_renamed_in_jupyterlab_keeps_its_plan_everywhere(page, lab, dialogs, errors):
    root = lab["root"]
    session = agent_session(root, OLD[:-6])
    session.on()
    for title in ("Use the 2024 survey", "Drop rows without a region"):
        session.call_tool("record_decision", {"title": title, "rationale": "what the data needs"})
    open_notebook(page, lab, OLD)
    run_cells(page, 0, 0)
    panel = open_panel(page)
    panel.get_by_text("The agent is researching").wait_for(timeout=30_000)

    # What the file browser's Rename does: the contents service renames the file, and the
    # document and its kernel's session follow.
    page.evaluate("([a, b]) => window.jupyterapp.serviceManager.contents.rename(a, b)", [OLD, NEW])
    page.wait_for_function(f"(name) => {CURRENT}.context.path === name", arg=NEW, timeout=10_000)
    assert (root / NEW.replace(".ipynb", ".plans.sqlite")).exists()
    assert not [p.name for p in root.iterdir() if p.name.startswith(OLD[:-6])]

    panel.locator(".jp-plans-notebook").get_by_text(NEW).wait_for(timeout=10_000)
    # The live card in the notebook names it by its new name too.
    page.locator(".jp-OutputArea .jp-plans-card .jp-plans-notebook").get_by_text(NEW).wait_for(
        timeout=10_000
    )
    panel.get_by_text("The agent is researching").wait_for(timeout=10_000)
    page.screenshot(path=str(root.parent / "after-rename.png"))

    # The running kernel writes and reads the renamed plan.
    run_cell_without_waiting(page, WHICH)
    wait_idle(page)
    page.wait_for_function(
        f"() => {CURRENT}.content.widgets[1].model.outputs.length > 0", timeout=30_000
    )
    assert printed(page, 1).split() == [NEW.replace(".ipynb", ".plans.sqlite"), "2"]

    # A restarted kernel opens it under the new name.
    restart_kernel(page)
    run_cells(page, 0, 1)
    assert printed(page, 1).split() == [NEW.replace(".ipynb", ".plans.sqlite"), "2"]
    assert not [p.name for p in root.iterdir() if p.name.startswith(OLD[:-6])]
    assert dialogs == []
    errors.assert_none()
