"""The engines every store and session test runs on: a SQLite file, and a PostgreSQL server.

PostgreSQL is found at $JUPYTER_PLANS_TEST_POSTGRES (a SQLAlchemy URL; `make test` starts a
throwaway server on a free port of 127.0.0.1 and sets it). Each test gets a schema of its own,
dropped afterwards. Without a server the PostgreSQL tests fail in CI and skip, with the reason,
elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest

POSTGRES_ENV = "JUPYTER_PLANS_TEST_POSTGRES"
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5433/postgres"
ENGINES = ("sqlite", "postgresql")


def postgres_base_url() -> str:
    return os.environ.get(POSTGRES_ENV) or DEFAULT_POSTGRES


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is required in CI: {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def postgres_schema():
    """A fresh schema on the test server; yields a URL whose search_path is that schema."""
    try:
        import psycopg
    except ImportError:
        _unavailable("psycopg is not installed (pip install 'jupyter-plans[postgres]')")
    from sqlalchemy.engine import make_url

    url = make_url(postgres_base_url())
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    schema = f"t_{uuid.uuid4().hex[:16]}"
    try:
        admin = psycopg.connect(plain, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        _unavailable(f"no PostgreSQL server at {url.render_as_string()}: {exc}".split("\n")[0])
    with admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
                hide_password=False
            )
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextlib.contextmanager
def database(engine: str, tmp_path):
    """A fresh, empty store location for `engine`: a path, or a PostgreSQL URL."""
    if engine == "sqlite":
        yield str(tmp_path / "a.plans.sqlite")
    else:
        with postgres_schema() as url:
            yield url


def dump_tables(location: str) -> dict:
    """Every row of every plan table, to compare a store before and after, on any engine."""
    from sqlalchemy import create_engine, inspect, text

    url = location if "://" in location else f"sqlite:///{location}"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            names = sorted(n for n in inspect(conn).get_table_names() if n.startswith("plans_"))
            return {
                n: sorted(map(repr, conn.execute(text(f"SELECT * FROM {n}")).all())) for n in names
            }
    finally:
        engine.dispose()
