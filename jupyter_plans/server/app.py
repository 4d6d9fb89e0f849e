"""Wiring: the routes of DESIGN section 6.6, onto the handlers, with the server's plan files."""

from __future__ import annotations

import os
from typing import Any

from jupyter_server.utils import url_path_join

from .comment_route import CommentHandler
from .contents import follow_contents
from .files import PlanFiles
from .handlers import CardHandler, DecisionHandler, EventsHandler, SessionsHandler, SnapshotHandler


def setup(serverapp: Any) -> None:
    web_app = serverapp.web_app
    files = PlanFiles(os.fspath(serverapp.root_dir))
    web_app.settings["jupyter_plans_files"] = files
    follow_contents(serverapp)
    base = url_path_join(web_app.settings["base_url"], "api", "plans")
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "sessions"), SessionsHandler),
            (url_path_join(base, "snapshot"), SnapshotHandler),
            (url_path_join(base, "card"), CardHandler),
            (url_path_join(base, "events"), EventsHandler),
            (url_path_join(base, "decision"), DecisionHandler),
            (url_path_join(base, "comment"), CommentHandler),
        ],
    )
    serverapp.log.info("jupyter_plans: plan routes at %s", base)
