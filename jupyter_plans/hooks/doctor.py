"""`jupyter-plans hook doctor [claude-code|codex] --notebook NB`: whether each agent will run
this plan's hooks here, read from what the agent itself reads (DESIGN section 15), one line per
agent; exit 0 when all hold, 1 otherwise, each line that does not hold with what fixes it.

Claude Code: its settings files in their order of precedence and `disableAllHooks`
(claude.py). Codex: the hooks' trusted hashes and, for 0.167 and later, the project's trust in
its config.toml (agents/codex_trust.py). The folders looked at are the notebook's and those
above it, and those the plan file says the hooks were installed in.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..agents.codex_trust import HOOKS_FILE, check, codex_home, registered_guards, targets
from ..agents.config_files import ConfigError
from . import claude

HOSTS = ("claude-code", "codex")


@dataclass(frozen=True)
class Plan:
    """Whose hooks to look for: the notebook or plan file named, and where they were installed."""

    notebook: Path | None
    plan: Path | None
    session: str | None
    installed: dict[str, Path]  # host -> the settings file the install wrote
    words: str  # the options that name this plan, for the fixing command

    def ours(self, command: str) -> bool:
        return targets(command, self.notebook, self.plan, self.session)

    def folders(self, host: str) -> list[Path]:
        start = self.notebook or self.plan or Path.cwd() / "x"
        found = list(Path(os.path.abspath(start)).parents)
        recorded = self.installed.get(host)
        if recorded is not None and recorded.parent.parent not in found:
            found.insert(0, recorded.parent.parent)
        return found


@dataclass(frozen=True)
class Finding:
    host: str
    holds: bool
    line: str
    registered: bool = True  # False: no hook of this plan is registered for the host


def plan_of(notebook: str | None, db: str | None, session: str | None) -> Plan:
    from ..errors import PlanStoreError
    from ..store.locate import for_command, plan_file

    nb = Path(os.path.abspath(notebook)) if notebook else None
    if nb is not None:  # found as every surface finds it; install records are kept there
        plan, where = plan_file(nb), str(plan_file(nb))
        with contextlib.suppress(PlanStoreError):  # a template the hook itself says is wrong
            where = for_command(str(nb), db, session).database
    elif "://" in db:
        plan, where = Path(db), db  # a URL: compared as the hook command names it
    else:
        plan = Path(os.path.abspath(os.path.expanduser(db)))
        where = str(plan)
    words = ["--notebook", str(nb)] if nb else ["--db", where]
    if session is not None:
        words += ["--session", session]
    return Plan(nb, plan, session, _installed(where), shlex.join(words))


def _installed(where: str) -> dict[str, Path]:
    """The settings files the plan says `hook install` wrote, by host."""
    from ..store.guards import installed
    from ..store.readonly import open_read_only

    try:
        with open_read_only(where) as store, store.read() as tx:
            return {r["host"]: Path(r["file"]) for r in installed(tx) if r["file"]}
    except Exception:  # noqa: BLE001 - no plan file yet, or one that cannot be read: no record
        return {}


def diagnose(host: str, plan: Plan) -> Finding:
    unread: list[str] = []  # the settings files that could not be read, one line each
    finding = _codex(plan, unread) if host == "codex" else _claude_code(plan, unread)
    if not unread:
        return finding
    # A FIFO, a device, too large or too deep: the agent cannot read it either; said in the
    # host's one line, once each.
    said = "; ".join(dict.fromkeys(unread))
    return Finding(host, finding.holds, f"{finding.line} (not read: {said})", finding.registered)


def _layers(folder: Path, unread: list[str]) -> list[claude.Layer]:
    found = claude.layers(folder)
    unread.extend(f"{layer.path} {layer.error}" for layer in found if layer.error)
    return found


def _claude_code(plan: Plan, unread: list[str]) -> Finding:
    fix = f"jupyter-plans hook install claude-code {plan.words} --write"
    candidates = []  # (folder, the file that registers ours)
    for folder in plan.folders("claude-code"):
        for layer in _layers(folder, unread)[1:3]:
            if any(plan.ours(c) for c in claude.pre_tool_commands(layer.data)):
                candidates.append((folder, layer))
    user = _layers(Path.cwd(), unread)[3]
    if not candidates and any(plan.ours(c) for c in claude.pre_tool_commands(user.data)):
        candidates.append((plan.folders("claude-code")[0], user))
    if not candidates:
        return Finding(
            "claude-code",
            False,
            "claude-code: no: no settings file registers this plan's hooks (.claude/settings"
            f".json in {plan.folders('claude-code')[0]} or a folder above it, or "
            f"{user.path}); to fix it, run in the folder you start Claude Code in: {fix}",
            registered=False,
        )
    reasons = []
    for folder, layer in candidates:
        off = claude.why_off(_layers(folder, unread), plan.ours)
        if off is None:
            return Finding(
                "claude-code",
                True,
                f"claude-code: yes: Claude Code runs this plan's hooks when started in {folder}:"
                f" they are registered in {layer.path}, and no settings file turns hooks off",
            )
        reasons.append((folder, *off))
    folder, layer, said = reasons[0]
    if layer.name == "managed settings":
        remedy = f"ask whoever manages {layer.path} to change it"
    elif layer.name == "local project settings":
        remedy = f'set "disableAllHooks": false in {layer.path}'
    else:
        remedy = f'set "disableAllHooks": false in {folder / ".claude" / "settings.local.json"}'
    return Finding(
        "claude-code",
        False,
        f"claude-code: no: Claude Code started in {folder} runs none of this plan's hooks: its "
        f"{layer.name} {layer.path} {said}; to fix it, {remedy}",
    )


def _codex(plan: Plan, unread: list[str]) -> Finding:
    home = codex_home()
    config = home / "config.toml"
    files = [folder / HOOKS_FILE for folder in plan.folders("codex")]
    unreadable: list[ConfigError] = []
    registered = registered_guards(files, plan.notebook, plan.plan, plan.session, unreadable)
    unread.extend(str(exc) for exc in unreadable)
    try:
        checked = check(registered, home)
    except ConfigError as exc:  # its config.toml
        fix = f"make {config} a readable TOML file, then run: jupyter-plans hook doctor codex"
        return Finding("codex", False, f"codex: no: {exc}, and Codex cannot read it either; {fix}")
    if checked is None:
        fix = f"jupyter-plans hook install codex {plan.words} --trust"
        return Finding(
            "codex",
            False,
            f"codex: no: no .codex/hooks.json in {plan.folders('codex')[0]} or a folder above "
            f"it registers this plan's hooks; to fix it, run in the folder you start Codex in: "
            f"{fix}",
            registered=False,
        )
    project = checked.hooks_file.parent.parent
    fix = f"cd {shlex.quote(str(project))} && jupyter-plans hook install codex {plan.words} --trust"
    if checked.runs:
        return Finding(
            "codex",
            True,
            f"codex: yes: Codex runs this plan's hooks when started in {project}: they are "
            f"registered in {checked.hooks_file}, and {config} trusts them and the project",
        )
    if checked.hook_reason is not None:
        said = (
            f"this plan's guard hook in {checked.hooks_file} is {checked.hook_reason} in "
            f"{config}, and Codex skips it without a word"
        )
    else:
        said = (
            f"Codex 0.167 and later load {project}/.codex/ only in a project you trust, and "
            f"{project} is {checked.project_reason} in {config}"
        )
    return Finding("codex", False, f"codex: no: {said}; to fix it, run: {fix}")


def present(plan: Plan) -> list[str]:
    """The hosts this plan's hooks are registered or recorded for; both when none is."""
    found = [h for h in HOSTS if h in plan.installed or diagnose(h, plan).registered]
    return found or list(HOSTS)


def doctor(argv: list[str], parser_class, add_where) -> int:
    parser = parser_class(
        prog="jupyter-plans hook doctor",
        description="Say, one line per agent, whether it will run this plan's hooks here, "
        "from what the agent itself reads; exit 0 when all hold, 1 otherwise.",
    )
    parser.add_argument("host", nargs="?", choices=HOSTS, metavar="HOST", help=" or ".join(HOSTS))
    add_where(parser)
    args = parser.parse_args(argv)
    plan = plan_of(args.notebook, args.db, args.session)
    findings = [diagnose(host, plan) for host in ([args.host] if args.host else present(plan))]
    for finding in findings:
        print(finding.line)
    return 0 if all(finding.holds for finding in findings) else 1
