"""The rules of a plan input (DESIGN section 2): the shape, the steps one by one and between
each other. Steps are checked in the form they are stored in. The one strict pass that takes
plainly valid input without them is in one_pass.py.
"""

from __future__ import annotations

from typing import NamedTuple

from .checks import check_refusal, expression_problem
from .validation import (
    MAX_ACCEPTANCE_BYTES,
    MAX_CHECK_BYTES,
    MAX_DESCRIPTION_BYTES,
    MAX_EVIDENCE_BYTES,
    MAX_EXPLANATION_BYTES,
    MAX_FINDING_BYTES,
    MAX_FINDINGS,
    MAX_ID_BYTES,
    MAX_PHASES,
    MAX_STEPS,
    MAX_TITLE_BYTES,
    Refused,
    Where,
    _found,
    check_bytes,
    check_count,
    check_not_blank,
    is_blank,
    name,
    utf8_len,
)


class CheckedPlan(NamedTuple):
    """A plan input that passed every bound that needs no stored state."""

    expected_revision: int | None
    body: dict  # explanation, findings, objectives and phases, steps in their stored form
    given: frozenset[str]  # the fields the input named
    text: str | None = None  # the body's stored text (stored.py), when plain_plan made it


def check_one_shape(args: dict) -> None:
    flat, phased = args.get("steps") is not None, args.get("phases") is not None
    if flat == phased:
        raise Refused(
            f"send exactly one of steps and phases; found {'both' if flat else 'neither'}"
        )


def normalize(args: dict) -> tuple[dict, list[tuple[Where, dict]]]:
    """The plan body in stored form, and each step with the location the input gave it."""
    located: list[tuple[Where, dict]] = []
    if args.get("steps") is not None:
        groups = [(None, args["steps"], "steps", None)]
    else:
        groups = [(p.get("title"), p["steps"], "phases", n) for n, p in enumerate(args["phases"])]
    phases = []
    for title, given, field, number in groups:
        steps = []
        for i, step in enumerate(given):
            # The stored form: every field present, absent values as null and [].
            stored = {
                "id": step["id"],
                "description": step["description"],
                "status": step.get("status", "pending"),
                "acceptance": step.get("acceptance"),
                "depends_on": list(step.get("depends_on") or ()),  # never the caller's list
                "evidence": step.get("evidence"),
                "check": step.get("check"),
            }
            steps.append(stored)
            located.append(((field, i) if number is None else (field, number, "steps", i), stored))
        phases.append({"title": title, "steps": steps})
    if args.get("steps") is not None and not args["steps"]:
        phases = []  # an empty flat plan has no phase at all
    body = {
        "explanation": args.get("explanation"),
        "findings": list(args.get("findings") or ()),
        "objectives": list(args.get("objectives") or ()),
        "phases": phases,
    }
    return body, located


def check_phases(body: dict) -> None:
    check_count("phases", body["phases"], MAX_PHASES, "phases")
    for p, phase in enumerate(body["phases"]):
        check_bytes(("phases", p, "title"), phase["title"], MAX_TITLE_BYTES)


def check_step_count(steps: list[tuple[Where, dict]]) -> None:
    if len(steps) > MAX_STEPS:
        raise Refused(f"the plan has {len(steps)} steps in all; the limit is {MAX_STEPS}")


def check_step_ids(steps: list[tuple[Where, dict]]) -> None:
    ids = [step["id"] for _, step in steps]
    joined = "".join(ids)
    # Printable ASCII without the space is exactly 0x21 to 0x7E.
    if (
        joined.isascii()
        and joined.isprintable()
        and " " not in joined
        and all(0 < len(ident) <= MAX_ID_BYTES for ident in ids)
        and len(set(ids)) == len(ids)
    ):
        return
    seen: dict[str, Where] = {}
    for where, step in steps:
        ident = step["id"]
        size = utf8_len(ident)
        if not 1 <= size <= MAX_ID_BYTES:
            raise Refused(f"{name(where)}.id is {size} bytes; it must be 1 to {MAX_ID_BYTES}")
        if not (ident.isascii() and ident.isprintable() and " " not in ident):
            raise Refused(
                f"{name(where)}.id is {_found(ident)}; an id is printable ASCII without spaces"
            )
        if ident in seen:
            raise Refused(f"{name(where)}.id {ident!r} is already used by {name(seen[ident])}")
        seen[ident] = where


