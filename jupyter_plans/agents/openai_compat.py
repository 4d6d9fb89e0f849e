"""The built-in agent: a chat-completions loop on any OpenAI-compatible endpoint, in a notebook.

A turn starts on the messages `session.deliver()` hands over (while a proposal waits, only
the person's words), has a fresh `turn_id`, and asks the model until it stops calling tools,
submits a proposal, asks the person a question, or the person leaves plan mode. Leaving is
noticed between streamed chunks and before each of the agent's own tools (a read of the
session's cursor, then of its new events); a plan tool call that comes later than that is
refused by the session as late. Schemas and results come from the shared `Toolbox`.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from traitlets import Bool, Float, Int, Unicode, default, observe, validate
from traitlets.config import Configurable

from ..plan.models import ToolResult
from ._io import (
    PLANNING,
    PROMPT,
    AgentError,
    Output,
    ask_in_kernel,
    assistant_message,
    make_client,
    notebook_tools,
    one_line,
    openai_module,
    streamed,
    whole,
)
from .context import context_block
from .toolbox import AgentTool, Toolbox, result_message

__all__ = ["AgentError", "OpenAIAgent"]

DIALECT = "openai_chat"
_LATE = "this call is late and was not applied"
# How a turn ended: what the person reads, and what the model hears of calls left unrun.
_ENDED = {
    "cancelled": "(Turn stopped: you left plan mode, which cancelled it.)",
    "proposal": "(The proposal waits for your decision: %plan approve, %plan revise NOTES, "
    "or %plan off.)",
    "late": "(Turn stopped: a newer turn of this session has started.)",
}
_NOT_RUN = {
    "cancelled": "not run: the person left plan mode, which cancelled this turn",
    "proposal": "not run: your proposal waits for the person's decision; end your turn",
    "question": "not run: your question waits for the person's answer; end your turn",
    "late": "not run: a newer turn of this session has started",
}


class OpenAIAgent(Configurable):
    """The built-in agent; its settings are read from ipython_config.py as c.OpenAIAgent.*"""

    _client: Any = None  # the SDK's client, made on the first request

    base_url = Unicode(
        help="The endpoint's base URL, e.g. http://localhost:11434/v1; empty means OpenAI's. "
        "Defaults to $OPENAI_BASE_URL."
    ).tag(config=True)
    model = Unicode(help="The model to ask. Defaults to $JUPYTER_PLANS_MODEL.").tag(config=True)
    api_key = Unicode(help="The endpoint's API key. Defaults to $OPENAI_API_KEY.").tag(config=True)
    planning = Bool(
        True, help="Offer the plan tools; without planning the agent sees no plan tools."
    ).tag(config=True)
    auto_run = Bool(
        False, help="Run tools that write or execute without asking the person each time."
    ).tag(config=True)
    stream = Bool(True, help="Stream the model's reply as it comes.").tag(config=True)
    max_steps = Int(20, help="The most requests one turn may make.").tag(config=True)
    temperature = Float(
        None, allow_none=True, help="Sampling temperature; None: the endpoint's."
    ).tag(config=True)
    timeout = Float(120.0, help="Seconds to wait for the endpoint.").tag(config=True)
    instructions = Unicode("", help="Text added to the system prompt.").tag(config=True)

    @default("base_url")
    def _base_url_default(self) -> str:
        return os.environ.get("OPENAI_BASE_URL", "")

    @default("model")
    def _model_default(self) -> str:
        return os.environ.get("JUPYTER_PLANS_MODEL", "")

    @default("api_key")
    def _api_key_default(self) -> str:
        return os.environ.get("OPENAI_API_KEY", "")

    @observe("base_url", "api_key", "model", "timeout")
    def _endpoint_changed(self, _change: Any) -> None:
        self.close()  # %config changed the endpoint: the next request makes a new client

    @validate("max_steps")
    def _check_steps(self, proposal) -> int:
        if not 1 <= proposal["value"] <= 1000:
            raise ValueError(f"max_steps is {proposal['value']}; it must be 1 to 1000")
        return proposal["value"]

    def __init__(
        self,
        session: Any,
        *,
        shell: Any = None,
        tools: Iterable[AgentTool] = (),
        output: Callable[[str], Any] | None = None,
        confirm: Callable[[AgentTool, dict], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if shell is None:
            from IPython import get_ipython

            shell = get_ipython()
        self.session = session
        own = notebook_tools(shell, session) if shell is not None else []
        self._ask = confirm or ask_in_kernel
        self.toolbox = Toolbox(session, [*own, *tools], confirm=self._confirm)
        self.out = Output(output)
        self.history: list[dict] = []  # the conversation, without the system messages
        self.turns = 0
        self._prefix = uuid.uuid4().hex[:8]
        self._resume = False  # the last turn failed before the model answered
        self._turn_id: str | None = None
        self._seen = 0  # the session's events read for cancellation, up to this seq
        self._stopped = False
        self._cancelled_at_prompt = False

    def close(self) -> None:
        """Close the connection to the endpoint; the next request opens a new one."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # Running.

    def run(self) -> str:
        """Run turns on the messages delivered until the agent waits, and say what it waits
        for: "decision", "answer" or "message". A turn that failed or ran out of steps is
        resumed once, as a new turn on the same conversation."""
        self._openai_client()  # a wrong setting is said before any message is taken
        resume, self._resume = self._resume, False
        while True:
            messages = self.session.deliver()
            if not messages and not resume:
                break
            resume = False
            self._turn(messages)
        return self.waiting_for()

    def waiting_for(self) -> str:
        if self.session.waiting_proposal() is not None:
            return "decision"
        if self.planning and self.session.open_question() is not None:
            return "answer"
        return "message"

    def _turn(self, messages: list) -> None:
        self.turns += 1
        self._turn_id = f"agent-{self._prefix}-{self.turns}"
        self._stopped = False
        self._seen = self.session.cursor()
        self.toolbox.planning = self.toolbox.ask_user = self.planning  # %config may change it
        self.history.extend(_framed(message) for message in messages)
        for _ in range(self.max_steps):
            calls = self._request()
            if not calls or self._run_calls(calls):
                return
        self._resume = True
        self.out.say(
            f"(The agent stopped after {self.max_steps} requests in this turn; "
            "run an empty %%agent cell to let it go on.)"
        )

    def _request(self) -> list[dict] | None:
        """Ask the model once and record its reply; its tool calls, or None when the turn
        ends here (no calls, a failed request, or the person left plan mode)."""
        system = PROMPT + (PLANNING if self.planning else "")
        if self.instructions:
            system += "\n" + self.instructions
        messages = [{"role": "system", "content": system}]
        if self.planning:
            messages.append({"role": "system", "content": context_block(self.session)})
        params: dict[str, Any] = {"model": self.model, "messages": messages + self.history}
        tools = self.toolbox.definitions(DIALECT)
        if tools:
            params["tools"] = tools
        if self.temperature is not None:
            params["temperature"] = self.temperature
        client = self._openai_client()
        try:
            if self.stream:
                text, calls = streamed(client, params, self.out.write, self._cancelled)
            else:
                text, calls = whole(client, params, self.out.write)
        except openai_module().APIError as error:
            self._resume = True
            self.out.end_line()
            sys.stderr.write(f"The agent's request failed: {one_line(error)}\n")  # one write
            return None
        for index, call in enumerate(calls):  # some local servers send no ids
            call["id"] = call["id"] or f"{self._turn_id}-{len(self.history)}-{index}"
        if self._stopped:  # its calls were cut short: none of them runs, none is recorded
            calls = []
        if text or calls:
            self.history.append(assistant_message(text, calls))
        if self._stopped:
            self.out.say(_ENDED["cancelled"])
            return None
        if not calls:
            self.out.end_line()
        return calls

    def _run_calls(self, calls: list[dict]) -> bool:
        """Run a reply's tool calls in order; True when the turn ends with them."""
        ended: str | None = None
        try:
            for call in calls:
                if ended is None and call["name"] in self.toolbox.tools and self._cancelled():
                    ended = "cancelled"
                if ended is not None:
                    self._answer(call, ToolResult(is_error=True, content=_NOT_RUN[ended]))
                    continue
                self._cancelled_at_prompt = False
                result = self.toolbox.call(
                    call["name"],
                    call["arguments"],
                    call_id=f"{self._turn_id}:{call['id']}",
                    turn_id=self._turn_id,
                )
                if self._cancelled_at_prompt:  # not the person's "no": they left plan mode
                    result = ToolResult(is_error=True, content=_NOT_RUN["cancelled"])
                self._answer(call, result)
                self.out.tool(call["name"], result, own=call["name"] in self.toolbox.tools)
                ended = self._ending(call["name"], result)
        finally:  # the endpoint wants an answer to every call, even after an interrupt
            answered = {m.get("tool_call_id") for m in self.history if m["role"] == "tool"}
            for call in calls:
                if call["id"] not in answered:
                    self._answer(call, ToolResult(is_error=True, content="not run: interrupted"))
        if ended == "question":
            question = self.session.open_question()
            asked = question.question if question is not None else "(no longer open)"
            self.out.say(f"(The agent asks you: {asked} Your next message answers it.)")
        elif ended is not None:
            self.out.say(_ENDED[ended])
        return ended is not None

    def _ending(self, name: str, result: ToolResult) -> str | None:
        """Why the turn ends after this call (a key of _ENDED), or None when it goes on."""
        if self._cancelled():
            return "cancelled"
        if not result.is_error and name == "plan_submit":
            return "proposal"
        if not result.is_error and name == "ask_user":
            return "question"
        if result.is_error and _LATE in result.content:
            return "late"
        return None

    def _answer(self, call: dict, result: ToolResult) -> None:
        self.history.append(result_message(DIALECT, call["id"], result))

    # Cancellation.

    def _cancelled(self) -> bool:
        """Whether the person left plan mode since the turn began (%plan off, from anywhere).

        The session marks the newest turn it has seen cancelled; before this turn's first
        plan tool call that is an older turn, so any turn_cancelled event counts, as does
        leaving plan mode without an approval.
        """
        if self._stopped:
            return True
        cursor = self.session.cursor()
        if cursor == self._seen:
            return False
        approved = False
        for event in self.session.events(after=self._seen):
            left = event.kind == "mode_changed" and event.data["mode"] == "default"
            if event.kind == "turn_cancelled" or (left and not approved):
                self._stopped = True
            approved = event.kind == "decision" and event.data["action"] == "approved"
            self._seen = event.seq
        return self._stopped

    def _confirm(self, tool: AgentTool, args: dict) -> bool:
        """Asked by the toolbox before a write or execute tool runs in default mode."""
        self.out.end_line()
        # The person may leave plan mode while the question is up: then nothing runs.
        allowed = not self._cancelled() and (self.auto_run or bool(self._ask(tool, args)))
        self._cancelled_at_prompt = self._cancelled()
        return allowed and not self._cancelled_at_prompt

    # The endpoint.

    def _openai_client(self) -> Any:
        if self._client is None:
            self._client = make_client(self.base_url, self.api_key, self.model, self.timeout)
        return self._client


def _framed(message: Any) -> dict:
    """A delivered message in the conversation: only the person's words speak as the user."""
    if message.source == "person":
        return {"role": "user", "content": message.text}
    label = "A notice from the plan session" if message.source == "notice" else "Automatic work"
    return {"role": "system", "content": f"{label} (not the person's words):\n{message.text}"}
