"""The bounds of a tool input (DESIGN section 2): one function per rule, each refusing in one line.

Every message names the field, the limit and what was found, so a model can correct itself in
one try.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
import pydantic_core

from ._stored import encode_plan_body

if TYPE_CHECKING:  # pydantic itself loads with the first input that is not plain
    from pydantic import TypeAdapter

MAX_INPUT_BYTES = 65536
MAX_STEPS = 32
MAX_PHASES = 8
MAX_ID_BYTES = 64
MAX_DESCRIPTION_BYTES = 240
MAX_EXPLANATION_BYTES = 500
MAX_FINDING_BYTES = 500
MAX_FINDINGS = 20
MAX_TITLE_BYTES = 120
MAX_ACCEPTANCE_BYTES = 240
MAX_EVIDENCE_BYTES = 500
MAX_DECISION_TITLE_BYTES = 120
MAX_RATIONALE_BYTES = 500
MAX_SOURCES = 20
MAX_SOURCE_BYTES = 500
MAX_QUESTION_BYTES = 500
MAX_OUTCOME_BYTES = 500

# What a person reads must be what the hash binds: besides control characters, the
# bidirectional controls (which reorder what is shown) and the line and paragraph separators.
_SPOOFING = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_SPOOFING}]")
_NON_ASCII_CONTROL = re.compile(f"[\x80-\x9f{_SPOOFING}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_VISIBLE_ASCII = re.compile("[!-~]")
# A text made only of these (spaces, separators, format characters such as U+200B) shows
# nothing: it counts as blank.
_INVISIBLE = frozenset(("Zs", "Zl", "Zp", "Cf"))
MAX_QUOTED_CHARS = 100


class Refused(ValueError):
    """An input that breaks a bound; the message is the one line the caller sees."""


def path(*parts: str | int) -> str:
    """('steps', 3, 'description') -> 'steps[3].description'."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not part.isprintable() or len(part) > MAX_QUOTED_CHARS:
            # A key a model made up stays on one line, escaped, and short.
            out += f"[{quote(part)}]" if part.isprintable() else f"[{ascii(part)[:100]}]"
        else:
            out += f".{part}" if out else part
    return out or "input"


def _found(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def quote(value: Any) -> str:
    """A value named in a refusal, as repr, cut to at most MAX_QUOTED_CHARS characters."""
    text = repr(value)
    return text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 3] + "..."


def is_blank(text: str) -> bool:
    """True when `text` shows nothing: empty, or only whitespace, separators and format
    characters (Unicode categories Zs, Zl, Zp and Cf, such as U+200B)."""
    if _VISIBLE_ASCII.search(text):
        return False
    return all(char.isspace() or unicodedata.category(char) in _INVISIBLE for char in text)


def describe_character(char: str) -> str:
    """Why a character found by the control-character rule may not be in a text."""
    if _CONTROL.match(char) and not ("\x00" <= char <= "\x1f" or "\x7f" <= char <= "\x9f"):
        kind = "line or paragraph separator" if char in "\u2028\u2029" else "bidirectional control"
        return (
            f"the {kind} U+{ord(char):04X}; text a person reads may not hold bidirectional "
            "controls or line and paragraph separators, so that what is shown is what is bound"
        )
    return (
        f"the control character U+{ord(char):04X}; "
        "text may not hold control characters (newline and tab included)"
    )


# Whole-input rules, on the raw arguments.


def check_ids(turn_id: Any, call_id: Any) -> None:
    """Refuse, in one line, a turn or call id that cannot be used: TypeError for one that is
    not a string, ValueError for one that is not valid Unicode or not 1 to 128 bytes."""
    for name, value in (("turn_id", turn_id), ("call_id", call_id)):
        if value is None or (type(value) is str and value.isascii() and 0 < len(value) <= 128):
            continue
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string or None; found {type(value).__name__}")
        problem = id_refusal(name, value, MAX_CALL_ID_BYTES)
        if problem:
            raise ValueError(problem)


def check_object(args: Any) -> dict:
    if isinstance(args, str | bytes):  # providers send arguments as JSON text
        try:
            args = json.loads(args)
        except RecursionError:
            raise Refused("the arguments are nested too deeply to be a plan") from None
        except ValueError as exc:
            raise Refused(f"the arguments are not valid JSON: {exc}") from None
    if not isinstance(args, dict):
        raise Refused(f"the arguments must be a JSON object; found {type(args).__name__}")
    return args


