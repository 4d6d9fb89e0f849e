"""The final review of a plan (finish_plan): every objective addressed, once every step is done.

Finishing the steps does not finish a plan; a review of each objective, its outcome and the
evidence for it, does. These checks need the stored plan, so they run under the write lock.
"""

from __future__ import annotations

from .validation import Refused, _found


def _key(text: str) -> str:
    """How an objective is matched: spacing, case and a final full stop do not matter."""
    return " ".join(text.split()).casefold().rstrip(".")


objective_key = _key


def check_finishable(plan: dict | None) -> None:
    """Refuse finish_plan unless the plan has steps and every one is completed."""
    steps = plan["steps"] if plan is not None else []
    if not steps:
        raise Refused(
            "finish_plan is offered once the plan has steps and every one is completed; "
            "the plan has no steps"
        )
    open_steps = [step["id"] for step in steps if step["status"] != "completed"]
    if open_steps:
        raise Refused(
            f"finish_plan is offered once every step is completed; {len(open_steps)} of "
            f"{len(steps)} steps are not: {', '.join(open_steps)}"
        )


def check_checks_hold(holding_back: tuple[str, str, str | None] | None) -> None:
    """Refuse finish_plan while a completed step's approved check failed, has not run since the
    step was completed, or was changed by the agent after the approval (DESIGN section 17): in
    one line naming the step and why (plan/checks.py's CheckFold.holding_back)."""
    if holding_back is None:
        return
    step_id, status, said = holding_back
    why = {
        "failed": f"failed in the notebook ({said}); fix the step, then mark it in_progress and "
        "completed again, so that its check runs again",
        "not_run": "has not run since the step was completed; it runs in the notebook at the end "
        "of the next cell the person runs",
        "changed": "that the person approved is no longer the step's check (it was changed or "
        "removed after the approval), so it has not run since the step was completed; put it "
        "back, or propose the new one for the person's approval",
    }[status]
    raise Refused(f"finish_plan is refused: the check of step {step_id} {why}")


def reviewed(plan: dict, items: list[dict]) -> list[dict]:
    """The review to store: one item per objective of the plan, in the plan's order, each under
    the objective's own text. Refused, naming them, when objectives are missing, unknown or
    reviewed twice."""
    objectives = plan["objectives"]
    index = {_key(objective): n for n, objective in enumerate(objectives)}
    by_objective: dict[int, tuple[int, dict]] = {}
    for i, item in enumerate(items):
        n = index.get(_key(item["objective"]))
        if n is None:
            known = "; ".join(repr(o) for o in objectives) or "none"
            raise Refused(
                f"review[{i}].objective is {_found(item['objective'])}, which is not an "
                f"objective of the plan; the objectives are: {known}"
            )
        if n in by_objective:
            raise Refused(
                f"review[{i}].objective {_found(objectives[n])} is already reviewed by "
                f"review[{by_objective[n][0]}]; review each objective once"
            )
        by_objective[n] = (i, item)
    missing = [n for n in range(len(objectives)) if n not in by_objective]
    if missing:
        named = ", ".join(f"objectives[{n}] {objectives[n]!r}" for n in missing)
        raise Refused(
            f"review addresses {len(by_objective)} of the plan's {len(objectives)} objectives; "
            f"missing: {named}; give each an outcome and its evidence"
        )
    return [
        {"objective": objectives[n], "outcome": item["outcome"], "evidence": item["evidence"]}
        for n, (_, item) in sorted(by_objective.items())
    ]
