"""`jupyter-plans hook PreToolUse`: plan mode at the tool boundary, and what every hook point
shares (the host's input, the answer's shapes, the plan read from the store read-only).

The host runs this before every guarded tool call of every turn, each time in a new process,
so its path is the one kept short: it loads the standard library's sqlite3, json's C functions
(json_lite.py: not json itself, whose import compiles regular expressions) and the few modules
of the package it decides with (the read-only store, the guard's words, the heartbeat), never
pydantic, SQLAlchemy, typing, pathlib, dataclasses or argparse. The command
line `hook install` writes is read here without argparse; any other goes to argparse
(command.py), which reads it as before. The other hook points are points.py's.
"""

from __future__ import annotations

from types import SimpleNamespace

from .. import json_lite
from ..agents.hosts.registry import own_plan_write
from .seen import beat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PreCompact", "Stop")
MAX_INPUT_BYTES = 1 << 20  # 1 MiB
DEFAULT_GUARD = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "apply_patch")
EXECUTE_TOOLS = ("Bash",)  # the others in the guard list write; the word is only for the reason


def guard_names(text: str) -> tuple[str, ...]:
    """--guard's comma-separated tool names and patterns."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def read_command(argv: list[str]) -> Any:
    """A hook point's command line as `hook install` writes it (EVENT, then --notebook NB,
    --db DB or both, and --session SID, --guard NAMES, --ask, each at most once), as argparse
    would read it but for --limit and --prompt-limit (command.py gives their defaults); None
    for any other, which argparse reads (and refuses in its words)."""
    if not argv or argv[0] not in EVENTS:
        return None
    given: dict[str, Any] = {}
    rest = argv[1:]
    while rest:
        flag, value = rest[0], True
        if flag in ("--notebook", "--db", "--session", "--guard"):
            if len(rest) < 2 or rest[1].startswith("-"):
                return None
            value = rest[1]
        elif flag != "--ask":
            return None
        if flag in given:
            return None
        given[flag] = value
        rest = rest[2:] if value is not True else rest[1:]
    if "--notebook" not in given and "--db" not in given:
        return None  # argparse says which plan to give
    guard = given.get("--guard")
    return SimpleNamespace(
        event=argv[0],
        notebook=given.get("--notebook"),
        db=given.get("--db"),
        session=given.get("--session"),
        guard=DEFAULT_GUARD if guard is None else guard_names(guard),
        ask=given.get("--ask", False),
    )


def read_input(stream: Any) -> tuple[dict | None, str | None]:
    """The host's hook JSON, or why it could not be read (one line)."""
    data = stream.read(MAX_INPUT_BYTES + 1) if stream is not None else b""
    if len(data) > MAX_INPUT_BYTES:
        return None, f"the hook input is larger than 1 MiB ({MAX_INPUT_BYTES} bytes); not read"
    try:
        payload = json_lite.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else _line(exc)
        return None, f"the hook input is not JSON: {reason}"
    if not isinstance(payload, dict):
        return None, f"the hook input is not a JSON object; found {type(payload).__name__}"
    return payload, None


def sent_another(event: str, payload: dict | None) -> dict | None:
    """The warning when the host sent another event than the one the hook is registered for."""
    sent = (payload or {}).get("hook_event_name", event)
    if sent != event:
        return warn(f"this hook is registered for {event} but the host sent {short(sent)}")
    return None


def read_store(args: Any, read: Any) -> tuple[Any, str | None]:
    """`read(store)` on the plan's store opened read-only, then the guard's heartbeat; or why
    it failed (one line)."""
    from ..store.locate import for_command
    from ..store.readonly import open_read_only

    try:
        # --notebook found as every surface finds it (JUPYTER_PLANS_DATABASE and _SESSION_ID
        # too); --db and --session win where given.
        found = for_command(args.notebook, args.db, args.session)
        args.session = found.session
        with open_read_only(found.database) as store:
            found = read(store)
            beat(store, args.event, getattr(args, "payload", None))
            return found, None
    except Exception as exc:  # whatever is wrong with the store, the host gets an answer
        return None, _line(exc)


