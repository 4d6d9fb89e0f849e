"""The %plan magic and the extension's life in a kernel: the store, the cards and the hooks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.display import display
from traitlets import Bool, Float, Unicode, validate

from ..errors import DecisionRefused, PlanStoreError
from ..session import PlanSession, PlanStore
from ..session.verbs import decisions
from ..store import locate as _locate
from ..store.following import follow
from . import say
from .checks import CHECK_VERBS
from .verbs import DECIDING, MAGIC, MAGIC_VERBS, MagicVerb

# What a card shown before `%unload_ext jupyter_plans` says from then on.
UNLOADED = (
    "This card stopped when the plan extension was unloaded (%unload_ext), so its buttons no "
    "longer act; run %load_ext jupyter_plans and %plan for a live card."
)
# Every verb of %plan, and the function that carries it out (verbs.py, checks.py).
VERBS: dict[str, MagicVerb] = {**MAGIC_VERBS, **CHECK_VERBS}

# What a session held from before %unload_ext says when it is used again.
UNLOADED_STORE = (
    "the plan extension was unloaded; after %load_ext jupyter_plans, call "
    "jupyter_plans.current_session() again for the notebook's session"
)


@magics_class
class PlanMagics(Magics):
    """The %plan magic; its settings are read from ipython_config.py as c.PlanMagics.*"""

    database = Unicode(
        None,
        allow_none=True,
        help="Where the plan is stored: a path or a SQLAlchemy URL, a template of "
        "{notebook_dir}, {notebook_stem}, {notebook_name}, {notebook_path} (from the Jupyter "
        "server's root), {home} and {user}. Unset: $JUPYTER_PLANS_DATABASE, else "
        "{notebook_dir}/{notebook_stem}.plans.sqlite beside the notebook.",
    ).tag(config=True)
    session_id = Unicode(
        None,
        allow_none=True,
        help="The plan session to use, a template of the same fields, e.g. {notebook_path} for "
        "a session per notebook in a shared database. Unset: $JUPYTER_PLANS_SESSION_ID, else "
        "the store's current session.",
    ).tag(config=True)
    poll_interval = Float(
        0.2,
        help="Seconds between checks for changes made by other processes where no notice "
        "comes (a network file system); on a local plan file the system's file notifications, "
        "and on PostgreSQL the server's NOTIFY, show another process's change as it happens.",
    ).tag(config=True)
    auto_display = Bool(
        True,
        help="Show the card when the extension loads (with what happened since this notebook "
        "last showed it) and when a proposal arrives.",
    ).tag(config=True)

    @validate("poll_interval")
    def _check_interval(self, proposal) -> float:
        if not 0.01 <= proposal["value"] <= 60:
            raise ValueError(f"poll_interval is {proposal['value']}; it must be 0.01 to 60 s")
        return proposal["value"]

    def __init__(self, shell=None, **kwargs) -> None:
        super().__init__(shell=shell, **kwargs)
        from .cells import CellLinker
        from .checks import CheckRunner
        from .watch import CardWatcher

        notebook = _locate.notebook_path(shell.user_ns) if shell is not None else None
        self._notebook = (0, notebook)  # (the store's moves when known, the notebook)
        self.where = _locate.resolve(
            notebook,
            self.database,
            self.session_id,
            names=("c.PlanMagics.database", "c.PlanMagics.session_id"),
        )
        self.store = follow.open_for(notebook, self.where.database, PlanStore, "jupyter_plans")
        self.session: PlanSession = self.store.session(self.where.session)
        self.watcher = CardWatcher(self.store, self.poll_interval)
        self.cells = CellLinker()  # the cells that did each step (DESIGN section 13)
        # Steps that check themselves (DESIGN section 17), in this kernel's namespace.
        self.checks = CheckRunner(shell, lambda: self.session)
        self._shown_proposal = self.session.waiting_proposal()
        self._show_after_cell = False
        self._told_on_load: tuple[str, str] | None = None  # what happened since, said at load
        self._seen: int | None = None  # the newest cursor recorded as shown, this session
        # Told the verb after %plan approve, revise or TASK succeeds (%%agent: its attached
        # agent goes on in that cell); see follow_decisions.
        self._followers: list[Callable[[str], None]] = []

    @property
    def notebook(self):
        """The notebook this kernel runs for; after a rename in Jupyter took its plan file
        along, the new one (the kernel's own idea of its path is fixed when it starts)."""
        if self.session.moved_notebook is not None:  # renamed with it in a shared database
            return Path(self.session.moved_notebook)
        moves, notebook = self._notebook
        if self.store.moves != moves:
            self._notebook = (self.store.moves, follow.notebook_of(self.store, notebook))
        return self._notebook[1]

    # The card.

    def card(self):
        from .widget import PlanCard

        card = PlanCard(
            self.session,
            self.notebook.name if self.notebook else None,
            notebook_path=self.notebook,
        )
        self.watcher.add(card)
        return card

    def show(self) -> None:
        card = self.card()
        display(card)
        self._remember_shown(card.snapshot.get("cursor", 0))

    @property
    def _notebook_key(self) -> str:
        return self.notebook.name if self.notebook is not None else ""

    def _remember_shown(self, cursor: int) -> None:
        """Keep the cursor the person has seen, for the next kernel of this notebook."""
        if self._seen is None or cursor > self._seen:
            from .resume import remember_seen

            # On the writer's thread: the cell does not wait for this reminder's fsync.
            self.cells.defer(remember_seen, self.session, self._notebook_key, cursor)
            self._seen = cursor

    def _remember_live_cards(self) -> None:
        cursor = self.watcher.newest_cursor(self.session.session_id)
        if cursor is not None:
            self._remember_shown(cursor)

    def before_cell(self, info=None) -> None:
        self.checks.before(info)
        self.cells.before(self.session, info, self.shell.execution_count)

    def after_cell(self, result=None) -> None:
        """Run the checks that came due and link the cell to the step in progress. With
        auto_display, show the card at the end of the cell that loaded the extension (after
        any %plan new in that cell), and at the end of a cell in which a proposal came. What
        the live cards show is remembered, for the next kernel of this notebook."""
        told, self._told_on_load = self._told_on_load, None
        if told is not None and told[0] == self.session.session_id:
            say(told[1])  # a %plan new in the loading cell left that session: not a word of it
        cursor, waiting = self.session.head()
        arrived = waiting is not None and waiting != self._shown_proposal
        if self.auto_display and (self._show_after_cell or arrived):
            self.show()
        self._show_after_cell = False
        self._shown_proposal = waiting
        self.watcher.cell_ended()
        self._remember_live_cards()
        count = getattr(result, "execution_count", None)
        self.checks.after(self.session, cursor, count, self.cells.defer)  # recorded after it
        self.cells.after(self.session, cursor, result)  # last: its link's thread starts now

    # The magic.

    @line_magic
    def plan(self, line: str) -> None:
        """Review and steer the agent's plan for this notebook.

        %plan                  show the plan card (it stays current by itself)
        %plan on               start plan mode: the agent researches and proposes
        %plan TASK...          start plan mode and give the agent TASK to plan
        %plan approve [HASH]   approve the proposal shown here last, while it waits (or
                               the waiting one by its full 64-hex HASH)
        %plan revise NOTES     ask for changes; NOTES go to the agent as your words,
                               with your open comments (NOTES may be left out then)
        %plan off              leave plan mode, dropping any waiting proposal
        %plan status           one line: mode, revision, progress, waiting proposal
        %plan history [N]      the last N events (default 10) in words
        %plan export DIR       write the journal (checkpoint, plan, decisions, progress) as
                               Markdown files into DIR
        %plan new              start a fresh plan session in the same file
        %plan comment STEP TEXT  your comment on a step (its id or 1-based position; -
                               for the plan as a whole): the agent reads it, it stays
                               across revisions, and it goes with revise and approve
        %plan comments         your comments, their status and the agent's replies
        %plan resolve CID      resolve comment CID (c1, c2, ...); reopen CID reopens it
        %plan check [STEP|all] run a step's check now (its id or 1-based position), or
                               every approved check of a completed step; one line each

        Verbs match without case (%plan ON); a hash never does. A refused verb prints one
        line on stderr and changes nothing.

        Examples:
            %plan Clean sales.csv and fit a baseline model of weekly revenue
            %plan approve
            %plan revise split the cleaning step; keep the outliers
        """
        words = line.strip()
        if not words:
            self.show()
            return
        verb, _, rest = words.partition(" ")
        verb, rest = verb.lower(), rest.strip()
        carry_out = VERBS.get(verb)
        try:
            if carry_out is not None:
                switched = carry_out(self.session, rest)
                if switched is not None:
                    self.switch_session(switched)
            else:
                decisions.start_planning(self.session, words, by=MAGIC())
                say(f"Plan mode on; the agent has your task: {words}")
        except (DecisionRefused, PlanStoreError) as refusal:
            say(f"%plan {verb}: {refusal}", err=True)
            return
        if verb in DECIDING or carry_out is None:
            for follower in list(self._followers):
                follower(verb if carry_out is not None else "task")

    def follow_decisions(self, follower: Callable[[str], None]) -> Callable[[], None]:
        """Tell `follower` the verb ("approve", "revise", "task") after each decision of the
        person's made here succeeds; the function returned stops it."""
        self._followers.append(follower)

        def unfollow() -> None:
            if follower in self._followers:
                self._followers.remove(follower)

        return unfollow

    def switch_session(self, session: PlanSession) -> None:
        """Go on with `session` (%plan new): nothing of it is shown here yet."""
        self.session = session
        self._shown_proposal = None
        self._seen = None

    # Life cycle.

    def start(self) -> None:
        self._show_after_cell = True
        self.shell.events.register("pre_run_cell", self.before_cell)
        self.shell.events.register("post_run_cell", self.after_cell)
        if self.auto_display:  # told, with the card, at the end of the cell
            from .resume import since_last_seen

            told = since_last_seen(self.session, self._notebook_key)
            self._told_on_load = (self.session.session_id, told) if told else None

    def stop(self) -> None:
        try:
            self._remember_live_cards()
        except PlanStoreError:
            pass  # a store that cannot be written now loses only the reminder
        self.shell.events.unregister("pre_run_cell", self.before_cell)
        self.shell.events.unregister("post_run_cell", self.after_cell)
        self.cells.stop()
        self.watcher.stop(UNLOADED)
        self.store.close(UNLOADED_STORE)
