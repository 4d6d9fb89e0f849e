"""The standard library's json, read and written through its own C functions (`_json`) without
importing `json`, for the coding-agent hook, which starts in a new process before every tool
call. Importing `json` compiles its regular expressions, and so loads `re` and `enum`: some 20
million instructions, a fifth of the hook's whole run.

The answers are json's own: `loads` gives what `json.loads` gives for a str, `dumps` what
`json.dumps` gives with the same separators. Wherever the fast way does not answer (a value it
does not take, text it cannot read, a Python without `_json`), `json` itself is imported and
answers, so its errors, in its words, are the ones raised.
"""

from __future__ import annotations

from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    from _json import encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # a Python without json's accelerator: json answers
    make_encoder = make_scanner = None

WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE's characters
# json.JSONDecoder()'s settings, which the C scanner reads: the same values for every number
# and constant (NaN, Infinity, -Infinity are what float reads them as).
_DECODER = SimpleNamespace(
    strict=True,
    object_hook=None,
    object_pairs_hook=None,
    parse_float=float,
    parse_int=int,
    parse_constant=float,
)


def loads(text: str) -> Any:
    """`json.loads(text)` for a str."""
    if make_scanner is not None and not text.startswith("\ufeff"):
        body = text.strip(WHITESPACE)
        try:
            value, end = make_scanner(_DECODER)(body, 0)
        except Exception:  # noqa: BLE001, S110 - json says what is wrong, below
            pass
        else:
            if end == len(body):
                return value
    import json

    return json.loads(text)


def dumps(value: Any, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, separators=separators)`: ASCII, keys in their order."""
    if make_encoder is not None:
        try:
            # markers, default, encoder, indent, separators, sort_keys, skipkeys, allow_nan
            encode = make_encoder(
                None, _refuse, encode_basestring_ascii, None, separators[1], separators[0],
                False, False, True,
            )  # fmt: skip
            return "".join(encode(value, 0))
        except Exception:  # noqa: BLE001, S110 - json answers, or says what it refuses
            pass
    import json

    return json.dumps(value, separators=separators)


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)
