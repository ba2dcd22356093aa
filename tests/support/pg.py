"""PostgreSQL databases for tests: empty ones, and clones of one migrated template.

Migrating a database costs about a second; ``CREATE DATABASE ... TEMPLATE`` copies a
migrated one in a fraction of that. Each test session migrates one template of its own
(a name with a random part, so sessions of different engineers never share it: a
template cannot be copied while another session is connected to it) and drops it at the
end.

Without a reachable PostgreSQL a test is skipped on a developer's machine, but under CI
(``CI=true``) it fails: a green CI run must mean the PostGIS tests ran.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import psycopg
import pytest

PG_ADMIN_URL = os.environ.get(
    "VIGIA_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/vigia_test"
)


def unavailable(reason: str) -> NoReturn:
    """Fail, loudly, here and under CI alike: a test that needs PostGIS, NATS, a tool
    scripts/setup.sh installs, never passes by skipping (a skipped run reads as green)."""
    pytest.fail(f"{reason}: the suite needs it (scripts/setup.sh installs it)", pytrace=False)


def require(tool: str, why: str) -> str:
    """The path of ``tool`` on PATH, or a failure naming what needs it."""
    path = shutil.which(tool)
    if path is None:
        unavailable(f"{tool} is not installed ({why})")
    return path


def dsn(url: str) -> str:
    """The libpq form of a SQLAlchemy URL."""
    return url.replace("postgresql+psycopg://", "postgresql://")


def url_of(name: str) -> str:
    """The SQLAlchemy URL of database ``name`` on the test server."""
    return f"{PG_ADMIN_URL.rpartition('/')[0]}/{name}"


def _admin() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(dsn(PG_ADMIN_URL), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        unavailable(f"PostgreSQL at {PG_ADMIN_URL} is not reachable: {exc}")


@contextmanager
def database(template: str | None = None) -> Iterator[str]:
    """A new database (with PostGIS), a copy of ``template`` if given; dropped after."""
    name = f"vigia_t_{uuid.uuid4().hex[:12]}"
    with _admin() as conn:
        copy = f' TEMPLATE "{template}"' if template else ""
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    try:
        if template is None:
            with psycopg.connect(dsn(url_of(name)), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS postgis")
        yield url_of(name)
    finally:
        with _admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def migrated_template() -> Iterator[str]:
    """A migrated database to copy from; yields its name."""
    from vigia.service.db.store import open_repository

    with database() as url:
        repo = open_repository(url)
        try:
            repo.migrate()
        finally:
            repo.close()  # a template with a connection open cannot be copied
        yield url.rpartition("/")[2]