def check_step_texts(steps: list[tuple[Where, dict]]) -> None:
    # Runs on every update: the common case (short text) costs no call at all.
    for where, step in steps:
        description, acceptance, evidence = (
            step["description"],
            step["acceptance"],
            step["evidence"],
        )
        check_not_blank(where, description, ".description")
        if len(description) > MAX_DESCRIPTION_BYTES // 4:
            check_bytes(where, description, MAX_DESCRIPTION_BYTES, ".description")
        if acceptance is not None and len(acceptance) > MAX_ACCEPTANCE_BYTES // 4:
            check_bytes(where, acceptance, MAX_ACCEPTANCE_BYTES, ".acceptance")
        if evidence is not None and len(evidence) > MAX_EVIDENCE_BYTES // 4:
            check_bytes(where, evidence, MAX_EVIDENCE_BYTES, ".evidence")
        if step["check"] is not None:
            check_step_check(where, step["check"])


def check_step_check(where: Where, check: str) -> None:
    """A step's check: 1 to 240 bytes of one Python expression (plan/checks.py)."""
    if not check or len(check) * 4 > MAX_CHECK_BYTES:  # else it is within its bytes
        size = utf8_len(check)
        if not 1 <= size <= MAX_CHECK_BYTES:
            raise Refused(f"{name(where)}.check is {size} bytes; it must be 1 to {MAX_CHECK_BYTES}")
    refused = check_refusal(f"{name(where)}.check", check)
    if refused:
        raise Refused(refused)


def check_one_in_progress(steps: list[tuple[Where, dict]]) -> None:
    active = [(where, step) for where, step in steps if step["status"] == "in_progress"]
    if len(active) > 1:
        (first_where, first), (where, _) = active[0], active[1]
        raise Refused(
            f"{name(where)}.status is 'in_progress' but {name(first_where)} ({first['id']}) "
            f"already is; the limit is 1 step in_progress, found {len(active)}"
        )


def check_dependencies(steps: list[tuple[Where, dict]]) -> None:
    earlier: set[str] = set()
    for where, step in steps:
        if step["depends_on"] and not earlier.issuperset(step["depends_on"]):
            _refuse_dependency(where, step, earlier)
        earlier.add(step["id"])


def _refuse_dependency(where: Where, step: dict, earlier: set[str]) -> None:
    for i, dep in enumerate(step["depends_on"]):
        if dep not in earlier:
            reason = "itself" if dep == step["id"] else "no earlier step"
            raise Refused(
                f"{name(where)}.depends_on[{i}] is {_found(dep)}, which names {reason}; "
                "a step may depend only on steps before it"
            )


def check_evidence(steps: list[tuple[Where, dict]]) -> None:
    for where, step in steps:
        if step["status"] == "completed" and step["acceptance"] is not None:
            evidence = step["evidence"]
            if evidence is None or is_blank(evidence):
                raise Refused(
                    f"{name(where)}.evidence is {_found(evidence)} but the step is completed "
                    "and has an acceptance; say what showed the acceptance met"
                )


def check_proposal_steps(steps: list[tuple[Where, dict]]) -> None:
    for where, step in steps:
        if step["status"] != "pending":
            raise Refused(
                f"{name(where)}.status is {step['status']!r}; a proposal's steps are 'pending'"
            )
        if step["evidence"] is not None:
            raise Refused(f"{name(where)}.evidence is set; a proposal's steps carry no evidence")