def check_input_size(args: dict) -> str:
    """Refuse an input over the limit; return its compact JSON text.

    pydantic's serializer writes the same compact JSON as the standard library, six times
    faster; it may differ only in how numbers are spelled, never by half the size, so it
    decides alone when the input is well under the limit.
    """
    try:
        fast = pydantic_core.to_json(args).decode()
        if len(fast) * 4 <= MAX_INPUT_BYTES:
            return fast
    except (ValueError, RecursionError):
        pass  # the exact encoder below says what is wrong
    try:
        text = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        raise Refused("the input is nested too deeply to be a plan") from None
    except (TypeError, ValueError) as exc:
        raise Refused(f"the input is not JSON data: {exc}") from None
    try:
        size = len(text.encode())
    except UnicodeEncodeError:
        where, char = next(_find(args, _SURROGATE))
        raise Refused(
            f"{name(where)} contains a lone surrogate U+{ord(char):04X}; text must be valid Unicode"
        ) from None
    if size > MAX_INPUT_BYTES:
        raise Refused(f"the input is {size} bytes; the limit is {MAX_INPUT_BYTES}")
    return text


def check_no_control_characters(args: dict, text: str) -> None:
    # JSON escapes U+0000 to U+001F with a backslash and leaves U+007F and above as they
    # are, so text with neither holds no forbidden character and needs no walk.
    if "\\" not in text and "\x7f" not in text:
        if text.isascii() or not _NON_ASCII_CONTROL.search(text):
            return
    for where, char in _find(args, _CONTROL):
        raise Refused(f"{name(where)} contains {describe_character(char)}")


def _find(value: Any, pattern: re.Pattern) -> Iterator[tuple[str, str]]:
    """Yield (field path, offending character) for every string, keys included."""
    stack: list[tuple[tuple, Any]] = [((), value)]
    while stack:
        parts, item = stack.pop()
        if isinstance(item, str):
            match = pattern.search(item)
            if match:
                yield path(*parts), match.group()
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if isinstance(key, str) and pattern.search(key):
                    yield path(*parts, "(a key)"), pattern.search(key).group()
                stack.append(((*parts, str(key)), child))
        elif isinstance(item, list | tuple):
            stack.extend(((*parts, i), child) for i, child in reversed(list(enumerate(item))))


def parse(adapter: TypeAdapter, args: dict) -> dict:
    """Validate the shape with pydantic and turn its first error into one line."""
    try:
        return adapter.validate_python(args)
    except pydantic_core.ValidationError as exc:
        raise Refused(_describe(adapter, exc.errors(include_url=False)[0])) from None


def _describe(adapter: TypeAdapter, error: dict) -> str:
    loc = [part for part in error["loc"] if not (isinstance(part, str) and "[" in part)]
    where = path(*loc)
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        return f"{where} is required"
    if kind == "extra_forbidden":
        return f"{where} is not a field of this tool; {_fields_hint(adapter, loc)}"
    if kind == "literal_error" and loc and loc[-1] == "status":
        return (
            f"{where} is {_found(value)}; "
            "it must be exactly 'pending', 'in_progress' or 'completed'"
        )
    expected = {
        "string_type": "a string",
        "int_type": "an integer",
        "list_type": "a list",
        "model_type": "an object",
        "dict_type": "an object",
    }.get(kind)
    if expected:
        if loc and loc[-1] in _NULLABLE:
            expected += " or null"
        return f"{where} must be {expected}; found {type(value).__name__} {_found(value)}"
    return f"{where}: {error['msg']}; found {_found(value)}"


_NULLABLE = {
    "acceptance",
    "evidence",
    "title",
    "explanation",
    "depends_on",
    "findings",
    "objectives",
    "sources",
    "expected_revision",
}


def _fields_hint(adapter: TypeAdapter, loc: list) -> str:
    from .models import PhaseInput, ReviewItemInput, StepInput

    owner = adapter._type
    if "steps" in loc[:-1]:
        owner = StepInput
    elif "phases" in loc[:-1]:
        owner = PhaseInput
    elif "review" in loc[:-1]:
        owner = ReviewItemInput
    return "the fields are " + ", ".join(owner.__annotations__)


# Plan rules, on the validated input. Steps are checked in the form they are stored in.

