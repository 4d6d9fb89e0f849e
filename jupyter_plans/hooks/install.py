"""`jupyter-plans hook install HOST`: the settings that register the hooks for a project.

Each host reads them from its settings file (its module's SETTINGS_FILE, agents/hosts/); every
such file holds the same `{"hooks": {EVENT: [{matcher?, hooks: [{type, command, timeout}]}]}}`.
`--write` merges them into the project's file: other settings and other hooks stay, a second
run changes nothing, and the file is replaced in one step. A host that runs them only once
trusted says so after the install, and `--trust` records that trust (its `after_install`).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from ..agents.config_files import ConfigError, read_json
from ..agents.hosts.files import replace_file
from ..agents.hosts.registry import HOSTS
from .points import DEFAULT_GUARD, EVENTS

TIMEOUT_SECONDS = 10  # the hook answers in well under a second; the hosts' default is longer


def install(argv: list[str], parser_class, add_where) -> int:
    parser = parser_class(
        prog="jupyter-plans hook install",
        description="Print the hook settings for HOST, or merge them into the project's file.",
    )
    parser.add_argument("host", choices=HOSTS, metavar="HOST", help=" or ".join(HOSTS))
    add_where(parser)
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"merge them into {' or '.join(h.SETTINGS_FILE for h in HOSTS.values())} under the "
        "current folder",
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="; ".join(h.TRUST_HELP for h in HOSTS.values() if h.TRUST_HELP),
    )
    args = parser.parse_args(argv)
    host = HOSTS[args.host]
    if args.trust and host.TRUST_HELP is None:
        trusting = " or ".join(h.ID for h in HOSTS.values() if h.TRUST_HELP)
        parser.error(f"--trust is for {trusting}; {args.host} has no hook trust to record")
    hooks = settings(args.notebook, args.db, args.session, args.guard)
    if not (args.write or args.trust):
        print(json.dumps({"hooks": hooks}, indent=2))
        if host.PRINTED_NOTE:
            print(host.PRINTED_NOTE, file=sys.stderr)
        return 0
    path = Path.cwd() / host.SETTINGS_FILE
    try:
        write_merged(path, hooks)
    except ValueError as exc:
        print(f"jupyter-plans: {exc}", file=sys.stderr)
        return 1
    print(f"jupyter-plans: the hooks are registered in {path}")
    status = host.after_install(path, hooks, args.trust, lambda said: _checked(args, said))
    # Recorded last: a card reads what it says of the guards again when the plan file changes
    # (no cursor moves), so a host's trust, written above, is there to be read by then.
    _record(args, path)
    return status


def _record(args, path: Path) -> None:
    """The plan records the install, so that its card can say when these hooks are not heard
    from in plan mode (DESIGN section 15)."""
    from ..errors import PlanStoreError
    from ..store import Store
    from ..store.guards import record_install
    from ..store.locate import for_command

    notebook = os.path.abspath(args.notebook) if args.notebook else None
    try:
        where = for_command(notebook, args.db, args.session).database
        with Store(where) as store, store.write() as tx:
            record_install(tx, args.host, HOSTS[args.host].NAME, path)
    except (PlanStoreError, OSError) as exc:
        print(
            f"jupyter-plans: the install was not recorded in the plan ({exc}); its card cannot "
            "say when these hooks are not heard from",
            file=sys.stderr,
        )


def _checked(args, said: str | None) -> int:
    """The doctor's look at what the agent itself reads, before the install says it holds."""
    from .doctor import diagnose, plan_of

    finding = diagnose(args.host, plan_of(args.notebook, args.db, args.session))
    if not finding.holds:
        print(f"jupyter-plans: {finding.line}", file=sys.stderr)
        return 1
    if said:
        print(f"jupyter-plans: {said}")
    print(f"jupyter-plans: {finding.line}")
    return 0


def settings(notebook, db, session, guard) -> dict:
    """The `hooks` object: one command per event, with absolute paths."""
    target = ["--notebook", os.path.abspath(notebook)] if notebook else []
    if db is not None:  # with --notebook too: it wins there, as here
        target += ["--db", _db(db) if notebook is None or "{" not in db else db]
    if session is not None:
        target += ["--session", session]
    hooks = {}
    for event in EVENTS:
        command = [*_executable(), "hook", event, *target]
        if event == "PreToolUse" and tuple(guard) != DEFAULT_GUARD:
            command += ["--guard", ",".join(guard)]
        handler = {"type": "command", "command": shlex.join(command), "timeout": TIMEOUT_SECONDS}
        group = {"matcher": _matcher(guard)} if event == "PreToolUse" else {}
        hooks[event] = [{**group, "hooks": [handler]}]
    return hooks


def _db(db: str) -> str:
    return db if "://" in db else os.path.abspath(os.path.expanduser(db))


def _executable() -> list[str]:
    # The venv's own script, not resolved: resolving bin/python would leave the venv.
    script = Path(os.path.abspath(sys.executable)).with_name("jupyter-plans")
    if script.exists():
        return [str(script)]
    found = shutil.which("jupyter-plans")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "jupyter_plans.cli"]


def _matcher(guard) -> str:
    """The hosts' matcher for the guarded tools: names as they are, `*` patterns as regexes.

    It only chooses when the hook runs; the hook itself decides with the same list.
    """
    return "|".join(
        name if name.replace("_", "").isalnum() else ".*".join(map(_escape, name.split("*")))
        for name in guard
    )


def _escape(text: str) -> str:
    return "".join("\\" + c if not (c.isalnum() or c == "_") else c for c in text)


def write_merged(path: Path, hooks: dict) -> None:
    """Merge `hooks` into the settings file at `path`, atomically; ValueError when refused."""
    if path.is_symlink():
        raise ValueError(
            f"{path} is a symbolic link; add the settings printed without --write by hand"
        )
    current: Any = {}
    if path.exists():
        try:
            current = read_json(path)  # bounded: a FIFO or a device at the name is not read
        except ConfigError as exc:
            raise ValueError(f"{exc}; it was left as it is") from None
        if not isinstance(current, dict) or not isinstance(current.get("hooks", {}), dict):
            raise ValueError(f"{path} does not hold a settings object; it was left as it is")
    registered = current.setdefault("hooks", {})
    for event, groups in hooks.items():
        ours = {handler["command"] for group in groups for handler in group["hooks"]}
        if not isinstance(registered.get(event, []), list):
            raise ValueError(f"{path}: hooks.{event} is not a list; it was left as it is")
        kept = []
        for group in registered.get(event, []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list):
                others = [
                    h for h in handlers if not isinstance(h, dict) or h.get("command") not in ours
                ]
                if handlers and not others:
                    continue  # a group of ours from an earlier run: replaced below
                group = {**group, "hooks": others}
            kept.append(group)
        registered[event] = kept + groups
    replace_file(path, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
