"""PlanCard: the live plan card, an anywidget whose front end is built from labextension/src."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..card.guards import guard_data, guard_warning
from ..card.html import card_html
from ..card.view import MIME_TYPE, card_data
from ..errors import DecisionRefused, PlanStoreError
from ..plan.text import render_text
from ..plan.validation import quote
from ..plan.who import person
from ..session import PlanSession
from ..session.verbs import decisions, run
from ..store.following import follow

_STATIC = Path(__file__).parent.parent / "static"  # built by the labextension


_FRONT_END = {"_esm": _STATIC / "widget.js", "_css": _STATIC / "widget.css"}


def _built(cls: type) -> None:
    """The card's front end, read by anywidget when the class is made if it was built by then
    (pip install builds it); else read when a card is first made, or refused in one line. The
    package imports without it, so all but the card works in a checkout not yet built."""
    for key, path in _FRONT_END.items():
        if key not in cls.__dict__:
            if not path.exists():
                raise PlanStoreError(
                    f"the card's front end {path} is missing; build it with "
                    "`cd labextension && jlpm install && jlpm build` (pip install does this)"
                )
            setattr(cls, key, path.read_text(encoding="utf-8"))


class PlanCard(anywidget.AnyWidget):
    """A card that shows one session's plan, answers its proposal and the agent's question.

    The synced traits are the source of truth; buttons send one-off action messages that run
    the same decisions as the %plan magic.
    """

    if all(path.exists() for path in _FRONT_END.values()):
        _esm, _css = _FRONT_END["_esm"], _FRONT_END["_css"]

    snapshot = traitlets.Dict(help="The session's snapshot JSON (DESIGN section 5).").tag(sync=True)
    notebook = traitlets.Unicode(
        None, allow_none=True, help="The notebook's file name, shown in the header."
    ).tag(sync=True)
    changes = traitlets.Dict(
        None,
        allow_none=True,
        help="For a waiting re-proposal: steps added, removed and reworded since the last one.",
    ).tag(sync=True)
    question = traitlets.Unicode(
        None,
        allow_none=True,
        help="The question the agent asked with ask_user, while it waits for the person's answer.",
    ).tag(sync=True)
    notes = traitlets.Unicode(
        None,
        allow_none=True,
        help="The notes of the person's request for changes, until the agent's next proposal.",
    ).tag(sync=True)
    superseded_by = traitlets.Unicode(
        None,
        allow_none=True,
        help="The model id of the newer card of this session shown after this one: this card "
        "then keeps what it showed, and its buttons no longer act.",
    ).tag(sync=True)
    review = traitlets.Dict(
        None,
        allow_none=True,
        help="The agent's final review of every objective, while the plan is finished.",
    ).tag(sync=True)
    approved_by = traitlets.Dict(
        None,
        allow_none=True,
        help="Who approved the approved proposal, and where: {name, via}.",
    ).tag(sync=True)
    bridged = traitlets.Dict(
        None,
        allow_none=True,
        help="While an ACP agent's proposal waits: {approve}, the words of the agent's option "
        "that approving answers it with.",
    ).tag(sync=True)
    agent = traitlets.Dict(
        None,
        allow_none=True,
        help="While a bridge runs an ACP agent: its name, the mode it last announced and what "
        "edits do there, and whether a prompt of its client runs.",
    ).tag(sync=True)
    activity = traitlets.Unicode(
        None,
        allow_none=True,
        help="In plan mode with no proposal waiting: 'working' (the agent researches), 'chat' "
        "(it waits for the person's next message in the chat) or 'none' (no agent engaged).",
    ).tag(sync=True)
    sessions = traitlets.Int(
        1, help="How many sessions the plan file holds: the header names its session only then."
    ).tag(sync=True)
    error = traitlets.Unicode(
        None, allow_none=True, help="Why the card's last action was refused, in one line."
    ).tag(sync=True)
    ended = traitlets.Unicode(
        None,
        allow_none=True,
        help="Why this card no longer acts, once the extension that kept it was unloaded: it "
        "keeps what it shows, and says so.",
    ).tag(sync=True)
    guard_warning = traitlets.Unicode(
        None,
        allow_none=True,
        help="One line when an agent the plan's hooks are registered for would not run its "
        "guard (one whose trust in the hooks is not recorded): plan mode is not enforced there.",
    ).tag(sync=True)
    guards = traitlets.Dict(
        None,
        allow_none=True,
        help="In plan mode: {now, since, seen: [{agent, agent_version, point, at}], silent: "
        "[{agent, installed_at, doctor}]}, the guards heard from and when, and those installed "
        "for this plan that were not heard from since plan mode began (times in ms).",
    ).tag(sync=True)

    def __init__(
        self,
        session: PlanSession,
        notebook: str | None = None,
        *,
        notebook_path: Path | None = None,
        **kwargs: Any,
    ) -> None:
        _built(PlanCard)
        self.notebook_path = notebook_path
        self.session = session
        self._moves = session.store.moves
        super().__init__(
            **(data := card_data(session, notebook)),
            guard_warning=self._guard_warning(data["snapshot"]),
            guards=guard_data(session, data["snapshot"], notebook_path),
            **kwargs,
        )
        self.on_shown: list = []  # called with this card each time it is displayed
        # What the card showed when the cell that displayed it ended: it shows that again once
        # a newer card takes over, so each card of a notebook tells the plan at its own cell.
        self._in_cell = False
        self._at_cell_end: dict | None = None
        self.on_msg(self._on_action)

    def cell_ended(self) -> None:
        """The cell running now ended: a card it displayed keeps what it shows now, for later."""
        if self._in_cell:
            self._in_cell = False
            self._at_cell_end = self._shown_data()

    def supersede(self, newer: str) -> None:
        """A newer card of this session was shown (its model id `newer`): this one goes back to
        what it showed when its cell ended, and keeps it; its buttons no longer act."""
        with self.hold_sync():
            self._back_to_cell_end()
            self.superseded_by = newer

    def _back_to_cell_end(self) -> None:
        if self._at_cell_end is not None:
            for name, value in self._at_cell_end.items():
                setattr(self, name, value)
        self.error = None

    def _shown_data(self) -> dict:
        names = ("snapshot", "notebook", "changes", "question", "notes", "review", "approved_by")
        names += ("bridged", "agent", "activity", "sessions")
        return {name: getattr(self, name) for name in (*names, "guard_warning", "guards")}

    def refresh(self) -> None:
        """Bring the card up to date with the store (nothing is sent when nothing changed).
        A superseded card keeps what it showed: the notebook reads as the plan's story."""
        if self.superseded_by is not None:
            return
        data = card_data(self.session, self.notebook)
        if self.session.store.moves != self._moves:  # renamed: the card names the new notebook
            self._moves = self.session.store.moves
            self.notebook_path = follow.notebook_of(self.session.store, self.notebook_path)
            if self.notebook_path is not None:
                self.notebook = self.notebook_path.name
                data = card_data(self.session, self.notebook)
        with self.hold_sync():
            self.snapshot = data["snapshot"]
            self.changes = data["changes"]
            self.question = data["question"]
            self.notes = data["notes"]
            self.review = data["review"]
            self.approved_by = data["approved_by"]
            self.bridged = data["bridged"]
            self.agent = data["agent"]
            self.activity = data["activity"]
            self.sessions = data["sessions"]
            self.guard_warning = self._guard_warning(data["snapshot"])
            self.guards = guard_data(self.session, data["snapshot"], self.notebook_path)

    def refresh_guards(self) -> None:
        """Another process wrote to the plan and no cursor moved: perhaps a guard's heartbeat or
        a hook installed (neither is an event). What the card says of the guards is read again."""
        if self.superseded_by is None and self.ended is None:
            with self.hold_sync():
                self.guards = guard_data(self.session, self.snapshot, self.notebook_path)
                self.guard_warning = self._guard_warning(self.snapshot)

    def _guard_warning(self, snapshot: dict) -> str | None:
        session = self.session
        return guard_warning(session, snapshot, self.notebook_path, session.store.path)

    def end(self, why: str) -> None:
        """The extension that kept this card was unloaded: no card is live any more, so this
        one goes back to what it showed when its cell ended (as the saved notebook shows it),
        and stops."""
        with self.hold_sync():
            self._back_to_cell_end()
            self.ended = why

    def _on_action(self, _widget: Any, content: dict, _buffers: Any) -> None:
        action = content.get("action") if isinstance(content, dict) else None
        if self.ended is not None:
            if action != "seen":
                self.error = self.ended
            return
        if self.superseded_by is not None:
            if action != "seen":
                self.error = "this card was superseded by a newer card of the plan; use that one"
            return
        if action == "seen":  # the front end rendered this waiting proposal
            self.session.mark_shown(content.get("hash"))
            return
        session = self.session
        verbs = {
            # The person's verbs (session/verbs.py), each given the field it takes.
            **{verb: partial(_verb, session, verb, content) for verb in FIELDS},
            "edit": lambda by: decisions.edit_plan(session, content.get("change"), by=by),
            "answer": lambda by: session.answer(content.get("text", ""), by=by),
            "comment": lambda by: session.comment(
                content.get("step_id"), content.get("text", ""), by=by
            ),
            # Run a step's check now, in this kernel (DESIGN section 17): the person asked.
            "check": lambda by: session.run_check(content.get("step_id"), by=by),
        }
        if action not in verbs:
            self.error = f"the card sent an unknown action {quote(action)}"
            return
        try:
            # Who: the identity the JupyterLab page holds for its user, sent with the click;
            # where it has none, the kernel's person (as for %plan).
            page = content.get("by")
            if isinstance(page, dict) and isinstance(page.get("name"), str):
                # {name, display}: the display name is shown beside the name it records.
                page = {"name": page["name"], "display": page.get("display"), "via": "card"}
            elif not isinstance(page, str):
                page = None
            verbs[action](person(page, "card"))
        except (DecisionRefused, PlanStoreError) as refusal:
            self.error = str(refusal)
        else:
            self.error = None
        self.refresh()

    def __repr__(self) -> str:
        return render_text(self.snapshot, self.question, self.review)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        # Displayed: the person is shown this card's waiting proposal, text and hash, and this
        # card takes over from the earlier cards of its session.
        self.session.mark_shown(self.snapshot.get("pending_proposal_hash"))
        self._in_cell = True
        for listener in list(self.on_shown):
            listener(self)
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle, metadata = bundle if isinstance(bundle, tuple) else (bundle, None)
        bundle = dict(bundle)
        bundle["text/plain"] = repr(self)  # whole, where ipywidgets would cut it at 110 characters
        data = self._shown_data()
        # What the live card says of the agent and its guards at this moment is no part of the
        # saved card, nor how many sessions the file holds (the saved output stays as it was).
        for live in ("guard_warning", "guards", "agent", "activity", "sessions"):
            del data[live]
        bundle[MIME_TYPE] = data
        bundle["text/html"] = card_html(data)
        return (bundle, metadata) if metadata is not None else bundle


# The person's verbs on the card (session/verbs.py), and the field that holds each one's words.
FIELDS = {"on": None, "off": None, "approve": "hash", "revise": "notes"}
FIELDS |= {"resolve": "comment_id", "reopen": "comment_id"}


def _verb(session: PlanSession, verb: str, content: dict, by: dict) -> None:
    words = content.get(FIELDS[verb], "")
    if not isinstance(words, str):
        raise DecisionRefused(f"the card sent {FIELDS[verb]} {quote(words)}; it must be text")
    if verb == "approve" and not words:  # an approval binds the hash the card showed
        raise DecisionRefused("the card sent no proposal hash to approve; nothing was approved")
    run(session, verb, words, by)
