"""Fixtures shared by the live-delivery tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqlRepository]:
    """A migrated SQLite store of the test's own."""
    repo = open_repository(f"sqlite:///{tmp_path / 'v.sqlite'}")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    yield repo
    repo.close()
