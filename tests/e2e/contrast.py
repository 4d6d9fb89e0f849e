"""Contrast as a person sees it (WCAG 2.2 AA), measured in the page from computed styles: each
text's colour, and each background under it up to the page, blended with their alpha and the
opacity of every element on the way, as the browser paints them. axe-core puts semi-transparent
colours in "needs review", so it proves nothing about them; this does.

- Text: 4.5:1, or 3:1 when large (24 px, or 18.66 px bold). Text of a disabled control is not
  held to it (WCAG: an inactive component has no contrast requirement).
- Non-text (3:1): icons; the border of a text field; a button's boundary, where it draws one
  (a border, or a background of its own); the filled part of a progress bar against the rest.
- Focus rings (3:1 against the background around them): every control reached by Tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The page's side: loaded once per call (it is small), so a reloaded page still has it.
_SCRIPT = (Path(__file__).with_name("contrast.js")).read_text(encoding="utf-8")
_CHECK = f"([roots]) => {{ {_SCRIPT}\n return measure(roots); }}"
_RING = f"([roots]) => {{ {_SCRIPT}\n return ring(roots); }}"


@dataclass(frozen=True)
class Measured:
    kind: str
    element: str
    what: str
    needed: float
    ratio: float
    fg: str
    bg: str

    @property
    def passes(self) -> bool:
        return self.kind == "inactive" or self.ratio >= self.needed

    def __str__(self) -> str:
        return (
            f"{self.kind} {self.element} {self.what!r}: {self.ratio}:1 ({self.fg} on {self.bg}),"
            f" needs {self.needed}:1"
        )


def measure(page, roots: str) -> list[Measured]:
    """Every text, icon, field, button boundary and progress bar drawn inside `roots` (a
    selector), with its contrast."""
    return [Measured(**found) for found in page.evaluate(_CHECK, [roots])]


def focus_rings(page, roots: str, start, most: int = 400) -> tuple[list[Measured], list[Measured]]:
    """Tab from `start` (a locator, focused first) through every control inside `roots`: the
    focus ring of each against the background around it, and what each control shows while
    it holds focus (a step's Comment shows only then)."""
    start.focus()
    rings, shown = [], []
    for _ in range(most):
        page.keyboard.press("Tab")
        found = page.evaluate(_RING, [roots])
        if found is None:
            break
        rings.append(Measured(**{"kind": "focus", **found}))
        shown += measure(page, ":focus")
    return rings, shown


def failures(measured: list[Measured]) -> list[str]:
    return [str(m) for m in measured if not m.passes]
