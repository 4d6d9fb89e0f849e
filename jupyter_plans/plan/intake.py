"""What the person and the integrations pass, apart from a tool's input: a person's texts,
session, turn and call ids, tool names, and the digest that tells one call from another."""

from __future__ import annotations

import json
import re

from ..errors import PlanStoreError
from ..lazy import LazyModule, LazyPattern
from .ids import MAX_SESSION_ID_BYTES
from .validation import BIDI_CONTROLS, is_blank, quote, utf8_len

TYPE_CHECKING = False  # typing is not loaded at run time: the hook checks a session id
if TYPE_CHECKING:
    from typing import Any

# Loaded with the first call's digest, not by a store that only checks a session id.
hashlib = LazyModule("hashlib")
orjson = LazyModule("orjson")
unicodedata = LazyModule("unicodedata")  # with the first text beyond ASCII looked at

MAX_PERSON_TEXT_BYTES = 65536
MAX_CALL_ID_BYTES = 128
MAX_TOOL_NAME_BYTES = 64
MAX_SEQ = 2**63 - 1  # the largest event seq a store holds: an `after` beyond it is no number
# A person's text may hold newlines and tabs; no other control and no bidirectional control.
_PERSON_FORBIDDEN = LazyPattern(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
ID_FORBIDDEN = LazyPattern("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


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


# Characters that do not show as themselves, in the person's own words (a comment, a name):
# by category, controls, format characters (bidirectional controls, zero-width characters,
# tags that hide ASCII, invisible operators, the soft hyphen...), surrogates, private use and
# the separators of lines and paragraphs; besides them, the letters and marks that show
# nothing (Hangul fillers, the combining grapheme joiner, Khmer's inherent vowels, the blank
# Braille pattern).
_UNSEEN_CATEGORIES = {
    "Cc": "control character",
    "Cf": "format character",
    "Cs": "lone surrogate",
    "Co": "private use character",
    "Zl": "line or paragraph separator",
    "Zp": "line or paragraph separator",
}
_INVISIBLE_FILLERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
_SPECIAL_KINDS = (
    (BIDI_CONTROLS, "bidirectional control"),
    (LazyPattern("[\u200b-\u200d\u2060\ufeff]"), "zero-width character"),
    (LazyPattern("[\U000e0000-\U000e007f]"), "tag character"),
)


def unseen_character(text: str, newlines: bool = False) -> tuple[int, str, str] | None:
    """The first character of `text` that does not show as itself, as (its index, the
    character, what kind of character it is); None when every one shows. `newlines`: a
    newline is the person's own line break, not such a character."""
    if text.isascii():
        found = re.search("[\x00-\x09\x0b-\x1f\x7f]" if newlines else "[\x00-\x1f\x7f]", text)
        return None if found is None else (found.start(), found.group(), "control character")
    for index, char in enumerate(text):
        if char == "\n" and newlines:
            continue
        kind = _UNSEEN_CATEGORIES.get(unicodedata.category(char))
        if kind is None and char in _INVISIBLE_FILLERS:
            kind = "invisible filler"
        if kind == "format character":
            kind = next((name for rule, name in _SPECIAL_KINDS if rule.match(char)), kind)
        if kind is not None:
            return index, char, kind
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
    found = ID_FORBIDDEN.search(session_id)
    if found:
        return (
            f"the session id {quote(session_id)} contains U+{ord(found.group()):04X}; it may "
            "hold no control character and no bidirectional control"
        )
    if session_id != session_id.strip():
        return f"the session id {quote(session_id)} has a leading or trailing space"
    return None


def check_session_id(session_id: object) -> None:
    """Refuse an id no session can have, in one line."""
    problem = session_id_refusal(session_id)
    if problem:
        raise PlanStoreError(problem)


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
    if type(name) is str and name.isascii() and len(name) <= MAX_TOOL_NAME_BYTES:
        return None  # every tool's name: ASCII, a byte a character, valid Unicode
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
    equal as JSON values (keys in any order); None for arguments too deeply nested to be any
    tool's. `args` as call_tool holds them: JSON text already read (read_json), or the text
    itself when it holds no JSON."""
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
