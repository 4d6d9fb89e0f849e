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
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLANK_CATEGORIES = {"Zs", "Zl", "Zp", "Cf"}
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_HEADING = re.compile(r" {0,3}#{1,6}(\s|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*)")


def cut(text: str, limit: int, mark: str = ELLIPSIS) -> str:
    """`text` if it fits in `limit` UTF-8 bytes, else its longest start that fits together
    with `mark`, cut at a character boundary, followed by `mark`."""
    data = text.encode()
    if len(data) <= limit:
        return text
    room = limit - len(mark.encode())
    return data[:room].decode(errors="ignore") + mark


def well_formed(text: str) -> str:
    """`text` with each lone surrogate (JavaScript writes one when it cuts a string inside an
    emoji) made U+FFFD, so it can be encoded and stored."""
    return _SURROGATE.sub("\ufffd", text)


def clean(text: str) -> str:
    """`text` with each character a plan cannot hold replaced by a space, and stripped."""
    return _FORBIDDEN.sub(" ", text).strip()


def has_forbidden(text: str) -> bool:
    return _FORBIDDEN.search(text) is not None


def is_blank(text: str) -> bool:
    """True when `text` has no visible character (as DESIGN section 2 counts blank)."""
    return all(unicodedata.category(char) in _BLANK_CATEGORIES for char in text.strip())


def first_paragraph(markdown: str) -> str:
    """The first paragraph of `markdown` that is not a heading, its lines joined by single
    spaces (a heading line ends a paragraph, as in Markdown)."""
    lines = ["" if _HEADING.match(line) else line for line in markdown.splitlines()]
    for paragraph in _PARAGRAPH_BREAK.split("\n".join(lines)):
        joined = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
        if joined:
            return joined
    return ""


def list_items(markdown: str) -> list[str]:
    """The texts of the top-level list items of `markdown` (`- `, `* `, `+ `, `1. `, `1) `),
    each its first line, a task box (`[ ]`, `[x]`) left out; none inside a code fence."""
    items, fence = [], None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark
            elif mark.startswith(fence):
                fence = None
            continue
        item = None if fence is not None else _ITEM.match(line)
        if item and item.group(1).strip():
            items.append(item.group(1).strip())
    return items


_EMPHASIS = re.compile(r"[*_`]+")


def _words(text: str) -> list[str]:
    """`text` as lowercase words, emphasis marks and a closing full stop left out."""
    return _EMPHASIS.sub("", text).lower().rstrip(" .").split()


def active_form_of(active: str, item: str) -> bool:
    """True when `active` is `item` in its active form: its first word the -ing form of the
    item's first ("Loading sales.csv" for "Load sales.csv", "Fitting" for "Fit", "Writing"
    for "Write"), every other word the item's own or its -ing form, in order. The item may go
    on past them ("Loading sales.csv" for "Load sales.csv and inspect the columns"), where the
    active form says more than its verb."""
    said, plain = _words(active), _words(item)
    if not said or len(said) > len(plain) or (len(said) == 1 and len(plain) > 1):
        return False
    if not _gerund_of(said[0], plain[0]):
        return False
    pairs = zip(said[1:], plain[1 : len(said)], strict=True)
    return all(a == b or _gerund_of(a, b) for a, b in pairs)


def _gerund_of(gerund: str, verb: str) -> bool:
    if not gerund.endswith("ing") or len(gerund) < 5:
        return False
    stem = gerund[:-3]
    forms = {stem, stem + "e"}
    if len(stem) > 2 and stem[-1] == stem[-2]:
        forms.add(stem[:-1])  # fitting, plotting
    if stem.endswith("y"):
        forms.add(stem[:-1] + "ie")  # lying
    return verb in forms
