"""Storage test fixtures: a migrated repository on each store, and a private PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.storage.pgcluster import PrivateCluster, private_cluster
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository


def migrated(url: str) -> Iterator[SqlRepository]:
    """Open and migrate the repository at ``url``; close it afterwards."""
    r = open_repository(url)
    assert isinstance(r, SqlRepository)
    r.migrate()
    yield r
    r.close()


@pytest.fixture
def repo(store_url: str) -> Iterator[SqlRepository]:
    """A migrated repository on the store under test (SQLite file or fresh PostGIS)."""
    yield from migrated(store_url)


@pytest.fixture(params=["sqlite", "postgis"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each store, for tests of migrations from an older revision."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.sqlite'}"
    url: str = request.getfixturevalue("fresh_pg_url")
    return url


@pytest.fixture
def private_pg() -> Iterator[PrivateCluster]:
    """A throwaway PostgreSQL cluster of our own (never the machine's main server)."""
    yield from private_cluster()
