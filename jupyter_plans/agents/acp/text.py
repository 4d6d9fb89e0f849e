"""Texts from an ACP agent made fit for a plan: cut at a character boundary, cleared of the
characters a plan's text may not hold, and the first paragraph of a proposal's Markdown."""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"

# What DESIGN section 2 refuses in an agent's text: control characters (newline and tab
# included), bidirectional controls, and the line and paragraph separators.
_FORBIDDEN = re.compile(
    "[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)
_BLANK_CATEGORIES = {"Zs", "Zl", "Zp", "Cf"}
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def cut(text: str, limit: int, mark: str = ELLIPSIS) -> str:
    """`text` if it fits in `limit` UTF-8 bytes, else its longest start that fits together
    with `mark`, cut at a character boundary, followed by `mark`."""
    data = text.encode()
    if len(data) <= limit:
        return text
    room = limit - len(mark.encode())
    return data[:room].decode(errors="ignore") + mark


def clean(text: str) -> str:
    """`text` with each character a plan cannot hold replaced by a space, and stripped."""
    return _FORBIDDEN.sub(" ", text).strip()


def has_forbidden(text: str) -> bool:
    return _FORBIDDEN.search(text) is not None


def is_blank(text: str) -> bool:
    """True when `text` has no visible character (as DESIGN section 2 counts blank)."""
    return all(unicodedata.category(char) in _BLANK_CATEGORIES for char in text.strip())


def first_paragraph(markdown: str) -> str:
    """The first paragraph of `markdown`, its lines joined by single spaces."""
    for paragraph in _PARAGRAPH_BREAK.split(markdown.replace("\r\n", "\n")):
        joined = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
        if joined:
            return joined
    return ""
