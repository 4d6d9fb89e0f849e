"""What the documentation site holds to, beyond Sphinx's own warnings (which `make docs` makes
errors): every picture under docs/ is shown by a page, and every link out of the site is one
that docs/conf.py lists (the build fetches none), well formed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)
PICTURES = ("*.png", "*.svg", "*.jpg", "*.gif")


def check_links_out(app, doctree, docname) -> None:
    listed = [re.compile(pattern) for pattern in app.config.linkcheck_ignore]
    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        if not re.match(r"[a-z][a-z0-9+.-]*:", uri):
            continue  # a page or a heading of the site: MyST checks those
        parts = urlsplit(uri)
        problem = None
        if parts.scheme != "https":
            problem = "is not https"
        elif not parts.hostname or "." not in parts.hostname:
            problem = "has no host"
        elif parts.username or parts.password:
            problem = "carries credentials"
        elif not any(pattern.fullmatch(uri) for pattern in listed):
            problem = "is not listed in docs/conf.py's linkcheck_ignore, with what it is"
        if problem:
            logger.warning(f"the link out {uri} {problem}", location=reference)


def check_pictures(app, env) -> None:
    source = Path(app.srcdir)
    shown = {(source / image).resolve() for image in env.images}
    for pattern in PICTURES:
        for picture in sorted(source.glob(pattern)):
            if picture.resolve() not in shown:
                logger.warning(f"docs/{picture.name} is shown by no page: show it, or remove it")


def setup(app):
    app.connect("doctree-resolved", check_links_out)
    app.connect("env-check-consistency", check_pictures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
