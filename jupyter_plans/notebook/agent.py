"""The %%agent magic: talk to the built-in agent in a notebook, beside the plan card. It asks
%plan (`PlanMagics`) for the notebook's session and to be told of the person's decisions."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, line_cell_magic, magics_class

from ..errors import DecisionRefused, PlanStoreError
from ..plan.who import person
from . import say

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..agents.openai_compat import OpenAIAgent
    from .magics import PlanMagics


@magics_class
class AgentMagics(Magics):
    """%%agent and %agent; the agent's settings are read from ipython_config.py (c.OpenAIAgent)."""

    def __init__(self, shell: InteractiveShell, plan: PlanMagics, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.plan = plan
        self.current: OpenAIAgent | None = None  # attached by the first %%agent cell
        self._unfollow: Callable[[], None] | None = None  # stops following the decisions

    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> None:
        """Send your message to the agent; it works until it waits.

        %%agent     the rest of the cell is your message
        %agent MSG  a one-line message
        %agent      no message: let the agent go on (after a failed request, or when it
                    stopped at max_steps), or take what is queued for it

        The reply streams into the cell's output while the plan card shows the plan. The
        agent stops when it waits for your decision on a proposal (%plan approve, %plan
        revise NOTES, %plan off), for your answer to its question (your next message
        answers it), or for your next message. After %plan approve, %plan revise or
        %plan TASK in this notebook it goes on by itself, in that cell's output.

        Before each action that changes the world (run_code) it asks you, unless
        c.OpenAIAgent.auto_run is True; approving a plan does not change that.

        Example:
            %%agent
            Clean sales.csv and fit a baseline model of weekly revenue.
        """
        if cell is not None and line.strip():
            say(f"%%agent takes nothing on its line; found {line.strip()!r}", err=True)
            return
        text = (line if cell is None else cell).strip()
        from ..agents.openai_compat import AgentError  # the agent loads with the first %%agent

        try:
            agent = self._attach()
            if text:
                agent.session.queue_message(text, "person", by=person(None, "magic"))
            agent.run()
        except (AgentError, DecisionRefused, PlanStoreError) as problem:
            say(f"%agent: {problem}", err=True)

    def _attach(self) -> OpenAIAgent:
        """The agent of the notebook's current plan session (a new one after %plan new)."""
        from ..agents.openai_compat import OpenAIAgent

        session = self.plan.session
        if self.current is not None and self.current.session is not session:
            self._detach()
        if self.current is None:
            self.current = OpenAIAgent(session, shell=self.shell, config=self.shell.config)
            self.shell.configurables.append(self.current)  # so %config OpenAIAgent.x = y works
        return self.current

    def _detach(self) -> None:
        if self.current is not None:
            self.current.close()
            if self.current in self.shell.configurables:
                self.shell.configurables.remove(self.current)
            self.current = None

    def after_decision(self, verb: str) -> None:
        """After %plan approve or revise, the attached agent takes its next turn here."""
        agent = self.current
        if agent is None or agent.session is not self.plan.session:
            return
        from ..agents.openai_compat import AgentError

        try:
            agent.run()
        except (AgentError, PlanStoreError) as problem:
            say(f"%%agent: {problem}", err=True)

    # Life cycle.

    def start(self) -> None:
        self._unfollow = self.plan.follow_decisions(self.after_decision)

    def stop(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
        self._detach()
