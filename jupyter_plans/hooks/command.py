"""`jupyter-plans hook EVENT`, `jupyter-plans hook install HOST` and `jupyter-plans hook doctor`:
the command line of the hooks. What each hook point answers is in tool_use.py (PreToolUse) and
points.py (the others); the host's settings, in install.py; whether each agent will run them,
in doctor.py.

A hook point's command line, as `hook install` writes it, is read by tool_use.py without
argparse (which takes a tenth of the time it may have); every other one, by argparse here.
"""

from __future__ import annotations

import sys

from .. import json_lite
from .tool_use import DEFAULT_GUARD, EVENTS, guard_names, read_command, read_input


def _parser_class():
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:
            # argparse exits 2, which a host reads as "block this action" (and for a prompt,
            # as "erase it"); a hook's usage error is a plain failure.
            text = " ".join(message.encode("utf-8", "backslashreplace").decode().split())
            print(f"{self.prog}: {text} (see {self.prog} --help)", file=sys.stderr)
            sys.exit(1)

        def parse_args(self, *args, **kwargs):  # type: ignore[override]
            parsed = super().parse_args(*args, **kwargs)
            if getattr(parsed, "notebook", 0) is None and getattr(parsed, "db", 0) is None:
                self.error("give --notebook NB or --db DB: which plan to use")
            return parsed

    return _Parser


def _where(parser) -> None:
    from ..store.locate import add_where_options

    add_where_options(parser, "the notebook whose plan to read")
    parser.add_argument(
        "--guard",
        type=guard_names,
        default=DEFAULT_GUARD,
        metavar="NAMES",
        help="comma-separated tool names or patterns (mcp__*) that plan mode holds "
        f"(default {','.join(DEFAULT_GUARD)})",
    )


def _limit(text: str) -> int:
    import argparse

    from ..agents.context import MAX_CONTEXT_CHARS
    from .points import MIN_LIMIT

    value = int(text)
    if not MIN_LIMIT <= value <= MAX_CONTEXT_CHARS:
        raise argparse.ArgumentTypeError(
            f"must be {MIN_LIMIT} to {MAX_CONTEXT_CHARS}; found {text}"
        )
    return value


def _event_parser():
    from .points import CONTEXT_LIMIT, PROMPT_LIMIT

    parser = _parser_class()(
        prog="jupyter-plans hook",
        description="Answer a coding agent's hook (Claude Code, Codex CLI) from the plan; the "
        "host's hook JSON comes on stdin. `jupyter-plans hook install HOST` prints the settings; "
        "`jupyter-plans hook doctor [HOST]` says whether each agent will run them.",
    )
    parser.add_argument("event", choices=EVENTS, metavar="EVENT", help=", ".join(EVENTS))
    _where(parser)
    parser.add_argument(
        "--limit", type=_limit, default=CONTEXT_LIMIT, metavar="CHARS", help="at session start"
    )
    parser.add_argument(
        "--ask",
        action="store_true",
        help='PreToolUse: while plan mode holds, answer "ask" instead of denying, so the '
        "request reaches the client (the ACP bridge answers it)",
    )
    parser.add_argument(
        "--prompt-limit", type=_limit, default=PROMPT_LIMIT, metavar="CHARS", help="with a prompt"
    )
    return parser


def main(argv: list[str]) -> int:
    if argv[:1] == ["install"]:
        from .install import install

        return install(argv[1:], _parser_class(), _where)
    if argv[:1] == ["doctor"]:
        from .doctor import doctor

        return doctor(argv[1:], _parser_class(), _where)
    # without --session: the file's current session
    args = read_command(argv) or _event_parser().parse_args(argv)
    payload, problem = read_input(getattr(sys.stdin, "buffer", None))
    if args.event == "PreToolUse":
        from .tool_use import answer
    else:
        from .points import CONTEXT_LIMIT, PROMPT_LIMIT, answer

        # A command line read without argparse gives no limit: the defaults argparse gives.
        vars(args).setdefault("limit", CONTEXT_LIMIT)
        vars(args).setdefault("prompt_limit", PROMPT_LIMIT)
    reply = answer(args, payload, problem)
    if reply:
        if "systemMessage" in reply:
            print(reply["systemMessage"], file=sys.stderr)
        # ASCII, so the answer parses whatever the locale of the host's pipe.
        print(json_lite.dumps(reply, separators=(",", ":")))
    return 0