Where = tuple  # a field's location, such as ("steps", 3); spelled out by name() on refusal


def name(where: str | tuple) -> str:
    return where if isinstance(where, str) else path(*where)


def utf8_len(text: str) -> int:
    return len(text.encode())


def check_bytes(where: Any, text: str | None, limit: int, field: str = "") -> None:
    # A character is at most 4 bytes in UTF-8: short text needs no encoding to be measured.
    if text is None or len(text) * 4 <= limit:
        return
    if (size := utf8_len(text)) > limit:
        raise Refused(f"{name(where)}{field} is {size} bytes; the limit is {limit}")


def check_not_blank(where: Any, text: str, field: str = "") -> None:
    if is_blank(text):
        raise Refused(f"{name(where)}{field} is blank; it needs some text")


def check_count(where: str, items: list, limit: int, what: str) -> None:
    if len(items) > limit:
        raise Refused(f"{where} has {len(items)} {what}; the limit is {limit}")


class CheckedPlan(NamedTuple):
    """A plan input that passed every bound that needs no stored state."""

    expected_revision: int | None
    body: dict  # explanation, findings, objectives and phases, steps in their stored form
    given: frozenset[str]  # the fields the input named
    text: str | None = None  # the body's stored text (_stored.py), when plain_plan made it


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
    fields, types and statuses, text short enough that no encoding can reach a byte limit,
    ids of 1 to 64 printable ASCII characters, descriptions with a visible ASCII character.
    It does not say why it refuses; what it refuses goes through the rules, which do.
    """
    from pydantic_core import SchemaValidator
    from pydantic_core import core_schema as cs

    def text(limit: int, **constraints: Any) -> Any:
        return cs.str_schema(max_length=limit // 4, strict=True, **constraints)

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
            "depends_on": field(cs.list_schema(text(4 * MAX_ID_BYTES)), default_factory=list),
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
    if 4 * (len(text) + _BEYOND_BODY) > MAX_INPUT_BYTES:  # a character is 1 to 4 bytes
        check_input_size(args)
    check_no_control_characters(args, text)
    return CheckedPlan(revision, body, frozenset(args), text)


def check_decision(args: dict) -> dict:
    """A record_decision input, checked, in its stored form."""
    title, rationale, sources = args["title"], args["rationale"], args.get("sources") or []
    check_not_blank("title", title)
    check_bytes("title", title, MAX_DECISION_TITLE_BYTES)
    check_not_blank("rationale", rationale)
    check_bytes("rationale", rationale, MAX_RATIONALE_BYTES)
    check_count("sources", sources, MAX_SOURCES, "items")
    for i, source in enumerate(sources):
        check_bytes(("sources", i), source, MAX_SOURCE_BYTES)
    return {"title": title, "rationale": rationale, "sources": sources}


def check_question(args: dict) -> str:
    """An ask_user input, checked: the question itself."""
    question = args["question"]
    check_not_blank("question", question)
    check_bytes("question", question, MAX_QUESTION_BYTES)
    return question


def check_review(args: dict) -> list[dict]:
    """A finish_plan input, checked against the bounds that need no plan: its review items."""
    review = args["review"]
    check_count("review", review, MAX_FINDINGS, "items")
    items = []
    for i, item in enumerate(review):
        for field, limit in (
            ("objective", MAX_FINDING_BYTES),
            ("outcome", MAX_OUTCOME_BYTES),
            ("evidence", MAX_EVIDENCE_BYTES),
        ):
            check_not_blank(("review", i, field), item[field])
            check_bytes(("review", i, field), item[field], limit)
        items.append(
            {
                "objective": item["objective"],
                "outcome": item["outcome"],
                "evidence": item["evidence"],
            }
        )
    return items


def check_raw(args: dict) -> None:
    """The rules that hold for every tool's raw arguments (once they are an object)."""
    check_no_control_characters(args, check_input_size(args))


# What the person and the integrations pass: their texts, session ids, and the ids of calls.

MAX_PERSON_TEXT_BYTES = 65536
MAX_SESSION_ID_BYTES = 128
MAX_CALL_ID_BYTES = 128
MAX_TOOL_NAME_BYTES = 64
# A person's text may hold newlines and tabs; no other control and no bidirectional control.
_PERSON_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_ID_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _unicode_problem(text: str, what: str = "text") -> str | None:
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        return (
            f"contains a lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start}; "
            f"{what} must be valid Unicode"
        )
    return None


