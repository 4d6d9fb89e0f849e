"""The rules of a plan input (DESIGN section 2): the shape, the steps one by one and between
each other, and one strict pass that takes plainly valid input without them. Steps are checked
in the form they are stored in.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pydantic_core

from .stored import encode_plan_body
from .validation import (
    MAX_ACCEPTANCE_BYTES,
    MAX_DESCRIPTION_BYTES,
    MAX_EVIDENCE_BYTES,
    MAX_EXPLANATION_BYTES,
    MAX_FINDING_BYTES,
    MAX_FINDINGS,
    MAX_ID_BYTES,
    MAX_INPUT_BYTES,
    MAX_PHASES,
    MAX_STEPS,
    MAX_TITLE_BYTES,
    Refused,
    Where,
    _found,
    check_bytes,
    check_count,
    check_input_size,
    check_no_control_characters,
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
        ):
            return False
    ids = "".join(step["id"] for step in steps)
    return ids.isascii() and ids.isprintable() and " " not in ids and steps_agree(steps, proposal)


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


def _plain_plan_validator(proposal: bool) -> Any:
    """One strict pass in pydantic-core over a plan input, giving its stored form.

    It accepts only input that every rule above accepts, in the same stored form: the same
    fields, types and statuses, text of at most as many characters as its limit has bytes
    (`within_byte_limits` then measures the few texts where that is not enough), ids of 1 to
    64 printable ASCII characters, descriptions with a visible ASCII character. It does not
    say why it refuses; what it refuses goes through the rules, which do.
    """
    from pydantic_core import SchemaValidator
    from pydantic_core import core_schema as cs

    def text(limit: int, **constraints: Any) -> Any:
        return cs.str_schema(max_length=limit, strict=True, **constraints)

    def field(schema: Any, default: Any = None, **factory: Any) -> Any:
        if factory:
            schema = cs.with_default_schema(schema, **factory)
        else:
            schema = cs.with_default_schema(schema, default=default)
        return cs.typed_dict_field(schema, required=False)

    def nullable(schema: Any) -> Any:
        return cs.nullable_schema(schema)

    def record(fields: dict) -> Any:
        return cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)

    step = record(
        {
            "id": cs.typed_dict_field(cs.str_schema(pattern=r"^[!-~]{1,64}\z", strict=True)),
            "description": cs.typed_dict_field(text(MAX_DESCRIPTION_BYTES, pattern="[!-~]")),
            "status": field(cs.literal_schema(["pending", "in_progress", "completed"]), "pending"),
            "acceptance": field(nullable(text(MAX_ACCEPTANCE_BYTES))),
            "depends_on": field(
                cs.list_schema(cs.str_schema(max_length=MAX_ID_BYTES, strict=True)),
                default_factory=list,
            ),
            "evidence": field(nullable(text(MAX_EVIDENCE_BYTES))),
        }
    )
    texts = cs.list_schema(text(MAX_FINDING_BYTES), max_length=MAX_FINDINGS)
    steps = cs.list_schema(step, max_length=MAX_STEPS)
    phase = record(
        {"title": field(nullable(text(MAX_TITLE_BYTES))), "steps": cs.typed_dict_field(steps)}
    )
    # Bounded, so that the input's size can be told from the body's stored text (plain_plan).
    revision = nullable(cs.int_schema(strict=True, ge=-(2**63), lt=2**63))
    # update_plan requires the field (null allowed); plan_submit may leave it out.
    revision = field(revision) if proposal else cs.typed_dict_field(revision)
    return SchemaValidator(
        record(
            {
                "expected_revision": revision,
                "explanation": field(nullable(text(MAX_EXPLANATION_BYTES))),
                "findings": field(texts, default_factory=list),
                "objectives": field(texts, default_factory=list),
                "phases": field(nullable(cs.list_schema(phase, max_length=MAX_PHASES))),
                "steps": field(nullable(steps)),
            }
        )
    )


_PLAIN_PLAN: dict[bool, Any] = {}


def _fits(text: str | None, limit: int) -> bool:
    """Whether a text of at most `limit` characters is at most `limit` UTF-8 bytes: at once
    when it is short or ASCII (one byte a character), else by measuring it."""
    return (
        text is None
        or len(text) <= limit // 4
        or text.isascii()
        or len(text.encode("utf-8", "surrogatepass")) <= limit
    )


def within_byte_limits(plan: dict, phases: list[dict], steps: list[dict]) -> bool:
    """The byte limits of section 2, for a plain input with some non-ASCII text, whose texts
    have at most as many characters as their limits have bytes: one `isascii` a text, and an
    encoding only for a long text that is not ASCII."""
    for step in steps:
        if not (
            _fits(step["description"], MAX_DESCRIPTION_BYTES)
            and _fits(step["acceptance"], MAX_ACCEPTANCE_BYTES)
            and _fits(step["evidence"], MAX_EVIDENCE_BYTES)
        ):
            return False
    texts = [(plan["explanation"], MAX_EXPLANATION_BYTES)]
    texts += [(text, MAX_FINDING_BYTES) for text in plan["findings"] + plan["objectives"]]
    texts += [(phase["title"], MAX_TITLE_BYTES) for phase in phases]
    return all(_fits(text, limit) for text, limit in texts)


# What the JSON text of an input plain_plan takes can hold beyond its body's stored text: the
# fields that text leaves out for holding their defaults, and expected_revision. Every text
# of the input is in the stored text, escaped as the standard library escapes it.
_BEYOND_BODY = (
    MAX_STEPS * len(',"status":"pending","acceptance":null,"depends_on":[],"evidence":null')
    + MAX_PHASES * len('"title":null,')
    + len('{"expected_revision":-9223372036854775808,"explanation":null,"findings":[],')
    + len('"objectives":[],"phases":null,"steps":null}')
)


def plain_plan(args: dict, proposal: bool) -> CheckedPlan | None:
    """The checked plan when `args` (the raw input) is plainly within every bound; None
    when it is not, or not plainly: then the models and the rules decide, and explain."""
    if proposal and not {"explanation", "findings", "objectives"} <= args.keys():
        return None
    validator = _PLAIN_PLAN.get(proposal)
    if validator is None:
        validator = _PLAIN_PLAN[proposal] = _plain_plan_validator(proposal)
    try:
        plan = validator.validate_python(args)
    except pydantic_core.ValidationError:
        return None
    steps, phases = plan.pop("steps"), plan.pop("phases")
    if (steps is None) == (phases is None):
        return None
    if steps is not None:
        phases = [{"title": None, "steps": steps}] if steps else []
    else:
        steps = [step for phase in phases for step in phase["steps"]]
    if len(steps) > MAX_STEPS or not steps_agree(steps, proposal):
        return None
    revision = plan.pop("expected_revision")
    body = {**plan, "phases": phases}
    # The stored text is made here, once: it serves for the input's size and control
    # characters (the rules of check_raw, in its order) and then as the event's plan.
    text = encode_plan_body(body)
    # All ASCII (pydantic-core writes other characters as they are): a character is a byte,
    # and the validator's lengths were the byte limits.
    if not text.isascii() and not within_byte_limits(body, phases, steps):
        return None
    if 4 * (len(text) + _BEYOND_BODY) > MAX_INPUT_BYTES:  # a character is 1 to 4 bytes
        check_input_size(args)
    check_no_control_characters(args, text)
    return CheckedPlan(revision, body, frozenset(args), text)
