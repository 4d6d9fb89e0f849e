"""The one pass over a plan input that takes plainly valid input (most input, agents' largest
plans included) without the rules one by one: pydantic-core checks the shapes and lengths, one
`isascii` of the stored text stands for every byte limit, and one search of that text for every
character rule. What it does not take goes through the rules (rules.py), which say why.
"""

from __future__ import annotations

from typing import Any

from ..lazy import LazyModule
from .checks import expression_problem
from .rules import CheckedPlan, steps_agree
from .stored import encode_plan_body
from .validation import (
    MAX_ACCEPTANCE_BYTES,
    MAX_CHECK_BYTES,
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
    check_input_size,
    check_no_control_characters,
)

pydantic_core = LazyModule("pydantic_core")  # with the first plan checked: reading needs none


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

    step = _record(
        {
            "id": cs.typed_dict_field(cs.str_schema(pattern=r"^[!-~]{1,64}\z", strict=True)),
            "description": cs.typed_dict_field(_text(MAX_DESCRIPTION_BYTES, pattern="[!-~]")),
            "status": _field(cs.literal_schema(["pending", "in_progress", "completed"]), "pending"),
            "acceptance": _field(cs.nullable_schema(_text(MAX_ACCEPTANCE_BYTES))),
            "depends_on": _field(
                cs.list_schema(cs.str_schema(max_length=MAX_ID_BYTES, strict=True)),
                default_factory=list,
            ),
            "evidence": _field(cs.nullable_schema(_text(MAX_EVIDENCE_BYTES))),
            "check": _field(cs.nullable_schema(_text(MAX_CHECK_BYTES))),
        }
    )
    texts = cs.list_schema(_text(MAX_FINDING_BYTES), max_length=MAX_FINDINGS)
    steps = cs.list_schema(step, max_length=MAX_STEPS)
    phase = _record(
        {
            "title": _field(cs.nullable_schema(_text(MAX_TITLE_BYTES))),
            "steps": cs.typed_dict_field(steps),
        }
    )
    # Bounded, so that the input's size can be told from the body's stored text (plain_plan).
    revision = cs.nullable_schema(cs.int_schema(strict=True, ge=-(2**63), lt=2**63))
    # update_plan requires the field (null allowed); plan_submit may leave it out.
    revision = _field(revision) if proposal else cs.typed_dict_field(revision)
    return SchemaValidator(
        _record(
            {
                "expected_revision": revision,
                "explanation": _field(cs.nullable_schema(_text(MAX_EXPLANATION_BYTES))),
                "findings": _field(texts, default_factory=list),
                "objectives": _field(texts, default_factory=list),
                "phases": _field(cs.nullable_schema(cs.list_schema(phase, max_length=MAX_PHASES))),
                "steps": _field(cs.nullable_schema(steps)),
            }
        )
    )


def _text(limit: int, **constraints: Any) -> Any:
    from pydantic_core import core_schema as cs

    return cs.str_schema(max_length=limit, strict=True, **constraints)


def _field(schema: Any, default: Any = None, **factory: Any) -> Any:
    """An optional field: `default` when left out, or what `default_factory` makes."""
    from pydantic_core import core_schema as cs

    if factory:
        schema = cs.with_default_schema(schema, **factory)
    else:
        schema = cs.with_default_schema(schema, default=default)
    return cs.typed_dict_field(schema, required=False)


def _record(fields: dict) -> Any:
    """A JSON object with these fields and no other."""
    from pydantic_core import core_schema as cs

    return cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)


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
            and _fits(step["check"], MAX_CHECK_BYTES)
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
    MAX_STEPS
    * len(',"status":"pending","acceptance":null,"depends_on":[],"evidence":null,"check":null')
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
    for step in steps:
        if step["check"] is not None and expression_problem(step["check"]) is not None:
            return None  # the rules say which check is not one expression, and why
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
