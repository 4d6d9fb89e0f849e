"""The jupyter-plans command: read and drive a plan session from a shell."""

from __future__ import annotations

import functools
import sys

from .errors import DecisionRefused, PlanStoreError
from .lazy import LazyModule

# `hook` runs before every tool call of a coding agent, in a new process: it loads neither.
argparse = LazyModule("argparse")
json = LazyModule("json")
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def _printable(text: str) -> str:
    """One line that any terminal can show: argv may hold bytes that are not UTF-8."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return " ".join(text.split())


def _seq(text: str) -> int:
    """An --after value: a whole number of events from 0 to the largest seq a store holds."""
    from .plan.intake import MAX_SEQ

    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) > MAX_SEQ:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise argparse.ArgumentTypeError(f"{shown!r} is not a number of events from 0 to {MAX_SEQ}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    class _Parser(argparse.ArgumentParser):
        """argparse, with a usage error said in one line (exit 2) instead of the usage text."""

        def error(self, message: str) -> None:
            self.exit(2, f"{self.prog}: {_printable(message)} (see {self.prog} --help)\n")

    parser = _Parser(
        prog="jupyter-plans",
        description="Read and drive the durable plan of a notebook agent.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _session_commands(commands)
    _mcp_command(commands)
    _journal_commands(commands)
    _other_commands(commands)
    return parser


def _with_session(
    commands: Any, name: str, help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """A command on one session of a plan file or database (--notebook, --db, --session)."""
    from .store.locate import add_where_options

    sub = commands.add_parser(name, help=help, description=description or help)
    add_where_options(sub)
    return sub


def _session_commands(commands: Any) -> None:
    """snapshot, events, call and plan."""
    with_session = functools.partial(_with_session, commands)
    with_session("snapshot", "print the session's snapshot as JSON")

    events = with_session("events", "print the session's events as JSON Lines")
    events.add_argument(
        "--after", type=_seq, default=0, metavar="N", help="only events after seq N"
    )

    call = with_session("call", "call a plan tool; exit 0 when accepted, 1 when refused")
    call.add_argument("tool", metavar="TOOL", help="update_plan, plan_submit or record_decision")
    call.add_argument("args_json", metavar="ARGS_JSON", help="the tool's arguments as JSON")
    call.add_argument("--turn-id", default=None, help="the agent's turn")
    call.add_argument("--call-id", default=None, help="the call's id (a retry repeats it)")

    from .session.verbs import VERBS

    said = "; ".join(f"{v.name} {v.follows} ({v.does})".replace("  ", " ") for v in VERBS.values())
    plan = with_session(
        "plan",
        "a person's decision or comment: " + ", ".join(VERBS),
        f"A person's decision or comment, as %plan and the card make it: {said}. approve "
        "without HASH shows the waiting proposal and asks on a terminal; STEP is a step's id "
        "or its 1-based position.",
    )
    plan.add_argument("verb", metavar="VERB", help=", ".join(VERBS))
    plan.add_argument("rest", nargs="*", metavar="ARG", help="what follows the verb")
    plan.add_argument("--by", metavar="NAME", help="who decides (default: this system's user name)")


def _mcp_command(commands: Any) -> None:
    _with_session(
        commands,
        "mcp",
        "serve the session's plan tools to an MCP client on stdio",
        "An MCP server on stdio bound to one plan session. It needs the mcp package 2.3 or "
        "newer: pip install 'jupyter-plans[mcp]'.",
    )


def _journal_commands(commands: Any) -> None:
    """export and context."""
    with_session = functools.partial(_with_session, commands)
    export = with_session(
        "export", "write the session's journal (checkpoint, plan, decisions, progress) as Markdown"
    )
    export.add_argument("directory", metavar="DIR", help="the folder to write (made if missing)")

    context = with_session(
        "context", "print the bounded context block an agent gets with every turn"
    )
    context.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="CHARS",
        help="the most characters the block may have (default and maximum 14000)",
    )


def _other_commands(commands: Any) -> None:
    """where, sessions, move, hook, acp and demo."""
    from .notebook.where import add_commands

    add_commands(commands)
    move = commands.add_parser(
        "move",
        help="move a notebook and its plan file together (a rename outside Jupyter)",
        description="Move OLD.ipynb to NEW.ipynb (or into a folder) with its plan file, safely "
        "while a kernel or an agent has the plan open. If OLD was moved already, its plan file "
        "alone is taken along.",
    )
    move.add_argument("old", metavar="OLD.ipynb")
    move.add_argument("new", metavar="NEW.ipynb")

    # Parsed by jupyter_plans.hooks.command: listed here for --help only (see main).
    commands.add_parser(
        "hook",
        help="answer a coding agent's hook (Claude Code, Codex CLI) from the plan; "
        "`hook install HOST` registers them, `hook doctor` says whether they will run",
        add_help=False,
    ).add_argument("hook_args", nargs=argparse.REMAINDER)

    # Parsed by jupyter_plans.agents.acp.command: listed here for --help only (see main).
    commands.add_parser(
        "acp",
        help="stand between an ACP client and an ACP agent, keeping the agent's plan here "
        "(jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...])",
        add_help=False,
    ).add_argument("acp_args", nargs=argparse.REMAINDER)

    demo = commands.add_parser(
        "demo",
        help="run the scripted demo session and print the plan as it goes",
        description="Run a scripted agent through plan mode against a fresh plan file.",
    )
    demo.add_argument("--db", help="where to keep the plan (default: a new temp folder)")
    demo.add_argument(
        "--notebook",
        help="run this notebook headlessly instead (in a copy) and print its last card",
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        # A host reads exit status 2 as "block": the hook parses its own command line.
        from .hooks.command import main as hook_main

        return hook_main(argv[1:])
    if argv[:1] == ["acp"]:
        # Everything after `--` is the agent's own command line, not ours to parse.
        from .agents.acp.command import main as acp_main

        return acp_main(argv[1:])
    args = (parser := _parser()).parse_args(argv)
    if args.command not in ("demo", "move", "where") and args.db is None and not args.notebook:
        parser.error(f"{args.command} needs --notebook NB or --db DB: which plan to use")
    try:
        return _run(args)
    except (PlanStoreError, DecisionRefused) as exc:
        print(f"jupyter-plans: {_printable(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a command line says what failed in one line
        reason = _printable(str(exc)) or "no detail"
        print(
            f"jupyter-plans: {args.command} failed: {type(exc).__name__}: {reason}", file=sys.stderr
        )
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "demo":
        from .agents.demo import run_demo
        from .notebook.headless import run_notebook

        return run_notebook(args.notebook) if args.notebook else run_demo(args.db)

    if args.command == "mcp":
        from .agents.mcp_requirement import unmet

        reason = unmet()  # an extra, and Jupyter AI 3.2's environment holds mcp 1.x
        if reason is not None:
            print(f"jupyter-plans mcp: {reason}", file=sys.stderr)
            return 1
        from .agents.mcp_server import serve

        return serve(db=args.db, notebook=args.notebook, session=args.session)

    if args.command in ("where", "sessions"):
        from .notebook.where import run

        return run(args)

    if args.command == "move":
        from pathlib import Path

        from .notebook.move import move_notebook

        print(move_notebook(Path(args.old), Path(args.new)))
        return 0

    from .session import open_plan

    if args.command == "plan":
        from .session.verbs import refuse_without_a_plan

        words = " ".join(args.rest)
        refuse_without_a_plan(args.notebook, args.db, args.session, args.verb.lower(), words)
    store, session = open_plan(args.notebook, args.db, args.session)
    with store:
        if args.command == "snapshot":
            print(session.snapshot().model_dump_json())
            return 0
        if args.command == "events":
            for event in session.events(after=args.after):
                print(event.model_dump_json())
            return 0
        if args.command == "context":
            return _context(session, args.limit)
        if args.command == "export":
            from .journal import export

            cursor, files = export(session, args.directory)
            print(f"Wrote {', '.join(str(f) for f in files)} (cursor {cursor}).")
            return 0
        if args.command == "call":
            return _call(session, args)
        return _decide(session, args.verb, args.rest, _who(args.by))


def _call(session, args: argparse.Namespace) -> int:
    from .plan.intake import check_ids

    try:
        check_ids(args.turn_id, args.call_id)  # bytes that are not UTF-8 come as surrogates
    except ValueError as exc:
        return _error_result(f"--{str(exc).replace('_', '-', 1)}")
    try:
        tool_args = json.loads(args.args_json)
    except RecursionError:
        return _error_result("ARGS_JSON is not valid JSON: nested too deeply")
    except ValueError as exc:  # a syntax error, or a number of more than 4300 digits
        return _error_result(f"ARGS_JSON is not valid JSON: {_printable(str(exc))[:200]}")
    result = session.call_tool(args.tool, tool_args, turn_id=args.turn_id, call_id=args.call_id)
    print(result.model_dump_json())
    return 1 if result.is_error else 0


def _error_result(message: str) -> int:
    """A refusal of the command line's own input, printed as a tool result is."""
    print(json.dumps({"is_error": True, "content": message}, separators=(",", ":")))
    return 1


