"""A scripted ACP agent that behaves like claude-agent-acp where the bridge cares, the same on
every run: `python -m jupyter_plans.agents.acp.demo_agent [--scenario FILE | --no-scenario]
[--report] [--log FILE]`. Notebook 05 runs it behind the bridge, and so do the bridge's tests.

- Modes `default`, `acceptEdits`, `plan` and `bypassPermissions`, `default` at the start.
- A prompt whose last text block is `SCRIPT [...]` runs those actions in order. Any other prompt
  plays the scenario (`demo_agent.json` unless `--scenario` names another): its `planning`
  actions in plan mode, ending with the request to leave plan mode, then its `working` actions
  once allowed to; its `working` actions straight away in any other mode. With
  `--no-scenario` such a prompt is answered with one message, `ok`.
- Actions: `{"plan": [[content, status], ...]}` (a TodoWrite plan update, the whole list;
  `raw_plan` sends entries as given, `raw_update` an update, `raw_permission` a permission
  request's params), `{"exit_plan_mode": MARKDOWN}` (ExitPlanMode: "Ready to
  code?", kind switch_mode, options acceptEdits / default / plan; an allowed option becomes the
  agent's mode, told with current_mode_update), `{"edit": TITLE}` and `{"execute": TITLE}`
  (options allow_always / allow / reject), `{"write": [PATH, TEXT]}` (fs/write_text_file),
  `{"terminal": COMMAND}`, `{"read": [TITLE, PATH, RESULT]}` (a read tool call),
  `{"wait_cancel": SECONDS}` (until session/cancel), `{"say": TEXT}` and `{"mode": ID}` (the
  agent takes mode ID by itself, as Claude Code's EnterPlanMode does); `{"stray": ID}`: the next
  session/set_mode it takes is followed, before its answer, by its own switch to mode ID;
  `{"end": REASON}` ends the turn there with that stop reason.
- `--start-mode ID` starts each session in mode ID (`bypassPermissions` approves itself).
- `--fail-new TEXT` answers every session/new with an error saying TEXT (an agent that cannot
  start a session here).
- With `--report` it tells what happened as agent message chunks `REPORT {json}`: the prompt it
  received, each action's outcome, each mode set and each cancel (the tests read them).
- With `--log FILE`, every raw JSON-RPC message it sends or receives is appended to FILE as
  `{"direction", "message"}` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from acp import (
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    SetSessionModeResponse,
    plan_entry,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_plan,
)
from acp.schema import (
    AgentCapabilities,
    CurrentModeUpdate,
    Implementation,
    PermissionOption,
    SessionMode,
    SessionModeState,
    ToolCallUpdate,
)

from .methods import REQUEST_PERMISSION, UPDATE

SCENARIO = Path(__file__).with_name("demo_agent.json")
NAME, TITLE = "jupyter-plans-demo-agent", "Scripted agent"
MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
EXIT_OPTIONS = [
    PermissionOption(
        option_id="acceptEdits", name="Yes, and auto-accept edits", kind="allow_always"
    ),
    PermissionOption(
        option_id="default", name="Yes, and manually approve edits", kind="allow_once"
    ),
    PermissionOption(option_id="plan", name="No, keep planning", kind="reject_once"),
]
TOOL_OPTIONS = [
    PermissionOption(option_id="allow_always", name="Always Allow", kind="allow_always"),
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
CONTEXT_OPENING = "<plan_context"  # how the bridge's context block begins


def _modes(current: str) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=mode, name=mode) for mode in MODES],
    )


def _allowed(outcome: dict) -> bool:
    return outcome.get("outcome") == "selected" and outcome.get("optionId") in (
        "acceptEdits",
        "default",
        "allow",
        "allow_always",
    )


class DemoAgent:
    def __init__(
        self,
        scenario: dict | None,
        report: bool = False,
        start_mode: str = "default",
        fail_new: str | None = None,
    ) -> None:
        self.scenario = scenario
        self.fail_new = fail_new
        self.start_mode = start_mode
        self.reporting = report
        self.conn: Any = None
        self.mode: dict[str, str] = {}
        self.cancelled: dict[str, asyncio.Event] = {}
        self.stray: dict[str, str] = {}  # session -> the mode it takes after its next set_mode
        self.count = 0
        self.calls = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def report(self, session_id: str, **what: Any) -> None:
        if self.reporting:
            text = "REPORT " + json.dumps(what, ensure_ascii=False)
            await self.say(session_id, text)

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, update_agent_message_text(text))

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(load_session=True),
            agent_info=Implementation(name=NAME, title=TITLE, version="1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        if self.fail_new is not None:
            raise RequestError(-32603, "Internal error", {"details": self.fail_new})
        self.count += 1
        session_id = f"scripted-{self.count}"
        self.mode[session_id] = self.start_mode
        self.cancelled[session_id] = asyncio.Event()
        return NewSessionResponse(session_id=session_id, modes=_modes(self.start_mode))

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        self.mode.setdefault(session_id, self.start_mode)
        self.cancelled.setdefault(session_id, asyncio.Event())
        return LoadSessionResponse(modes=_modes(self.mode[session_id]))

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any):
        if mode_id not in MODES:
            raise RequestError.invalid_params({"modeId": mode_id})
        self.mode[session_id] = mode_id
        await self.report(session_id, event="set_mode", mode=mode_id)
        stray = self.stray.pop(session_id, None)
        if stray is not None:  # its own switch, landing while the client's change is answered
            await self.switch(session_id, stray)
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def prompt(self, session_id: str, prompt: list, **kwargs: Any) -> PromptResponse:
        self.cancelled.setdefault(session_id, asyncio.Event()).clear()
        texts = [block.text for block in prompt if getattr(block, "type", None) == "text"]
        await self.report(session_id, event="prompt", texts=texts, mode=self.mode.get(session_id))
        last = texts[-1] if texts else ""
        if last.startswith("SCRIPT "):
            actions = json.loads(last[len("SCRIPT ") :])
        elif self.scenario is None:
            actions = [{"say": "ok"}]
        else:
            await self.acknowledge(session_id, texts[:-1])
            actions = self.scenario_for(session_id)
        for action in actions:
            stop = await self.act(session_id, action)
            if stop:
                return PromptResponse(stop_reason=stop)
        return PromptResponse(stop_reason="end_turn")

    async def acknowledge(self, session_id: str, leading: list[str]) -> None:
        """Say what opened the prompt before the person's own words (the bridge's blocks)."""
        for text in leading:
            if text.startswith(CONTEXT_OPENING):
                await self.say(session_id, "I read the plan's context block first.")
            else:
                first = text.strip().splitlines()[0] if text.strip() else ""
                await self.say(session_id, f"Noted before your message: {first}")

    def scenario_for(self, session_id: str) -> list[dict]:
        if self.mode.get(session_id) == "plan":
            return [*self.scenario["planning"], {"then_work": True}]
        return list(self.scenario["working"])

    async def act(self, session_id: str, action: dict) -> str | None:  # one branch per script verb
        ((name, value),) = action.items()
        if name == "plan":
            entries = [plan_entry(content, status=status) for content, status in value]
            await self.conn.session_update(session_id, update_plan(entries))
        elif name in ("raw_plan", "raw_update"):  # as given, for what the models would refuse
            update = {"sessionUpdate": "plan", "entries": value} if name == "raw_plan" else value
            await self.conn._conn.send_notification(
                UPDATE, {"sessionId": session_id, "update": update}
            )
        elif name == "raw_permission":  # a request as given, for what the models would refuse
            params = {"sessionId": session_id, **value}
            try:
                outcome = await self.conn._conn.send_request(REQUEST_PERMISSION, params)
            except Exception as exc:  # noqa: BLE001 - reported to the test
                outcome = {"error": str(exc)}
            await self.report(session_id, event="raw_permission", outcome=outcome)
        elif name == "exit_plan_mode":
            return await self.exit_plan_mode(session_id, value)
        elif name == "then_work":  # after an allowed exit_plan_mode, as Claude Code goes on
            for step in self.scenario["working"]:
                stop = await self.act(session_id, step)
                if stop:
                    return stop
        elif name in ("edit", "execute"):
            outcome = await self.permission(session_id, value, name, TOOL_OPTIONS, None, None)
            await self.report(session_id, event=name, title=value, outcome=outcome)
            if not self.reporting and not _allowed(outcome):
                await self.say(session_id, f"{value!r} was not allowed, so I stop here.")
                return "end_turn"
        elif name == "write":
            await self.client_call(session_id, "write", self.conn.write_text_file, *value)
        elif name == "terminal":
            await self.client_call(session_id, "terminal", self.conn.create_terminal, value)
        elif name == "read":
            title, path, result = value
            self.calls += 1
            await self.conn.session_update(
                session_id,
                start_tool_call(
                    f"call-{self.calls}",
                    title,
                    kind="read",
                    status="completed",
                    content=[tool_content(text_block(result))],
                    raw_input={"path": path},
                ),
            )
        elif name == "wait_cancel":
            try:
                await asyncio.wait_for(self.cancelled[session_id].wait(), value)
            except TimeoutError:
                await self.report(session_id, event="wait_cancel", cancelled=False)
                return None
            await self.report(session_id, event="wait_cancel", cancelled=True)
            return "cancelled"
        elif name == "say":
            await self.say(session_id, value)
        elif name == "mode":
            await self.switch(session_id, value)
        elif name == "stray":
            self.stray[session_id] = value
        elif name == "end":  # the turn ends here, with this stop reason
            return value
        return None

    async def exit_plan_mode(self, session_id: str, markdown: str) -> str | None:
        outcome = await self.permission(
            session_id, "Ready to code?", "switch_mode", EXIT_OPTIONS, markdown, {"plan": markdown}
        )
        if outcome.get("optionId") in ("acceptEdits", "default"):
            await self.switch(session_id, outcome["optionId"])
        await self.report(session_id, event="exit_plan_mode", outcome=outcome)
        if outcome.get("outcome") == "cancelled":
            return "cancelled"
        if not self.reporting and not _allowed(outcome):
            await self.say(session_id, "I keep planning; tell me what to change.")
            return "end_turn"
        return None

    async def switch(self, session_id: str, mode: str) -> None:
        """Take MODE by itself, as Claude Code's EnterPlanMode does, and tell the client."""
        self.mode[session_id] = mode
        update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
        await self.conn.session_update(session_id, update)

    async def permission(self, session_id, title, kind, options, text, raw_input) -> dict:
        self.calls += 1
        tool_call = ToolCallUpdate(
            tool_call_id=f"call-{self.calls}",
            title=title,
            kind=kind,
            status="pending",
            raw_input=raw_input,
            content=[tool_content(text_block(text))] if text is not None else None,
        )
        response = await self.conn.request_permission(
            session_id=session_id, tool_call=tool_call, options=options
        )
        return response.outcome.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def client_call(self, session_id, name, method, *args) -> None:
        try:
            if name == "write":
                await method(session_id=session_id, path=args[0], content=args[1])
            else:
                await method(session_id=session_id, command=args[0])
        except RequestError as error:
            await self.report(
                session_id, event=name, error={"code": error.code, "message": str(error)}
            )
            if not self.reporting:
                await self.say(session_id, f"The {name} was refused: {error}")
            return
        await self.report(session_id, event=name, error=None)


