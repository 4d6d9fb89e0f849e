"""Where a store is: a plan file's path or a PostgreSQL URL, read once for the store and for the
hooks' read-only one, and a URL shown to a person without its password."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import PlanStoreError
from .locate import hide_password

if TYPE_CHECKING:
    from sqlalchemy.engine import URL


def place_of(url_or_path: str | os.PathLike) -> Path | URL:
    """The plan file's absolute path (a path, or a sqlite:///PATH URL), or a PostgreSQL URL;
    anything else is refused in one line. SQLAlchemy is imported only for a URL."""
    text = os.fspath(url_or_path)
    if "://" not in text:
        return Path(text).expanduser().absolute()
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise PlanStoreError(
            f"cannot read the database URL {hide_password(text)!r}: {exc}"
        ) from None
    backend = url.get_backend_name()
    if backend == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(url.database).expanduser().absolute()
    if backend in ("postgresql", "postgres"):
        return url
    raise PlanStoreError(
        f"unsupported database {url.render_as_string(hide_password=True)!r}; give a path, "
        "a sqlite:///PATH URL or a postgresql+psycopg:// URL"
    )
