"""The bounds of a tool input (DESIGN section 2): the limits, the character rules, the checks of
the raw arguments and of the small tools' inputs, each refusing in one line. A plan's own rules
are in rules.py; what the person and the integrations pass (ids, names, texts), intake.py.

Every message names the field, the limit and what was found, so a model can correct itself in
one try.
"""

from __future__ import annotations

import json
import re
import unicodedata

from ..lazy import LazyModule, LazyPattern

TYPE_CHECKING = False  # typing is not loaded at run time: the hook checks a session id
if TYPE_CHECKING:  # pydantic itself loads with the first input that is not plain
    from collections.abc import Iterator
    from typing import Any

    from pydantic import TypeAdapter

# Loaded with the first input read or checked: a hook, which only reads the session's mode,
# starts without it (pydantic-core takes longer to load than the rest of the hook).
pydantic_core = LazyModule("pydantic_core")

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
MAX_CHECK_BYTES = 240  # a step's check: one Python expression (checks.py)
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
BIDI_CONTROLS = LazyPattern("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL = LazyPattern(f"[\x00-\x1f\x7f-\x9f{_SPOOFING}]")
_NON_ASCII_CONTROL = LazyPattern(f"[\x80-\x9f{_SPOOFING}]")
_SURROGATE = LazyPattern("[\ud800-\udfff]")
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


def read_json(text: str | bytes) -> Any:
    """The value of JSON text, as providers send arguments, or Refused saying why it is none.

    pydantic-core reads it twice as fast as the standard library, to the same value; what it
    does not take (a lone surrogate, another encoding than UTF-8, deep nesting, no JSON) the
    standard library reads as before, or explains.
    """
    try:
        return pydantic_core.from_json(text)
    except (ValueError, TypeError):  # TypeError: text holding a lone surrogate itself
        pass
    try:
        return json.loads(text)
    except RecursionError:
        raise Refused("the arguments are nested too deeply to be a plan") from None
    except ValueError as exc:
        raise Refused(f"the arguments are not valid JSON: {exc}") from None


def check_object(args: Any) -> dict:
    if isinstance(args, str | bytes):  # providers send arguments as JSON text
        args = read_json(args)
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
    "check",
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


# Helpers of the rules: locations, sizes, blanks, counts.


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