def check_plan_texts(body: dict) -> None:
    check_bytes("explanation", body["explanation"], MAX_EXPLANATION_BYTES)
    for field in ("findings", "objectives"):
        items = body[field]
        check_count(field, items, MAX_FINDINGS, "items")
        for i, text in enumerate(items):
            check_bytes((field, i), text, MAX_FINDING_BYTES)


def _number(value: int) -> str:
    """An integer as a refusal names it: at most MAX_QUOTED_CHARS characters."""
    if -(10**30) < value < 10**30:
        return str(value)
    return f"{'-' if value < 0 else ''}a number of {len(str(abs(value)))} digits"


def check_expected_revision(expected: int | None, current: int, required: bool) -> None:
    if expected is None:
        if required:
            raise Refused(f"expected_revision is required; the session is at revision {current}")
        return
    if expected != current:
        raise Refused(
            f"expected_revision is {_number(expected)} but the session is at revision {current}; "
            "read the plan again and resend it against the current revision"
        )


def check_plan(args: dict, proposal: bool) -> CheckedPlan:
    """Every bound of a plan input that does not depend on the stored session."""
    check_one_shape(args)
    body, steps = normalize(args)
    check_plan_texts(body)
    check_phases(body)
    if not plainly_within_bounds([step for _, step in steps], proposal):
        check_step_count(steps)
        check_step_ids(steps)
        check_step_texts(steps)
        if proposal:
            check_proposal_steps(steps)
        else:
            check_one_in_progress(steps)
            check_evidence(steps)
        check_dependencies(steps)
    return CheckedPlan(args.get("expected_revision"), body, frozenset(args))


def plainly_within_bounds(steps: list[dict], proposal: bool) -> bool:
    """One quick pass that is True only when no step rule can refuse the steps.

    It runs on every update that the one pass of plain_plan does not take, where the rules
    one by one cost a third of the call; a False sends the input through the rules above,
    which find the offender and say what is wrong. Its tests are at least as strict as the
    rules: text short enough that no encoding can reach a limit, ids plain ASCII, everything
    else exactly as the rules state it.
    """
    if len(steps) > MAX_STEPS:
        return False
    for step in steps:
        ident, description = step["id"], step["description"]
        acceptance, evidence = step["acceptance"], step["evidence"]
        if (
            not 0 < len(ident) <= MAX_ID_BYTES
            or not description
            or len(description) > MAX_DESCRIPTION_BYTES // 4
            or is_blank(description)
            or (acceptance is not None and len(acceptance) > MAX_ACCEPTANCE_BYTES // 4)
            or (evidence is not None and len(evidence) > MAX_EVIDENCE_BYTES // 4)
            or not plain_check(step["check"])
        ):
            return False
    ids = "".join(step["id"] for step in steps)
    return ids.isascii() and ids.isprintable() and " " not in ids and steps_agree(steps, proposal)


def plain_check(check: str | None) -> bool:
    """True when a step's check (or its absence) is plainly within its bounds: short enough
    that no encoding reaches its limit, and one expression (plan/checks.py, which remembers
    the checks it has read)."""
    return check is None or (
        0 < len(check) <= MAX_CHECK_BYTES // 4 and expression_problem(check) is None
    )


def steps_agree(steps: list[dict], proposal: bool) -> bool:
    """True only when the rules between steps cannot refuse them: ids unique, dependencies on
    earlier steps, at most one in progress, evidence where an acceptance asks for it, and a
    proposal's steps pending with no evidence."""
    earlier: set[str] = set()
    in_progress = 0
    for step in steps:
        ident, depends_on = step["id"], step["depends_on"]
        if ident in earlier or (depends_on and not earlier.issuperset(depends_on)):
            return False
        status, evidence = step["status"], step["evidence"]
        if proposal:
            if status != "pending" or evidence is not None:
                return False
        elif status == "in_progress":
            in_progress += 1
        elif status == "completed" and step["acceptance"] is not None:
            if evidence is None or is_blank(evidence):
                return False
        earlier.add(ident)
    return in_progress <= 1