def person_text_refusal(what: str, text: Any) -> str | None:
    """Why a person's text (revise notes, an answer, a task) cannot be taken, or None."""
    if not isinstance(text, str):
        return f"{what} must be text; found {type(text).__name__}"
    problem = _unicode_problem(text)
    if problem:
        return f"{what} {problem}"
    if is_blank(text):
        return f"{what} is blank; say what you want"
    if len(text) * 4 > MAX_PERSON_TEXT_BYTES and (size := utf8_len(text)) > MAX_PERSON_TEXT_BYTES:
        return f"{what} is {size} bytes; the limit is {MAX_PERSON_TEXT_BYTES}"
    found = _PERSON_FORBIDDEN.search(text)
    if found:
        char = found.group()
        kind = "bidirectional control" if BIDI_CONTROLS.match(char) else "control character"
        return (
            f"{what} contains the {kind} U+{ord(char):04X} at character {found.start()}; "
            "only newline and tab are allowed besides visible text"
        )
    return None


def id_refusal(what: str, value: Any, limit: int) -> str | None:
    """Why an id given by an integration (a session, turn or call id) cannot be used, or None."""
    if not isinstance(value, str):
        return f"{what} must be text; found {type(value).__name__}"
    problem = _unicode_problem(value, "an id")
    if problem:
        return f"{what} {problem}"
    size = utf8_len(value)
    if not 1 <= size <= limit:
        return f"{what} is {size} bytes; it must be 1 to {limit}"
    return None


def session_id_refusal(session_id: Any) -> str | None:
    """Why a session id cannot name a session, or None: 1 to 128 bytes of text with no
    control character, no bidirectional control and no leading or trailing space."""
    problem = id_refusal("the session id", session_id, MAX_SESSION_ID_BYTES)
    if problem:
        return problem
    found = _ID_FORBIDDEN.search(session_id)
    if found:
        return (
            f"the session id {quote(session_id)} contains U+{ord(found.group()):04X}; it may "
            "hold no control character and no bidirectional control"
        )
    if session_id != session_id.strip():
        return f"the session id {quote(session_id)} has a leading or trailing space"
    return None


def recorded_tool_name(name: Any) -> str:
    """The tool name as a refusal records it: text, at most MAX_TOOL_NAME_BYTES bytes of UTF-8
    (cut at a character boundary), a lone surrogate written as its escape."""
    text = name if isinstance(name, str) else repr(name)
    data = text.encode("utf-8", "backslashreplace")
    if len(data) <= MAX_TOOL_NAME_BYTES and data.decode() == text:
        return text
    return data[:MAX_TOOL_NAME_BYTES].decode("utf-8", "ignore")


def tool_name_refusal(name: Any) -> str | None:
    """Why a tool name is refused before the catalog is asked: not text, not valid Unicode, or
    over MAX_TOOL_NAME_BYTES bytes. The refusal quotes at most MAX_QUOTED_CHARS characters."""
    if not isinstance(name, str):
        return f"the tool name must be text; found {type(name).__name__}"
    problem = _unicode_problem(name)
    if problem:
        return f"the tool name {quote(name)} {problem}"
    if len(name) * 4 > MAX_TOOL_NAME_BYTES and (size := utf8_len(name)) > MAX_TOOL_NAME_BYTES:
        return f"the tool name {quote(name)} is {size} bytes; the limit is {MAX_TOOL_NAME_BYTES}"
    return None


def call_digest(name: Any, args: Any) -> str | None:
    """The SHA-256 (hex) of a call's tool name and arguments, equal for arguments that are
    equal as JSON values (keys in any order; JSON text or the object it holds); None for
    arguments too deeply nested to be any tool's."""
    value = args
    if isinstance(args, str | bytes):
        try:
            value = json.loads(args)
        except (ValueError, RecursionError):
            value = args.decode("utf-8", "backslashreplace") if isinstance(args, bytes) else args
    try:
        text = orjson.dumps([name, value], option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # big integers, lone surrogates, other keys
        try:
            dumped = json.dumps(
                [name, value],
                sort_keys=True,
                ensure_ascii=False,
                separators=(",", ":"),
                default=repr,
            )
        except (RecursionError, TypeError, ValueError):
            return None
        text = dumped.encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()
