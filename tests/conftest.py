"""Shared test fixtures: paths to real data and database URLs for both stores."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"
PG_ADMIN_URL = os.environ.get(
    "VIGIA_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/vigia_test"
)


@pytest.fixture
def fixtures() -> Path:
    """Folder of real NMEA files and other test inputs."""
    return FIXTURES


def _psycopg_dsn(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


@pytest.fixture
def fresh_pg_url() -> Iterator[str]:
    """A new, empty PostgreSQL database with PostGIS, dropped afterwards.

    Each test gets its own database so tests (and developers) never collide.
    """
    psycopg = pytest.importorskip("psycopg")
    name = f"vigia_t_{uuid.uuid4().hex[:12]}"
    admin = _psycopg_dsn(PG_ADMIN_URL)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    url = f"{base}/{name}"
    with psycopg.connect(_psycopg_dsn(url), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL for each store: an embedded SQLite file, and a fresh PostGIS db."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'vigia.sqlite'}"
    url: str = request.getfixturevalue("fresh_pg_url")
    return url
