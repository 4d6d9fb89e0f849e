"""A kernel with the extension stays light: `%load_ext jupyter_plans` shows the card without
loading pydantic, the plan's models or the tools' catalog, and `%plan on` (like the card's own
buttons) decides without pydantic or the models, which took some 4 MB of a kernel's memory for
pydantic-core alone and 5 MB more for the models; a plan the agent writes in the kernel loads
them, as it needs them."""

from __future__ import annotations

from jupyter_plans import PlanStore

HEAVY = ("pydantic", "pydantic_core", "jupyter_plans.plan.models", "jupyter_plans.plan.catalog")
STEPS = [{"id": "load", "description": "load the data"}, {"id": "plot", "description": "plot"}]


def loaded(client) -> list[str]:
    """Which of HEAVY the kernel has loaded."""
    found = []
    reply = client.execute_interactive(
        f"import sys; print([m for m in {HEAVY!r} if m in sys.modules])",
        timeout=60,
        output_hook=lambda msg: found.append(msg["content"].get("text", "")),
    )
    assert reply["content"]["status"] == "ok", reply["content"]
    return eval("".join(found).strip() or "None")  # noqa: S307 - the list it printed


def run(client, code: str) -> None:
    reply = client.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok", reply["content"]


def test_the_card_and_the_person_s_verbs_load_no_models(kernel, tmp_path):
    notebook = tmp_path / "light.ipynb"
    with PlanStore(tmp_path / "light.plans.sqlite") as store:  # a plan of the agent's
        result = store.session("default").call_tool(
            "update_plan", {"expected_revision": 0, "steps": STEPS}
        )
        assert not result.is_error, result.content
    run(kernel, f"__session__ = {str(notebook)!r}\n%load_ext jupyter_plans")
    assert loaded(kernel) == []
    run(kernel, "%plan on")
    run(kernel, "%plan status\n%plan off")
    assert loaded(kernel) in ([], ["jupyter_plans.plan.catalog"])  # the verbs' checks
    # The agent's own call in the kernel loads what checking it needs.
    run(
        kernel,
        "import jupyter_plans\n"
        "result = jupyter_plans.current_session().call_tool("
        "'update_plan', {'expected_revision': 1, 'steps': [{'id': 'a', 'description': 'a'}]})\n"
        "assert not result.is_error, result.content",
    )
    assert set(loaded(kernel)) >= {"pydantic_core", "jupyter_plans.plan.catalog"}
