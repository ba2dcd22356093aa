"""Shared test fixtures: paths to real data and database URLs for both stores."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import pg

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# the shared reference data beside the checkout; a clone made elsewhere finds it at
# VIGIA_SHARED (or the workplace's /work/shared) instead of failing on a missing folder
SHARED = Path(os.environ.get("VIGIA_SHARED", ROOT.parent / "shared"))
if not SHARED.is_dir() and Path("/work/shared").is_dir():
    SHARED = Path("/work/shared")
PG_ADMIN_URL = pg.PG_ADMIN_URL

# the suite builds hundreds of apps in one process: a frozen heap would keep every one
# of them (settings.ApiSettings.gc_freeze); served processes it starts inherit this too
os.environ.setdefault("VIGIA_API_GC_FREEZE", "false")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--regen-golden`` rewrites tests/golden/*.jsonl from the current code."""
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite the golden outputs in tests/golden/ instead of comparing with them",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` run first (the sort keeps their order otherwise): with
    several workers (scripts/test.sh), a long module that starts last ends the run last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites golden files (also VIGIA_REGEN_GOLDEN=1)."""
    flag: bool = request.config.getoption("--regen-golden")
    return flag or os.environ.get("VIGIA_REGEN_GOLDEN") == "1"


@pytest.fixture
def fixtures() -> Path:
    """Folder of real NMEA files and other test inputs."""
    return FIXTURES


@pytest.fixture
def fresh_pg_url() -> Iterator[str]:
    """A new, empty PostgreSQL database with PostGIS, dropped afterwards (for tests of
    migrations themselves; others want ``migrated_pg_url``)."""
    with pg.database() as url:
        yield url


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """This session's migrated template database (see tests/support/pg.py)."""
    with pg.migrated_template() as name:
        yield name


@pytest.fixture
def migrated_pg_url(pg_template: str) -> Iterator[str]:
    """A new PostGIS database at the newest schema, copied from the template."""
    with pg.database(template=pg_template) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL for each store: an embedded SQLite file, and a migrated PostGIS db."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'vigia.sqlite'}"
    url: str = request.getfixturevalue("migrated_pg_url")
    return url
