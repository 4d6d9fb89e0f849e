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

from . import align
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

    Ids are `e1`, `e2`, ... by first appearance of a content; an entry keeps the id of the
    previous step it is aligned with (`align`: equal content, else a rewording between
    aligned entries), else the id its content was given before. An entry whose wording
    changed at the same place in the list as it started or ended being `in_progress` keeps
    the id it had there, and the step keeps its last wording outside `in_progress`. Seeded
    from the stored plan, so that a bridge started again keeps the ids it gave before.
    """

    def __init__(self, stored_steps: list[dict] | None = None) -> None:
        # The ids given to each content, the least recently seen first (at most REMEMBERED).
        self._ids: OrderedDict[str, list[str]] = OrderedDict()
        self._count = 0
        self.latest: list[dict] | None = None  # the steps of the agent's latest plan
        # Whether `latest` is a plan the agent sent (a plan update), not one a proposal's
        # Markdown made: a later proposal takes its own list, never an earlier one's.
        self.sent = False
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

    def adapt(self, entries: list[Any], sent: bool = True) -> tuple[list[dict], list[str]]:
        """The steps for `entries` (the `entries` of a plan update, as sent; `sent` False for
        a proposal's list items) and the sentences that name each adaptation made to fit the
        plan's bounds."""
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
        ids = self._ids_for(texts, active_forms)
        steps: list[dict] = []
        in_progress = False
        for number, (description, status) in enumerate(texts, start=1):
            step_id = ids[number - 1]
            if number - 1 in active_forms:
                before = self._previous[number - 1]
                if status == "in_progress":
                    description = before["description"]  # its wording outside in_progress
                elif step_id not in self._given(description):
                    self._given(description).append(step_id)
            elif status == "in_progress":
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
        self.sent = sent
        self._forget()
        return steps, notes

    def _ids_for(self, texts: list[tuple[str, str]], active_forms: dict[int, str]) -> list[str]:
        """Each entry's id: the place's where only its active form changed; the previous
        step's it is aligned with on equal content; the one its content was given before;
        the previous step's it pairs with between aligned entries (a rewording, whose words
        are then remembered with that id); else a new one. A new plan's first entry, started
        in progress where an earlier plan's step was, pairs with none."""
        # A step of the previous plan the mirror did not name (a person's edit, another
        # agent's plan) is no step of the agent's to align with.
        before = [
            str(s.get("description")) if _MIRROR_ID.fullmatch(str(s.get("id"))) else None
            for s in self._previous
        ]
        now = [description for description, _ in texts]
        ids: dict[int, str] = dict(active_forms)
        claimed = set(ids.values())
        anchors = [(i, j) for i, j in align.equal_content(before, now) if j not in ids]
        anchors = [(i, j) for i, j in anchors if self._previous[i]["id"] not in claimed]
        for i, j in anchors:
            ids[j] = self._previous[i]["id"]
            claimed.add(ids[j])
        for j, description in enumerate(now):
            known = next((k for k in self._given(description) if k not in claimed), None)
            if j not in ids and known is not None:
                ids[j] = known
                claimed.add(known)
        new_plan = bool(before) and 0 not in ids and bool(texts) and texts[0][1] == "in_progress"
        pairs = align.in_gaps(
            before,
            now,
            [*anchors, *((j, j) for j in active_forms)],
            lambda i: before[i] is not None and self._previous[i]["id"] not in claimed,
            lambda j: j not in ids and not (j == 0 and new_plan),
            lambda i, j: (
                self._previous[i].get("status") != "completed" or texts[j][1] == "completed"
            ),
        )
        for i, j in pairs:
            ids[j] = self._previous[i]["id"]
            claimed.add(ids[j])
            if ids[j] not in self._given(now[j]):
                self._given(now[j]).append(ids[j])
        for j, description in enumerate(now):
            if j not in ids:
                ids[j] = self._id_for(description, claimed)
                claimed.add(ids[j])
        return [ids[j] for j in range(len(now))]

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
        """The agent's latest plan (None where it sent none, or the latest steps were made from
        an earlier proposal's list), where a step's words are the active form of one of `items`
        (a list of the agent's own plan text: "Loading sales.csv" for "Load sales.csv"), with
        that item's words; the step keeps its id, and its new wording is remembered."""
        if self.latest is None or not self.sent:
            return None
        steps, taken = [], set()
        for stored in self.latest:
            item = _item_for(stored["description"], items, taken)
            if item is not None and stored["description"] not in items:
                taken.add(item)
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


def _item_for(description: str, items: list[str], taken: set[str]) -> str | None:
    """The list item whose active form `description` is, one of as many words first; never
    an item another step took."""
    found = [i for i in items if i not in taken and active_form_of(description, i)]
    same = [i for i in found if len(i.split()) == len(description.split())]
    return (same or found or [None])[0]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + ELLIPSIS
