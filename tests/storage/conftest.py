"""Storage test fixtures: a migrated repository on each store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.db.repository import SqlRepository
from service.store import open_repository


@pytest.fixture
def repo(store_url: str) -> Iterator[SqlRepository]:
    """A migrated repository on the store under test (SQLite file or fresh PostGIS)."""
    r = open_repository(store_url)
    assert isinstance(r, SqlRepository)
    r.migrate()
    yield r
    r.close()
