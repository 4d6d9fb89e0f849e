"""The agent's ACP plan as the session's steps: one step an entry, in order, with ids that stay
while an entry's content does (and while only its wording changes as it starts or ends being in
progress: agents send the entry being worked on in an "active form"), adapted to the plan's
bounds rather than refused.

Each adaptation is described in a sentence that the recorded event carries, so the card's
reader can tell what the agent sent from what the plan could hold.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from .text import ELLIPSIS, active_form_of, clean, cut, has_forbidden, is_blank, well_formed

MAX_STEPS = 32
REMEMBERED = 4096  # contents whose ids the mirror keeps
MAX_DESCRIPTION_BYTES = 240
STATUSES = ("pending", "in_progress", "completed")
NO_TEXT = "(no text)"
_MIRROR_ID = re.compile(r"e([1-9][0-9]{0,8})")


def step(step_id: str, description: str, status: str) -> dict:
    """A stored step, with the optional fields as a snapshot shows them."""
    return {
        "id": step_id,
        "description": description,
        "status": status,
        "acceptance": None,
        "depends_on": [],
        "evidence": None,
        "check": None,
    }


class PlanMirror:
    """Turns each complete list of plan entries into steps (see `adapt`).

    Ids are `e1`, `e2`, ... by first appearance of a content; the k-th entry with a given
    content keeps the k-th id that content was given. An entry whose wording changed at the
    same place in the list as it started or ended being `in_progress` keeps the id it had
    there, and the step keeps its last wording outside `in_progress`. Seeded from the stored
    plan, so that a bridge started again keeps the ids it gave before.
    """

    def __init__(self, stored_steps: list[dict] | None = None) -> None:
        # The ids given to each content, the least recently seen first (at most REMEMBERED).
        self._ids: OrderedDict[str, list[str]] = OrderedDict()
        self._count = 0
        self.latest: list[dict] | None = None  # the steps of the agent's latest plan
        self._previous: list[dict] = []  # the steps stored last, the stored plan's at first
        self.seed(stored_steps)

    def seed(self, stored_steps: list[dict] | None) -> None:
        """Start from the stored plan's steps: their ids are kept for their contents."""
        self._previous = list(stored_steps or [])
        for stored in self._previous:
            found = _MIRROR_ID.fullmatch(str(stored.get("id", "")))
            if found and stored["id"] not in self._given(stored["description"]):
                self._given(stored["description"]).append(stored["id"])
                self._count = max(self._count, int(found.group(1)))

    def adapt(self, entries: list[Any]) -> tuple[list[dict], list[str]]:
        """The steps for `entries` (the `entries` of a plan update, as sent) and the
        sentences that name each adaptation made to fit the plan's bounds."""
        notes: list[str] = []
        kept = entries[:MAX_STEPS]
        if len(entries) > MAX_STEPS:
            first, last = MAX_STEPS + 1, len(entries)
            which = f"entry {first}" if first == last else f"entries {first} to {last}"
            notes.append(f"{which} left out: a plan holds at most {MAX_STEPS} steps")
        texts = []
        for number, entry in enumerate(kept, start=1):
            description = self._description(number, entry, notes)
            status = entry.get("status") if isinstance(entry, dict) else None
            if status not in STATUSES:
                notes.append(
                    f"entry {number} has status {_shown(status)}, which is not pending, "
                    "in_progress or completed: stored pending"
                )
                status = "pending"
            texts.append((description, status))
        active_forms = self._active_forms(texts)
        claimed = set(active_forms.values())
        steps: list[dict] = []
        in_progress = False
        for number, (description, status) in enumerate(texts, start=1):
            step_id = active_forms.get(number - 1)
            if step_id is not None:
                before = self._previous[number - 1]
                if status == "in_progress":
                    description = before["description"]  # its wording outside in_progress
                elif step_id not in self._given(description):
                    self._given(description).append(step_id)
            else:
                step_id = self._id_for(description, claimed)
                claimed.add(step_id)
                if status == "in_progress":
                    description = self._plain_wording(number - 1, step_id, description)
            if status == "in_progress":
                if in_progress:
                    notes.append(
                        f"entry {number} ({step_id}) is a second in_progress entry: stored "
                        "pending, as a plan has at most one step in progress"
                    )
                    status = "pending"
                in_progress = True
            steps.append(step(step_id, description, status))
        self.latest = self._previous = steps
        self._forget()
        return steps, notes

    def _plain_wording(self, index: int, step_id: str, description: str) -> str:
        """The wording the step at `index` had, where `description` is its active form (the
        proposal took the plan text's words for it)."""
        if index < len(self._previous):
            before = self._previous[index]
            if before["id"] == step_id and active_form_of(description, before["description"]):
                return before["description"]
        return description

    def _given(self, description: str) -> list[str]:
        """The ids given to `description`, now its most recently seen."""
        ids = self._ids.setdefault(description, [])
        self._ids.move_to_end(description)
        return ids

    def _forget(self) -> None:
        """Keep the ids of the REMEMBERED most recently seen contents (those of the latest
        plan among them): an agent that renames its steps all day does not grow the bridge.
        A content forgotten and sent again gets a new id."""
        while len(self._ids) > REMEMBERED:
            self._ids.popitem(last=False)

    def _active_forms(self, texts: list[tuple[str, str]]) -> dict[int, str]:
        """The places whose entry only changed its wording as it started (from pending) or
        ended being in progress there, with the id of the step it was: a new wording in place
        of one that is gone from the list, while every other place of the list holds what it
        held. A new plan (its first entry in progress where a completed step was, or other
        entries changed too) is no active form: its entries take their own words and new ids."""
        before_texts = {step.get("description") for step in self._previous}
        now_texts = {description for description, _ in texts}
        overlap = min(len(texts), len(self._previous))
        found = {}
        for index, (description, status) in enumerate(texts[:overlap]):
            before = self._previous[index]
            was = before.get("status")
            started = status == "in_progress" and was == "pending"
            ended = was == "in_progress" and status != "in_progress"
            if (
                (started or ended)
                and description not in before_texts
                and before.get("description") not in now_texts
            ):
                found[index] = before["id"]
        unchanged = all(
            texts[index][0] == self._previous[index].get("description")
            for index in range(overlap)
            if index not in found
        )
        return found if unchanged else {}

    def take_words(self, items: list[str]) -> list[dict] | None:
        """The latest steps, where a step's words are the active form of one of `items` (a
        list of the agent's own plan text: "Loading sales.csv" for "Load sales.csv"), with
        that item's words; the step keeps its id, and its new wording is remembered."""
        if self.latest is None:
            return None
        steps = []
        for stored in self.latest:
            item = next(
                (item for item in items if active_form_of(stored["description"], item)), None
            )
            if item is not None and stored["description"] not in items:
                item = cut(clean(item), MAX_DESCRIPTION_BYTES)
                if not is_blank(item):
                    if stored["id"] not in self._given(item):
                        self._given(item).append(stored["id"])
                    stored = {**stored, "description": item}
            steps.append(stored)
        self.latest = self._previous = steps
        return steps

    def _description(self, number: int, entry: Any, notes: list[str]) -> str:
        content = entry.get("content") if isinstance(entry, dict) else None
        if not isinstance(content, str):
            notes.append(f"entry {number} has no text content: stored as {NO_TEXT!r}")
            return NO_TEXT
        text = well_formed(content)
        if text != content:
            notes.append(f"entry {number}: a lone surrogate, which no text holds, made U+FFFD")
        if has_forbidden(text):
            text = clean(text)
            notes.append(
                f"entry {number}: control, bidirectional or separator characters, which a "
                "step cannot hold, replaced by spaces"
            )
        if is_blank(text):
            notes.append(f"entry {number} has blank content: stored as {NO_TEXT!r}")
            return NO_TEXT
        shortened = cut(text, MAX_DESCRIPTION_BYTES)
        if shortened != text:
            notes.append(
                f"entry {number}: content of {len(text.encode())} bytes cut at a character "
                f"boundary to {MAX_DESCRIPTION_BYTES} bytes, ending with {ELLIPSIS}"
            )
        return shortened

    def _id_for(self, description: str, claimed: set[str]) -> str:
        """The first id given to `description` that this list has not taken yet, else a new
        one."""
        ids = self._given(description)
        for step_id in ids:
            if step_id not in claimed:
                return step_id
        self._count += 1
        ids.append(f"e{self._count}")
        return ids[-1]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + ELLIPSIS
