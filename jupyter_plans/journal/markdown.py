"""Markdown for the journal: model and person text made inert, so it reads as the words it is.

Text written by an agent (or pasted by a person) must not become structure in a Markdown view:
no heading, list, quote, table cell, link (bare URLs and addresses included), image, HTML,
entity, code span, math or emphasis. `inert` backslash-escapes every character that can start
such a construct (CommonMark lets any ASCII punctuation be escaped, and GitHub's Markdown
follows it) and folds the text onto one line, so it cannot end the line it was put in either.
"""

from __future__ import annotations

import re

# Anywhere in a line: emphasis, code, links and images, HTML and autolinks, entities, table
# cells, strikethrough, math, mentions and e-mail links, and the "#" that could close a heading.
_INLINE = re.compile(r"([\\`*_\[\]<>&|~$#@^])")
# Bare URLs ("https://", "www.") that GitHub would make links of.
_BARE_LINK = re.compile(r"(?i)(?<=[a-z0-9])(:(?=//))|(?<![a-z0-9])(www)(\.)")
# At the start of a line: lists (- + and "1." or "1)"), quotes, setext underlines, and the
# characters above that also start blocks there.
_LEADING = re.compile(r"^([-+=>]|\d+(?=[.)](?:\s|$)))")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# Bidirectional overrides and isolates could make a line read otherwise than it is stored.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def inert(text: str | None) -> str:
    """`text` as literal Markdown on one line: shown as written, never read as structure."""
    if not text:
        return ""
    text = _BIDI.sub("\ufffd", _CONTROL.sub(" ", text))
    text = " ".join(text.split())  # no line breaks, no indentation that could make code
    text = _INLINE.sub(r"\\\1", text)
    text = _BARE_LINK.sub(lambda m: "\\:" if m.group(1) else m.group(2) + "\\.", text)
    match = _LEADING.match(text)
    if match:
        if match.group(1)[0].isdigit():
            end = match.end()  # "1." -> "1\."
            text = text[:end] + "\\" + text[end:]
        else:
            text = "\\" + text
    return text


def clipped(text: str, limit: int = 300) -> str:
    """Long text (a person's message) cut to `limit` characters, before it is made inert."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