def _context(session, limit: int | None) -> int:
    from .agents.context import MAX_CONTEXT_CHARS, context_block

    if limit is not None and not 1000 <= limit <= MAX_CONTEXT_CHARS:
        print(
            f"jupyter-plans: --limit is {limit}; it must be 1000 to {MAX_CONTEXT_CHARS} characters",
            file=sys.stderr,
        )
        return 2
    print(context_block(session, limit=limit or MAX_CONTEXT_CHARS))
    return 0


def _who(name: str | None) -> dict:
    """The person deciding on the command line: --by, else the system's user name."""
    import getpass

    from .plan.who import person

    if name is None:
        try:
            name = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user entry for this uid
            name = None
    return person({"name": name, "via": "cli"})


def _decide(session, verb: str, rest: list[str], by: dict) -> int:
    from .plan.validation import quote
    from .session.verbs import VERBS, run

    # Verbs match without case; a hash never does.
    verb = verb.lower()
    if verb not in VERBS:
        raise DecisionRefused(f"unknown verb {quote(verb)}; use one of {', '.join(VERBS)}")
    if verb == "approve" and not rest:
        return _approve_after_asking(session, by)
    print(run(session, verb, " ".join(rest), by))
    return 0


def _approve_after_asking(session, by: dict) -> int:
    """approve without HASH: show the waiting proposal and its hash on a terminal, ask, and
    approve exactly what was shown; without a terminal, refuse (a script names the hash)."""
    from .plan.text import render_text

    snapshot = session.snapshot_data()
    waiting = snapshot["pending_proposal_hash"]
    if waiting is None:
        raise DecisionRefused("nothing to approve: no proposal is waiting for a decision")
    if not sys.stdin.isatty():
        raise DecisionRefused(
            f"approve without HASH asks on a terminal, and this has none; read proposal "
            f"{waiting[:12]} (jupyter-plans snapshot) and give its 64-hex hash"
        )
    print(render_text(snapshot))
    print(f"Hash: {waiting}")
    try:
        answer = input(f"Approve proposal {waiting[:12]}? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        raise DecisionRefused(f"not approved: proposal {waiting[:12]} still waits")
    return _decide(session, "approve", [waiting], by)


if __name__ == "__main__":
    sys.exit(main())
