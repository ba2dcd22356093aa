"""At start, the archive's days against the store's record of them (issue 38).

A day the store moved to the archive and the folder no longer holds (or holds fewer
positions of) is a hole every track across it would skip without a word: it is logged
as an error, and shown on /readyz and /metrics (``vigia_archive_missing_days``) until
the day's files are put back. A restore records the backup manifest's days first, so a
day the manifest lists and the folder lacks is named the same way.
"""

from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy.engine import Engine

from vigia.service.db.archive_format import day_name
from vigia.service.db.archive_ledger import ArchiveCheck, check

log = logging.getLogger(__name__)


def check_at_start(engine: Engine, root: Path) -> ArchiveCheck | None:
    """Check the archive under ``root``; None when the check itself failed (logged)."""
    try:
        found = check(engine, root)
    except Exception:
        log.exception("the archive %s could not be checked against the store", root)
        return None
    for day, (noted, have) in sorted(found.missing.items()):
        log.error(
            "archive day %s is missing from %s: the store moved %d positions there, the "
            "folder holds %d (restore its files: docs/operations.md, Backup and restore)",
            day_name(day), root, noted, have,
        )  # fmt: skip
    for day, (noted, have) in sorted(found.doubled.items()):
        log.warning(
            "archive day %s holds %d positions, the store moved %d there (a file twice?)",
            day_name(day), have, noted,
        )  # fmt: skip
    legacy = Path.cwd() / "vigia-archive"
    if legacy.resolve() != root.resolve() and any(legacy.glob("day=*")):
        log.warning(
            "an archive folder %s holds days, but this store's archive is %s "
            "(VIGIA_ARCHIVE_DIR / VIGIA_DATA_DIR): move its days there",
            legacy, root,
        )  # fmt: skip
    return found