def _logger(path: str):
    def log(event: Any) -> None:
        with open(path, "a", encoding="utf-8") as file:
            record = {"direction": event.direction.value, "message": event.message}
            file.write(json.dumps(record, ensure_ascii=False) + "\n")

    return log


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m jupyter_plans.agents.acp.demo_agent")
    parser.add_argument("--scenario", default=str(SCENARIO), help="the scenario's JSON file")
    parser.add_argument(
        "--no-scenario", action="store_true", help="answer a prompt that is no script with ok"
    )
    parser.add_argument("--report", action="store_true", help="say what happened, for tests")
    parser.add_argument("--log", metavar="FILE", help="append every raw message to FILE")
    parser.add_argument(
        "--start-mode", choices=MODES, default="default", help="each session's first mode"
    )
    parser.add_argument("--fail-new", metavar="TEXT", help="refuse every session/new, saying TEXT")
    args = parser.parse_args(argv)
    scenario = None
    if not args.no_scenario:
        scenario = json.loads(Path(args.scenario).read_text(encoding="utf-8"))
    observers = [_logger(args.log)] if args.log else []
    agent = DemoAgent(
        scenario, report=args.report, start_mode=args.start_mode, fail_new=args.fail_new
    )
    await run_agent(agent, observers=observers)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
