"""`vigia archive --older-than DAYS`: move old positions to the GeoParquet archive."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vigia.service.settings import ArchiveSettings, DatabaseSettings, archive_path

if TYPE_CHECKING:
    from vigia.service.db.archive_files import BadEntry


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "archive",
        help="move positions older than DAYS from the store to the GeoParquet archive",
        description=(
            "Move every UTC day of positions that ended at least DAYS ago from the store "
            "to VIGIA_ARCHIVE_DIR (one GeoParquet folder per day), checking each day's "
            "files before the day leaves the store. Safe to interrupt and rerun. Leads, "
            "the procedure and ballast audits stay in the store. A bad entry met in the "
            "archive (corrupt, not Parquet, a link or fifo) is moved into its _quarantine "
            "folder and listed as a bad_file line."
        ),
    )
    p.add_argument("--older-than", type=float, metavar="DAYS", help="age in days (> 0)")
    p.add_argument(
        "--verify",
        action="store_true",
        help="move nothing: list the days the folder lacks (holes) or holds twice (doubles) "
        "against the store's record of what it archived; exit 1 if any",
    )
    p.add_argument(
        "--index",
        action="store_true",
        help="move nothing: write the cell index (which vessels were heard where, read by "
        "backtests) of every archived file that has none, such as days archived before it; "
        "one JSON line per file",
    )
    p.add_argument("--archive-dir", default=None, help="archive folder (VIGIA_ARCHIVE_DIR)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Archive the configured store; one JSON line per day moved, and one per bad entry
    met in the archive (``bad_file``, relative to the archive; ``moved_to`` is null when
    it was left in place)."""
    from vigia.service.db.archive import Archiver
    from vigia.service.db.repository import SqlRepository
    from vigia.service.db.store import open_repository
    from vigia.service.errors import RequestInvalidError

    if args.verify:
        return _verify(args)
    if args.index:
        return _index(args)
    if args.older_than is None or not args.older_than > 0:
        raise RequestInvalidError("--older-than must be more than 0 days")
    db, root = _store_and_root(args)
    repo = open_repository(db.url, sqlite_path=db.sqlite_path)
    try:
        repo.migrate()
        assert isinstance(repo, SqlRepository)
        archiver = Archiver(repo.engine, root)
        try:
            reports = archiver.run(args.older_than)
        finally:  # what was moved aside, even when a day then failed
            for bad in archiver.bad:
                print(json.dumps(_bad_line(bad, root)))
        for report in reports:
            print(
                json.dumps({"day": report.day, "stored": report.stored, "written": report.written})
            )
    finally:
        repo.close()
    return 0


def _store_and_root(args: argparse.Namespace) -> tuple[DatabaseSettings, Path]:
    """The configured store and its archive folder (``--archive-dir`` over the setting)."""
    db = DatabaseSettings()
    settings = ArchiveSettings()
    if args.archive_dir:
        settings.archive_dir = args.archive_dir
    return db, archive_path(settings, db)


def _verify(args: argparse.Namespace) -> int:
    from sqlalchemy import create_engine

    from vigia.service.db.archive_ledger import check

    db, root = _store_and_root(args)
    engine = create_engine(db.url or f"sqlite:///{Path(db.sqlite_path)}")
    try:
        found = check(engine, root, exact=True).json()
    finally:
        engine.dispose()
    print(json.dumps({"archive": str(root), **found}))
    bad = found["missing_days"] or found["doubled_days"] or found["duplicate_positions"]
    return 1 if bad else 0


def _index(args: argparse.Namespace) -> int:
    from vigia.service.db.archive import Archiver
    from vigia.service.db.archive_files import ArchiveFolder
    from vigia.service.db.archive_index import index_missing
    from vigia.service.db.repository import SqlRepository
    from vigia.service.db.store import open_repository

    db, root = _store_and_root(args)
    repo = open_repository(db.url, sqlite_path=db.sqlite_path)
    try:
        assert isinstance(repo, SqlRepository)
        archiver = Archiver(repo.engine, root)
        with archiver.hold():  # no archive run writes a day meanwhile
            done = index_missing(ArchiveFolder(root, on_bad=archiver.bad.append))
        for bad in archiver.bad:
            print(json.dumps(_bad_line(bad, root)))
        for x in done:
            print(json.dumps({"indexed": str(x.part.relative_to(root)), "positions": x.positions,
                              "written": x.index is not None}))  # fmt: skip
    finally:
        repo.close()
    return 1 if any(x.index is None for x in done) else 0


def _bad_line(bad: BadEntry, root: Path) -> dict[str, Any]:
    from vigia.service.db.archive_format import day_name

    return {
        "bad_file": str(bad.path.relative_to(root)),
        "day": None if bad.day is None else day_name(bad.day),
        "reason": bad.reason,
        "moved_to": None if bad.moved_to is None else str(bad.moved_to.relative_to(root)),
    }
