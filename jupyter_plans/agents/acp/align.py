"""Which entry of an agent's new plan is which step of its previous one (DESIGN section 10): the
lists are aligned on entries of equal content; between two aligned entries, where both lists
hold as many entries they pair in order, else they pair by their words (at least half of the
shorter one's words in common, the closest pair first). Pure: the mirror gives ids from it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

_WORD = re.compile(r"[^\W_]+(?:['’.^/-][^\W_]+)*")


def words(text: str) -> Counter[str]:
    """The words of `text`, lowercased, punctuation and emphasis marks left out."""
    return Counter(word.lower() for word in _WORD.findall(text))


def equal_content(old: list[str | None], new: list[str]) -> list[tuple[int, int]]:
    """The (old index, new index) pairs of a longest common subsequence of equal texts (an
    old None equals nothing)."""
    rows, cols = len(old), len(new)
    longest = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            longest[i][j] = (
                longest[i + 1][j + 1] + 1
                if old[i] is not None and old[i] == new[j]
                else max(longest[i + 1][j], longest[i][j + 1])
            )
    pairs, i, j = [], 0, 0
    while i < rows and j < cols:
        if old[i] is not None and old[i] == new[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif longest[i + 1][j] >= longest[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def by_words(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """Pairs of entries that share at least half of the shorter one's words, the closest
    first (the most words in common for their length, then the nearest places)."""
    counted_old, counted_new = [words(t) for t in old], [words(t) for t in new]
    candidates = []
    for i, a in enumerate(counted_old):
        for j, b in enumerate(counted_new):
            common = sum((a & b).values())
            shorter = min(sum(a.values()), sum(b.values()))
            if common and 2 * common >= shorter:
                union = sum(a.values()) + sum(b.values()) - common
                candidates.append((-common / union, abs(i - j), i, j))
    pairs, used_old, used_new = [], set(), set()
    for _, _, i, j in sorted(candidates):
        if i not in used_old and j not in used_new:
            pairs.append((i, j))
            used_old.add(i)
            used_new.add(j)
    return sorted(pairs, key=lambda pair: pair[1])


def in_gaps(
    old: list[str | None],
    new: list[str],
    anchors: list[tuple[int, int]],
    free_old: Callable[[int], bool],
    free_new: Callable[[int], bool],
    may_pair: Callable[[int, int], bool],
) -> list[tuple[int, int]]:
    """Pairs of the entries between two anchors (and before the first, after the last) that
    are still free: in order where both sides hold as many, else by their words; never a pair
    `may_pair` refuses."""
    pairs = []
    bounds = [(-1, -1), *sorted(anchors), (len(old), len(new))]
    for (i0, j0), (i1, j1) in zip(bounds, bounds[1:], strict=False):
        gap_old = [i for i in range(i0 + 1, i1) if free_old(i)]
        gap_new = [j for j in range(j0 + 1, j1) if free_new(j)]
        if not gap_old or not gap_new:
            continue
        if len(gap_old) == len(gap_new):
            found = list(zip(gap_old, gap_new, strict=True))
        else:
            found = [
                (gap_old[a], gap_new[b])
                for a, b in by_words([old[i] or "" for i in gap_old], [new[j] for j in gap_new])
            ]
        pairs.extend((i, j) for i, j in found if may_pair(i, j))
    return pairs
