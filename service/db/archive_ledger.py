"""The store's record of the days it moved to the archive, and the check against it.

Once a day has left the store, the archive's files are its only copy: a day missing
from the folder (a backup of the store and the archive taken at different moments, an
archive folder that followed the working directory, a file deleted by hand) was silent,
since nothing else knew the day had been there. The archiver now records, before it
drops a day, how many positions that day's files hold (``archived_days``), and the check
compares the folder with that record: a day short of it is a hole, a day holding more
is a double (a file copied in twice); days in the folder the store never recorded
(archived before the record existed) are listed apart.

Counts come from the files' footers, which is cheap enough for every start; ``exact``
also reads each day's (MMSI, time) pairs to count doubled positions, and looks for
archived days the store still holds (an interrupted run; harmless, reads take them once).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine

from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps, scan
from vigia.service.db.archive_format import DAY_S, day_name
from vigia.service.db.models import ArchivedDayRow

_R = ArchivedDayRow


def record_day(engine: Engine, day: int, positions: int) -> None:
    """Note that the archive's files of ``day`` hold ``positions`` positions; never
    lowers what was noted (a file of the day lost since is a hole, not a new count)."""
    with engine.begin() as conn:
        record_days(conn, {day: positions})


def record_days(conn: Connection, days: Mapping[int, int]) -> None:
    """``record_day`` for many days in one transaction."""
    if not days:
        return
    pg = conn.dialect.name == "postgresql"
    now = time.time()
    rows = [{"day": d, "positions": n, "recorded_at": now} for d, n in days.items()]
    ins = (pg_insert if pg else sqlite_insert)(_R).values(rows)
    bigger = ins.excluded.positions > _R.positions
    conn.execute(
        ins.on_conflict_do_update(
            index_elements=["day"],
            set_={"positions": ins.excluded.positions, "recorded_at": now},
            where=bigger,
        )
    )


def recorded(conn: Connection) -> dict[int, int]:
    """Every recorded day and its positions."""
    return {int(d): int(n) for d, n in conn.execute(select(_R.day, _R.positions))}


def folder_rows(root: Path) -> dict[int, int]:
    """Positions each day's readable files hold, from their footers (bad files are
    moved aside as any read would, and not counted)."""
    folder = ArchiveFolder(root)
    gaps = ArchiveGaps()
    out: dict[int, int] = {}
    for day, path in folder.files(None, None, gaps):
        n = folder.read(day, path, lambda fh: pq.read_metadata(fh).num_rows, gaps)
        out[day] = out.get(day, 0) + (n or 0)
    return out


@dataclass(slots=True)
class ArchiveCheck:
    """What the folder lacks or holds twice, against the store's record."""

    missing: dict[int, tuple[int, int]] = field(default_factory=dict)  # day: (noted, found)
    doubled: dict[int, tuple[int, int]] = field(default_factory=dict)  # day: (noted, found)
    unrecorded: dict[int, int] = field(default_factory=dict)  # day: found
    duplicates: dict[int, int] = field(default_factory=dict)  # day: positions twice (exact)
    in_store_too: list[int] = field(default_factory=list)  # exact only

    @property
    def holes(self) -> list[str]:
        """The missing days, ``YYYY-MM-DD``."""
        return [day_name(d) for d in sorted(self.missing)]

    def json(self) -> dict[str, Any]:
        """The check as JSON (days as ``YYYY-MM-DD``)."""

        def pairs(d: dict[int, tuple[int, int]]) -> list[dict[str, Any]]:
            return [
                {"day": day_name(k), "recorded": v[0], "found": v[1]} for k, v in sorted(d.items())
            ]

        return {
            "missing_days": pairs(self.missing),
            "doubled_days": pairs(self.doubled),
            "unrecorded_days": [
                {"day": day_name(k), "found": v} for k, v in sorted(self.unrecorded.items())
            ],
            "duplicate_positions": [
                {"day": day_name(k), "positions": v} for k, v in sorted(self.duplicates.items())
            ],
            "days_also_in_store": [day_name(d) for d in self.in_store_too],
        }


def check(engine: Engine, root: Path, *, exact: bool = False) -> ArchiveCheck:
    """Compare the archive under ``root`` with the store's record of it."""
    with engine.connect() as conn:
        noted = recorded(conn)
    found = folder_rows(root)
    out = ArchiveCheck()
    for day, n in noted.items():
        have = found.get(day, 0)
        if have < n:
            out.missing[day] = (n, have)
        elif have > n:
            out.doubled[day] = (n, have)
    out.unrecorded = {d: n for d, n in found.items() if d not in noted}
    if exact:
        out.duplicates = _duplicates(root, sorted(found))
        out.in_store_too = _in_store(engine, sorted(found))
    return out


def _duplicates(root: Path, days: list[int]) -> dict[int, int]:
    folder = ArchiveFolder(root)
    out = {}
    for day in days:
        gaps = ArchiveGaps()
        seen: set[tuple[int, float]] = set()
        total = 0
        for d, path in folder.files(day, day, gaps):
            tab = folder.read(d, path, lambda fh: scan(fh, ["mmsi", "t"]), gaps)
            if tab is not None:
                total += tab.num_rows
                seen.update(zip(tab["mmsi"].to_pylist(), tab["t"].to_pylist(), strict=True))
        if total > len(seen):
            out[day] = total - len(seen)
    return out


def _in_store(engine: Engine, days: list[int]) -> list[int]:
    probe = text("SELECT 1 FROM positions WHERE t >= :lo AND t < :hi LIMIT 1")
    with engine.connect() as conn:
        return [
            d for d in days if conn.execute(probe, {"lo": d * DAY_S, "hi": (d + 1) * DAY_S}).first()
        ]
