"""The scripted agent: replays a recorded conversation through the session's own tool dispatch.

The script format is described in `_script.py`; the shipped scripts are in `scripts/`. Plan
tools go through `session.call_tool` with `turn_id` = the turn's id and `call_id` =
`{script name}-{turn id}-{action number}`; the agent's own tools are checked by
`policy.guard_refusal` against the session's mode and waiting proposal at that moment.

A turn starts only on a message the agent takes with `session.deliver()`, so the delivery
filter applies: while a proposal waits only the person's words come through. A turn's `on`
says which messages start it: `any` (the default), `person` (the person's words, notes on a
proposal included), `approval` (the notice queued by approve) or `changes` (the notes queued
by revise). Messages are matched against the remaining turns in order, and turns passed over
are noted as skipped (a teacher who approves at once skips the turn that answers notes).
Messages that start nothing are noted, and the agent keeps waiting.

`wait: decision` ends the turn until no proposal waits any more (approve, revise, off or on);
`wait: message` pauses the turn until the person's message comes, then the turn goes on.

Once the person leaves plan mode, the turn they cancelled ends at its next call: the session
refuses a plan tool as late, and the agent refuses its own tools for the same reason (the
`turn_cancelled` event). The agent then waits for the next turn's message. The session knows
a turn from its first plan tool call, so `%plan off` before that cancels nothing of it. A
recording does not ask before each action that changes the world, as a live agent in default
mode would: the script is the consent being replayed. Call ids are fixed, so a script is
replayed in a session of its own (`%plan new`); the agent says so when it finds its calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..plan.policy import guard_refusal
from ..session import PlanSession
from ._script import Call, Reply, Say, Script, Tool, Turn, Update, Wait, load_script, parse_script

_DECISIONS = {
    "approved": "you approved the proposal",
    "changes_requested": "you asked for changes",
    "left": "you left plan mode without approving",
    "dropped": "the proposal was dropped when plan mode was entered again",
}
_WANTED = {
    "any": "the next message",
    "person": "your next message",
    "approval": "your approval",
    "changes": "your notes on the proposal",
}
_LATE = "this call is late and was not applied"
_CANCELLED = "you left plan mode, which cancelled it"


@dataclass(frozen=True)
class Entry:
    """One line of a transcript. `name` is the tool called, or the kind of message received."""

    kind: str  # message, say, call, tool, wait, decision, note
    text: str
    name: str | None = None
    is_error: bool = False
    args: str = ""

    def __str__(self) -> str:
        if self.kind == "message":
            first, *rest = self.text.splitlines() or [""]
            more = f" (+{len(rest)} more lines)" if rest else ""
            return f"{_speaker(self.name)}: {first}{more}"
        if self.kind == "say":
            return f"agent: {_one_line(self.text)}"
        if self.kind in ("call", "tool"):
            verdict = "refused" if self.is_error else "accepted" if self.kind == "call" else "ok"
            return f"agent calls {self.name}{self.args} -> {verdict}: {_one_line(self.text)}"
        if self.kind == "wait":
            return f"agent waits for your {self.text}"
        if self.kind == "decision":
            return _DECISIONS.get(self.text, "the proposal no longer waits")
        return self.text


class Transcript(list):
    """Entries in order; its text, one line per entry, is the same to the byte on every run."""

    def __str__(self) -> str:
        return "\n".join(str(entry) for entry in self)

    @property
    def text(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


class ScriptedAgent:
    """Plays a script against a session, one turn per message it is given."""

    def __init__(self, session: PlanSession, script: Script | dict, *, name: str = "scripted"):
        self.session = session
        self.script = script if isinstance(script, Script) else parse_script(script)
        self.name = name
        self.transcript = Transcript()
        self._turn = 0  # the turn being played, or the next one to start
        self._action = 0  # the next action of that turn
        self._in_turn = False
        self._waiting: str | None = "message"
        self._decision_after = 0  # the cursor when the agent began to wait for a decision
        self._checked = False
        # What the agent knows from the session's events, folded up to _seen.
        self._seen = 0
        self._kinds: dict[int, str] = {}  # message_id -> person, changes, approval, ...
        self._answer: str | None = None  # a decision whose message may be queued next
        self._decisions: list[tuple[int, str]] = []
        self._cancelled: set[str] = set()

    @classmethod
    def load(cls, name_or_path: str | Path, session: PlanSession, **kw: Any) -> ScriptedAgent:
        """An agent for a shipped script (by name) or a .json/.yaml/.yml script file."""
        return cls(session, load_script(name_or_path), **kw)

    def __repr__(self) -> str:
        turns = len(self.script.turns)
        where = "done" if self.done else f"waits for {self._waiting}"
        return (
            f"<ScriptedAgent {self.name!r} playing {self.script.name!r}: "
            f"turn {min(self._turn + 1, turns)} of {turns}, {where}>"
        )

    @property
    def done(self) -> bool:
        return self._waiting is None

    @property
    def waiting_for(self) -> str | None:
        """What the agent waited for when it last ran: "decision", "message", or None if done."""
        return self._waiting

    def step(self) -> Transcript:
        """Start or resume at most one turn; the entries this added."""
        return self.run(max_turns=1)

    def run(self, max_turns: int | None = None) -> Transcript:
        """Play until a wait not yet satisfied, or the end; the entries this added.

        `max_turns` bounds how many turns are started or resumed.
        """
        first, played = len(self.transcript), 0
        if not self._checked:
            self._checked = True
            self._check_fresh()
        while not self.done:
            if self._waiting == "decision":
                if not self._decision_made():
                    break
            elif max_turns is not None and played >= max_turns:
                break
            elif not self._take_messages():
                break
            else:
                played += 1
                self._play()
        return Transcript(self.transcript[first:])

    def _check_fresh(self) -> None:
        # Call ids are fixed so that runs are identical; in a session that already holds
        # them, the session would answer with the recorded results and change nothing.
        prefix = f"{self.script.name}-"
        if any(str(e.data.get("call_id") or "").startswith(prefix) for e in self.session.events()):
            self._note(
                f"agent finds calls of script {self.script.name!r} already in this session; "
                "they will not be made again: replay the script in a new session (%plan new)"
            )

    # Waiting.

    def _decision_made(self) -> bool:
        if self.session.snapshot().pending_proposal_hash is not None:
            return False
        self._catch_up()
        made = [action for seq, action in self._decisions if seq > self._decision_after]
        self._log("decision", made[0] if made else "none")
        self._end_turn("decided")
        return True

    def _take_messages(self) -> bool:
        """Take what the session delivers; True when it starts or resumes a turn."""
        messages = self.session.deliver()
        if not messages:
            return False
        self._catch_up()
        kinds = [self._kinds.get(m.message_id, m.source) for m in messages]
        for message, kind in zip(messages, kinds, strict=True):
            self._log("message", message.text, name=kind)
        turns = self.script.turns
        if self._in_turn:
            if any(_starts("person", kind) for kind in kinds):
                return True
            wanted = "your message"
        else:
            for index in range(self._turn, len(turns)):
                if any(_starts(turns[index].on, kind) for kind in kinds):
                    for passed in turns[self._turn : index]:
                        self._note(f"agent skips turn {passed.id!r}, for {_WANTED[passed.on]}")
                    self._turn, self._action = index, 0
                    return True
            wanted = _WANTED[turns[self._turn].on]
        self._note(f"agent has nothing scripted for this; it still waits for {wanted}")
        return False

    def _catch_up(self) -> None:
        """Fold new events: how each message came to be queued, decisions, cancelled turns."""
        for event in self.session.events(after=self._seen):
            kind, data = event.kind, event.data
            if kind == "decision":
                self._answer = data["action"]
                self._decisions.append((event.seq, data["action"]))
            elif kind == "message_queued":
                # A verb queues its message in the transaction of its decision, and the events
                # of a transaction are consecutive: only mode_changed may come between.
                self._kinds[data["message_id"]] = _message_kind(data["source"], self._answer)
                self._answer = None
            elif kind != "mode_changed":
                self._answer = None
            if kind == "turn_cancelled":
                self._cancelled.add(data["turn_id"])
            self._seen = event.seq

    # Playing.

    def _play(self) -> None:
        turn = self.script.turns[self._turn]
        self._in_turn = True
        while self._action < len(turn.actions):
            action = turn.actions[self._action]
            self._action += 1
            if isinstance(action, Say):
                self._log("say", action.say)
            elif isinstance(action, Wait) and action.wait == "decision":
                if self._wait_for_decision():
                    return
            elif isinstance(action, Wait):
                if self._action < len(turn.actions):  # at the end, the turn's end waits anyway
                    self._log("wait", "message")
                    self._waiting = "message"
                    return
            elif isinstance(action, Reply):
                if not self._reply(turn, action):
                    return
            elif not self._call(turn, action):
                return
        self._end_turn("played")

    def _wait_for_decision(self) -> bool:
        snapshot = self.session.snapshot()
        if snapshot.pending_proposal_hash is None:
            self._note("agent has no proposal waiting, so there is no decision to wait for")
            return False
        self._log("wait", "decision")
        self._waiting, self._decision_after = "decision", snapshot.cursor
        return True

    def _call(self, turn: Turn, action: Call | Update | Tool) -> bool:
        """One tool call, logged; False when it found the turn cancelled or late."""
        self._catch_up()
        snapshot = self.session.snapshot()
        if isinstance(action, Tool):
            shown = "(" + ", ".join(f"{k}={_json(v)}" for k, v in action.args.items()) + ")"
            if turn.id in self._cancelled:
                reason = f"turn {turn.id!r} was cancelled when you left plan mode; not run"
                self._log("tool", reason, name=action.tool, is_error=True, args=shown)
                return self._end_turn("stopped", _CANCELLED)
            waiting = snapshot.pending_proposal_hash is not None
            refusal = guard_refusal(action.tool, action.risk, snapshot.mode, waiting)
            text = refusal or action.result
            self._log("tool", text, name=action.tool, is_error=bool(refusal), args=shown)
            return True
        plan = snapshot.plan.model_dump(mode="json") if snapshot.plan is not None else None
        if isinstance(action, Call):
            name, shown, args = action.call, "", action.arguments(plan["revision"] if plan else 0)
        else:
            name, args = "update_plan", action.arguments(plan)
            shown = f" ({action.update}: {action.status or 'evidence'})"
        if args is None:
            reason = f"step {action.update!r} is not in the current plan; not sent"
            self._log("call", reason, name=name, is_error=True, args=shown)
            return True
        call_id = f"{self.script.name}-{turn.id}-{self._action}"
        result = self.session.call_tool(name, args, turn_id=turn.id, call_id=call_id)
        self._log("call", result.content, name=name, is_error=result.is_error, args=shown)
        if result.is_error:
            self._catch_up()
            # Only cancelling leaves an event; a turn older than a newer one is in the result.
            if turn.id in self._cancelled:
                return self._end_turn("stopped", _CANCELLED)
            if _LATE in result.content:
                return self._end_turn("stopped", "a newer turn has started")
        return True

    def _reply(self, turn: Turn, action: Reply) -> bool:
        """comment_reply to each open comment (on `action.step`, when it names one); False when
        a reply found the turn cancelled or late."""
        comments = self.session.snapshot_data()["comments"]
        wanted = [
            c
            for c in comments
            if c["status"] == "open" and (action.step is None or c["step_id"] == action.step)
        ]
        if not wanted:
            on = f" on step {action.step!r}" if action.step is not None else ""
            self._note(f"agent has no open comment{on} to reply to")
            return True
        number = self._action
        for comment in wanted:
            args = {"comment_id": comment["id"], "reply": action.reply}
            call_id = f"{self.script.name}-{turn.id}-{number}-{comment['id']}"
            result = self.session.call_tool("comment_reply", args, turn_id=turn.id, call_id=call_id)
            shown = f" ({comment['id']})"
            self._log(
                "call", result.content, name="comment_reply", is_error=result.is_error, args=shown
            )
            if result.is_error and _LATE in result.content:
                self._catch_up()
                why = _CANCELLED if turn.id in self._cancelled else "a newer turn has started"
                return self._end_turn("stopped", why)
        return True

    def _end_turn(self, how: str, why: str = "") -> bool:
        """Move on to the next turn, noting how this one ended: played, decided or stopped."""
        turn, turns = self.script.turns[self._turn], self.script.turns
        self._turn, self._action, self._in_turn = self._turn + 1, 0, False
        following = turns[self._turn] if self._turn < len(turns) else None
        self._waiting = "message" if following is not None else None
        then = f"it waits for {_WANTED[following.on]}" if following else "its script ends here"
        if how == "stopped":
            self._note(f"agent stops turn {turn.id!r}: {why}; {then}")
        elif following is None:
            self._note("agent has finished its script")
        elif how == "played":
            self._note(f"agent ends its turn; {then}")
        return False

    def _log(self, kind: str, text: str, **fields: Any) -> None:
        self.transcript.append(Entry(kind, text, **fields))

    def _note(self, text: str) -> None:
        self._log("note", text)


def _message_kind(source: str, answer: str | None) -> str:
    if source == "notice" and answer == "approved":
        return "approval"
    if source == "person" and answer == "changes_requested":
        return "changes"
    return source


def _starts(on: str, kind: str) -> bool:
    """Whether a message of `kind` starts a turn declared `on`."""
    return on in ("any", kind) or (on == "person" and kind == "changes")


def _speaker(kind: str | None) -> str:
    if kind in ("person", "changes"):
        return "you"
    return "automatic message" if kind == "automatic" else "notice"


def _one_line(text: str) -> str:
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
