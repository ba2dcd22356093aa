"""Storage test fixtures: a migrated repository on each store, and a private PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.storage.pgcluster import PG_BIN, PrivateCluster
from tests.support.pg import unavailable
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


@pytest.fixture
def private_pg() -> Iterator[PrivateCluster]:
    """A throwaway PostgreSQL cluster of our own (never the machine's main server)."""
    if not (PG_BIN / "initdb").exists():
        unavailable(f"initdb not found in {PG_BIN}: cannot run a private PostgreSQL")
    cluster = PrivateCluster()
    try:
        cluster.start()
        cluster.create_database()
        yield cluster
    finally:
        cluster.destroy()
