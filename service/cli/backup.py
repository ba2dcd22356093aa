"""`vigia backup DEST`, `vigia backup --verify DEST` and `vigia restore SRC`.

The place backed up or restored into is the one the settings name, as for `vigia
serve`: DATABASE_URL (or VIGIA_SQLITE_PATH), VIGIA_ARCHIVE_DIR (or its default beside
the store) and the writer's spool (VIGIA_INGEST_SPOOL_DIR). docs/operations.md,
"Backup and restore", walks through both stores.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vigia.service.settings import (
    ArchiveSettings,
    DatabaseSettings,
    IngestSettings,
    archive_path,
    spool_path,
)


def register(sub: Any) -> None:
    """Add `backup` and `restore` to the parser."""
    b: argparse.ArgumentParser = sub.add_parser(
        "backup",
        help="copy the store, the archive and the spool, as of one moment, into DEST",
        description=(
            "Copy the configured store (SQLite: the online backup API; PostGIS: pg_dump "
            "-Fc), its archive and its spool into the new folder DEST, with a manifest "
            "(counts per table and archived day, SHA-256 of every file, code and schema "
            "versions), while the service runs; archive runs wait meanwhile. With "
            "--verify, check an existing backup against its manifest instead."
        ),
    )
    b.add_argument("dest", type=Path, metavar="DEST")
    b.add_argument("--verify", action="store_true", help="check the backup in DEST")
    b.add_argument(
        "--fingerprint",
        action="store_true",
        help="also hash every table's rows (restore then checks them; reads every row)",
    )
    b.set_defaults(func=run_backup)
    r: argparse.ArgumentParser = sub.add_parser(
        "restore",
        help="put a backup back into the configured store, archive and spool",
        description=(
            "Verify the backup in SRC, then restore it into the place the settings name "
            "(creating the database or folders), start a new event-id epoch and print "
            "what was restored. A target holding anything is refused unless --force, "
            "which moves it aside (never deletes it). Stop the service first."
        ),
    )
    r.add_argument("src", type=Path, metavar="SRC")
    r.add_argument("--force", action="store_true", help="move a non-empty target aside")
    r.set_defaults(func=run_restore)


def _place() -> Any:
    from vigia.service.db.backup import Place

    db = DatabaseSettings()
    url = db.url or f"sqlite:///{Path(db.sqlite_path).resolve()}"
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    return Place(url, archive_path(ArchiveSettings(), db), spool_path(IngestSettings(), db))


def run_backup(args: argparse.Namespace) -> int:
    """Take (or verify) a backup; one JSON object on stdout."""
    from vigia.service.db import backup

    if args.verify:
        problems = backup.verify(args.dest)
        manifest = backup.load_manifest(args.dest)
        print(json.dumps({"verified": str(args.dest), "ok": not problems, "problems": problems,
                          "store": manifest["store"]["kind"],
                          "tables": manifest["store"]["tables"]}))  # fmt: skip
        return 1 if problems else 0
    manifest = backup.take(_place(), args.dest, fingerprint=args.fingerprint)
    days = manifest["archive"]["days"]
    summary = {
        "backup": str(args.dest),
        "store": manifest["store"]["kind"],
        "bytes": manifest["store"]["bytes"],
        "tables": manifest["store"]["tables"],
        "last_event_id": manifest["store"]["events"].get("last_event_id"),
        "archive_days": len(days),
        "archive_positions": sum(d["positions"] for d in days.values()),
        "spool_files": len(manifest["spool"]["files"]),
        "took_s": manifest["took_s"],
    }
    print(json.dumps(summary))
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore; one JSON object on stdout saying what was restored."""
    from vigia.service.db.restore import restore

    report = restore(args.src, _place(), force=args.force)
    print(json.dumps(report, indent=1))
    if report["archive_check"]["missing_days"]:
        print("vigia: the archive lacks days the store recorded", file=sys.stderr)
        return 1
    return 0
