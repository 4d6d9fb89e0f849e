"""`jupyter-plans hook doctor [HOST] --notebook NB`: whether each agent will run this plan's
hooks here, read from what the agent itself reads (DESIGN section 15), one line per agent;
exit 0 when all hold, 1 otherwise, each line that does not hold with what fixes it.

What each host reads is its module's `diagnose` (agents/hosts/). The folders looked at are the
notebook's and those above it, and those the plan file says the hooks were installed in.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from pathlib import Path

from ..agents.hosts.reading import Finding, Plan
from ..agents.hosts.registry import HOSTS


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
    finding = HOSTS[host].diagnose(plan, unread)
    if not unread:
        return finding
    # A FIFO, a device, too large or too deep: the agent cannot read it either; said in the
    # host's one line, once each.
    said = "; ".join(dict.fromkeys(unread))
    return Finding(host, finding.holds, f"{finding.line} (not read: {said})", finding.registered)


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
