"""Open the store the settings name: PostGIS for a PostgreSQL URL, else a SQLite file."""

from __future__ import annotations

from pathlib import Path

from vigia.ingest.errors import VigiaError
from vigia.service.db.archive_read import ArchiveReader
from vigia.service.db.engine import make_engine
from vigia.service.db.protocol import Repository
from vigia.service.db.repository import SqlRepository


class StoreConfigError(VigiaError):
    """A database URL Vigia cannot use."""

    code = "store-config"


def open_repository(
    url: str | None, *, sqlite_path: str = "vigia.sqlite", archive_dir: str | Path | None = None
) -> Repository:
    """A repository for ``url`` (``sqlite:///...`` or ``postgresql+psycopg://...``); with
    no URL, the embedded default, a SQLite file at ``sqlite_path``. Call ``migrate()``
    on it before use; opening never changes the schema. With ``archive_dir``, position
    reads also see the GeoParquet archive there."""
    if not url:
        url = f"sqlite:///{Path(sqlite_path)}"
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if not (url.startswith("sqlite:///") or url.startswith("postgresql+psycopg://")):
        raise StoreConfigError(
            f"unsupported database URL {url.split('://', 1)[0]}://...; "
            "use sqlite:///PATH or postgresql+psycopg://..."
        )
    archive = None if archive_dir is None else ArchiveReader(Path(archive_dir))
    return SqlRepository(make_engine(url), archive)