def locate(args: Any, payload: dict | None) -> tuple[str | None, str | None]:
    """With --notebook: (why the hook cannot tell, as its notebook is gone or its name taken;
    what it says once when it follows the plan of its renamed notebook), and args made to
    read that plan."""
    args.payload = payload
    if not args.notebook:
        return None, None
    from ..store.locate import DEFAULT_TEMPLATE, plan_database
    from ..store.preflight import file_mode, plain_path

    notebook = args.notebook
    if plain_path(notebook) and file_mode(notebook) is not None:
        # There, with its plan file beside it (or a link at its name): two stats. A notebook
        # without one may have taken the name of the one this hook was installed for.
        if file_mode(plan_database(DEFAULT_TEMPLATE, notebook), follow=False) is not None:
            return None, None
    from .target import locate as target_of

    target = target_of(args.notebook, payload)
    if target.notebook is not None:
        args.notebook = str(target.notebook)
    return target.gone, target.followed


def answer(args: Any, payload: dict | None, problem: str | None) -> dict | None:
    """PreToolUse's answer: in plan mode, or while a proposal waits, a tool that changes the
    world is denied with a one-line reason; otherwise nothing (the host goes on as it would)."""
    other = sent_another(args.event, payload)
    if other is not None:
        return other
    tool = (payload or {}).get("tool_name")
    if not isinstance(tool, str):
        tool = None
        problem = problem or "the hook input has no tool_name"
    elif not _guarded(tool, args.guard) or own_plan_write(tool, payload):
        return None  # not a tool the plan holds, or a host's own plan: allowed, quickly
    gone, followed = locate(args, payload)
    if gone:  # plan mode or not: what cannot be checked is refused
        return deny(f"jupyter-plans: {short(tool or 'the tool')} is refused: {gone}")
    answered = _gated(args, tool, problem) or {}
    if followed:  # said beside the decision, or before the warning there was
        said = answered.pop("systemMessage", "").removeprefix("jupyter-plans: ")
        answered |= warn(followed, said or None)
    return answered or None


def _gated(args: Any, tool: str | None, problem: str | None) -> dict | None:
    """PreToolUse's answer for a guarded tool, from the plan's mode and waiting proposal."""
    gate, unread = read_store(args, lambda store: store.gate(args.session))
    if gate is None:
        if getattr(args, "ask", False):  # the one who is asked reads the plan again
            return _decision("ask", f"jupyter-plans: {unread}")
        return warn(f"{short(tool or 'a tool')} ran unchecked: {unread}", problem)
    mode, pending = gate
    waiting = pending is not None
    if mode != "plan" and not waiting:
        return warn(problem) or None
    if getattr(args, "ask", False):
        state = "a proposal waits for the person's decision" if waiting else "plan mode"
        return _decision("ask", f"jupyter-plans: {state}; the client decides")
    if tool is None:
        return deny(
            f"jupyter-plans: {problem}, so the tool cannot be told apart from one that changes "
            "the world, and the session is in plan mode or waits for the person's decision"
        )
    from ..plan.guard import guard_refusal

    risk = "execute" if tool in EXECUTE_TOOLS or tool.startswith("mcp__") else "write"
    reason = f"jupyter-plans: {guard_refusal(short(tool), risk, mode, waiting)}"
    if not waiting:
        reason += (
            " (plan_submit is a tool of the jupyter-plans MCP server; without it, describe the "
            "plan in your reply and let the person decide)"
        )
    return deny(reason)


def _guarded(tool: str, patterns: tuple[str, ...]) -> bool:
    from ..plan.guard import RESERVED_NAMES

    # The plan tools themselves (plan_submit above all) must get through in plan mode.
    if tool in RESERVED_NAMES or (
        tool.startswith("mcp__") and tool.split("__")[-1] in RESERVED_NAMES
    ):
        return False
    return any(_matches(tool, pattern) for pattern in patterns)


def _matches(tool: str, pattern: str) -> bool:
    """fnmatchcase's answer; a name without a wildcard is compared as it is, as fnmatch would
    (which compiles each pattern to a regular expression first: the default list is names)."""
    if not any(wildcard in pattern for wildcard in "*?["):
        return tool == pattern
    from fnmatch import fnmatchcase

    return fnmatchcase(tool, pattern)


def deny(reason: str) -> dict:
    return _decision("deny", reason)


def _decision(decision: str, reason: str) -> dict:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def warn(*parts: str | None) -> dict:
    """A line for the person (`systemMessage`), never a decision or a block; {} for none."""
    text = "; ".join(filter(None, parts))
    return {"systemMessage": f"jupyter-plans: {text}"} if text else {}


def short(value: Any, most: int = 80) -> str:
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def _line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
