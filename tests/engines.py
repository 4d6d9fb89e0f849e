"""The engines every store and session test runs on: a SQLite file, and a PostgreSQL server;
the store's and session's own tests also run through PgBouncer in transaction pooling.

PostgreSQL is found at $JUPYTER_PLANS_TEST_POSTGRES (a SQLAlchemy URL; `make test` starts a
throwaway server on a free port of 127.0.0.1 and sets it). Each test gets a schema of its own,
dropped afterwards. PgBouncer is found at $JUPYTER_PLANS_TEST_PGBOUNCER (`make test` starts it in
front of that server); it takes no search_path from a client, so each test gets a database of
its own there, and its listener the server's own address (plans_listen), as a team sets it up.
Without a server the tests that need one fail in CI and skip, with the reason, elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest

from tests.lanes import needs

POSTGRES_ENV = "JUPYTER_PLANS_TEST_POSTGRES"
PGBOUNCER_ENV = "JUPYTER_PLANS_TEST_PGBOUNCER"
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5433/postgres"
ENGINES = ("sqlite", "postgresql")
WITH_PGBOUNCER = (*ENGINES, "pgbouncer")  # the store's and the session's own tests


def postgres_base_url() -> str:
    return os.environ.get(POSTGRES_ENV) or DEFAULT_POSTGRES


def _unavailable(reason: str, what: str = "PostgreSQL"):
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI: {reason}")
    pytest.skip(reason)


def _admin():
    """An autocommit connection to the test server's own database, or the test's end."""
    needs("postgres", "PostgreSQL")
    try:
        import psycopg
    except ImportError:
        _unavailable("psycopg is not installed (pip install 'jupyter-plans[postgres]')")
    from sqlalchemy.engine import make_url

    url = make_url(postgres_base_url())
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        return psycopg.connect(plain, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        _unavailable(f"no PostgreSQL server at {url.render_as_string()}: {exc}".split("\n")[0])


@contextlib.contextmanager
def postgres_schema():
    """A fresh schema on the test server; yields a URL whose search_path is that schema."""
    from sqlalchemy.engine import make_url

    url = make_url(postgres_base_url())
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with _admin() as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
                hide_password=False
            )
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextlib.contextmanager
def pgbouncer_database(listen: bool = True):
    """A fresh database on the test server, reached through PgBouncer; yields its URL there,
    whose listener goes to the server itself (plans_listen) unless `listen` is False."""
    from sqlalchemy.engine import make_url

    needs("postgres", "PgBouncer")
    bouncer = os.environ.get(PGBOUNCER_ENV)
    if not bouncer:
        _unavailable(f"no PgBouncer: ${PGBOUNCER_ENV} is unset (make test starts it)", "PgBouncer")
    server = make_url(postgres_base_url())
    name = f"t_{uuid.uuid4().hex[:16]}"
    with _admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            url = make_url(bouncer).set(database=name)
            if listen:
                address = f"{server.host}:{server.port or 5432}"
                url = url.update_query_dict({"plans_listen": address})
            yield url.render_as_string(hide_password=False)
        finally:  # PgBouncer's server connections to it end with it
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@contextlib.contextmanager
def database(engine: str, tmp_path):
    """A fresh, empty store location for `engine`: a path, or a PostgreSQL URL."""
    if engine == "sqlite":
        yield str(tmp_path / "a.plans.sqlite")
    elif engine == "pgbouncer":
        with pgbouncer_database() as url:
            yield url
    else:
        with postgres_schema() as url:
            yield url


def dump_tables(location: str) -> dict:
    """Every row of every plan table, to compare a store before and after, on any engine."""
    from sqlalchemy import create_engine, inspect, text
    from sqlalchemy.engine import make_url

    url = make_url(location if "://" in location else f"sqlite:///{location}")
    engine = create_engine(url.difference_update_query(["plans_listen"]))  # ours, not libpq's
    try:
        with engine.connect() as conn:
            names = sorted(n for n in inspect(conn).get_table_names() if n.startswith("plans_"))
            return {
                n: sorted(map(repr, conn.execute(text(f"SELECT * FROM {n}")).all())) for n in names
            }
    finally:
        engine.dispose()


def server(url: str):
    """An autocommit connection to the database `url` names, on the server itself."""
    import psycopg
    from sqlalchemy.engine import make_url

    database = make_url(url).database
    direct = make_url(postgres_base_url()).set(drivername="postgresql", database=database)
    return psycopg.connect(direct.render_as_string(hide_password=False), autocommit=True)


def connections(direct, tag: str) -> list[tuple[str, object]]:
    """(the query each last ran, when it began) of the server's connections named `tag`."""
    return direct.execute(
        "SELECT query, backend_start FROM pg_stat_activity WHERE application_name = %s",
        (tag,),
    ).fetchall()
