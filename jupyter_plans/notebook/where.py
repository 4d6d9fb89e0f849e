"""`jupyter-plans where NB`: where a notebook's plan is (DESIGN section 16), as every surface finds
it: the database (its password hidden), the session id, where each came from (`setting`,
`environment` or `default`), and whether that session exists. Opening it makes nothing: a
database or a plan file that is not there is said to be missing."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import PlanStoreError
from ..store.locate import Where, add_where_options, for_command


def add_commands(commands: Any) -> None:
    """`where NB` and `sessions`."""
    found = commands.add_parser(
        "where",
        help="say where a notebook's plan is: its database, its session, where each came from "
        "and whether it exists (exit 0 when it does, 1 when not)",
    )
    found.add_argument("notebook", metavar="NB")
    found.add_argument("--db", help="a SQLAlchemy URL or the path of a plan file (a template)")
    found.add_argument("--session", metavar="SID", help="the session id (a template)")
    listing = commands.add_parser(
        "sessions", help="list the sessions of a plan file or database as JSON Lines"
    )
    add_where_options(listing)
    listing.add_argument(
        "--deleted", action="store_true", help="the sessions deleted with their notebooks instead"
    )


def run(args: argparse.Namespace) -> int:
    if args.command == "where":
        text, status = where(args.notebook, args.db, args.session)
        print(text)
        return status
    from ..session import open_plan

    store, _session = open_plan(args.notebook, args.db, args.session)
    with store:
        if args.deleted:
            from ..store.following.session_moves import deleted

            rows = deleted(store)
        else:  # a notebook's own session, where it has one of its own
            rows = store.sessions(args.session if args.notebook is None else _session.session_id)
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    return 0


def where(notebook: str, db: str | None = None, session: str | None = None) -> tuple[str, int]:
    """The lines to print, and the exit status: 0 when the session exists, 1 when not."""
    found = for_command(notebook, db, session)
    exists, why = _exists(found)
    sid = found.session if found.session is not None else "(the database's current session)"
    lines = [
        f"database: {found.shown()} ({found.database_from})",
        f"session: {sid} ({found.session_from})",
        f"exists: {'yes' if exists else 'no'}" + (f" ({why})" if why else ""),
    ]
    return "\n".join(lines), 0 if exists else 1


def _exists(found: Where) -> tuple[bool, str | None]:
    """Whether the session is there, and, when not, why, in a few words."""
    from ..store.readonly import open_read_only

    try:
        with open_read_only(found.database) as store:
            sid = found.session if found.session is not None else store.current_session_id()
            with store.read() as tx:
                row = tx.first("SELECT_HEAD", {"sid": sid})
    except PlanStoreError as exc:  # StoreMissing too: no plan file, or no plan in it
        return False, str(exc)
    return row is not None, None if row is not None else "nothing was written to it"
