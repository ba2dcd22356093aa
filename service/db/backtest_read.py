"""The positions a backtest reads: the store and the archive for a period, only what
can matter (issue 36).

Two passes. First the vessels with a fix inside the zones' reach boxes during the
window: the archive's days outside the window are never opened, and inside a day only
the row groups whose statistics (the ``bbox`` covering, ``t``) meet a box are read,
and of them only the ``mmsi`` column. Then those vessels' tracks over the window and
its lead-in: a file is sorted by MMSI then time, so the row groups whose ``mmsi``
range holds none of them are skipped. pyarrow picks the row groups
(``split_by_row_group``), so the count of positions read is the sum of the row groups
it kept, not an estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy import bindparam, text
from sqlalchemy.engine import Engine

from vigia.ingest.records import Position
from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps, day_range, fragment
from vigia.service.db.archive_format import SCHEMA, positions_from_table
from vigia.service.db.archive_read import covering_filter, merge_tracks
from vigia.service.db.codec import POSITION_COLUMNS, row_position
from vigia.service.db.repository import _IN_BBOX_PG, _IN_BBOX_SQLITE

BBox = tuple[float, float, float, float]
_TRACK_COLS = ["mmsi", "t", "msg_type", "sog", "cog", "heading", "nav_status", "accuracy"]
_TRACKS = text(
    f"SELECT {', '.join(POSITION_COLUMNS)} FROM positions "
    "WHERE mmsi IN :mmsis AND t >= :start AND t <= :end ORDER BY mmsi, t"
).bindparams(bindparam("mmsis", expanding=True))
_CHUNK = 500  # MMSIs to a statement


@dataclass(slots=True)
class ReadCounts:
    """What a backtest read, against what the period holds."""

    archived: int = 0  # positions in the archive files of the days looked at
    archive_read: int = 0  # positions in the row groups actually read, both passes
    scan_read: int = 0  # of which by the first pass (the mmsi and bbox columns only)
    hot_read: int = 0  # positions the store returned
    files: int = 0
    row_groups: int = 0
    row_groups_read: int = 0
    gaps: ArchiveGaps = field(default_factory=ArchiveGaps)

    def as_json(self) -> dict[str, object]:
        """The counts, and the archived days that could not be read."""
        return {
            "positions_archived": self.archived,
            "positions_read_archive": self.archive_read,
            "positions_scanned_for_vessels": self.scan_read,
            "positions_read_store": self.hot_read,
            "files": self.files,
            "row_groups": self.row_groups,
            "row_groups_read": self.row_groups_read,
            "missing_days": self.gaps.json(),
        }


class PeriodReader:
    """Reads the store (``engine``) and the archive under ``folder`` (None: none) as one."""

    def __init__(self, engine: Engine, folder: ArchiveFolder | None) -> None:
        self._engine = engine
        self._pg = engine.dialect.name == "postgresql"
        self._folder = folder
        self.counts = ReadCounts()
        self._seen_files: set[str] = set()

    def _archive(
        self, start: float, end: float, flt: pc.Expression, columns: list[str]
    ) -> pa.Table | None:
        """The rows of the row groups of the days in [start, end] that ``flt``'s
        statistics admit, filtered by it."""
        if self._folder is None:
            return None
        folder, c = self._folder, self.counts
        first, last = day_range(start, end)
        tables = []

        def read(fh: BinaryIO, key: str) -> pa.Table | None:
            frag = fragment(fh)
            meta = frag.metadata
            if key not in self._seen_files:  # the period's size, counted once a file
                self._seen_files.add(key)
                c.files += 1
                c.archived += meta.num_rows
            c.row_groups += meta.num_row_groups
            parts = frag.split_by_row_group(flt)
            if not parts:
                return None
            c.row_groups_read += len(parts)
            c.archive_read += sum(rg.num_rows for p in parts for rg in p.row_groups)
            rg_ids = [rg.id for p in parts for rg in p.row_groups]
            got: pa.Table = frag.subset(row_group_ids=rg_ids).to_table(columns=columns, filter=flt)
            return pa.table({n: got.column(n).cast(SCHEMA.field(n).type) for n in columns})

        for day, path in folder.files(first, last, c.gaps):
            tab = folder.read(day, path, partial(read, key=str(path)), c.gaps)
            if tab is not None and tab.num_rows:
                tables.append(tab)
        return pa.concat_tables(tables) if tables else None

    def candidates(self, boxes: Sequence[BBox], start: float, end: float) -> set[int]:
        """Vessels with a fix inside any of the boxes between two times (inclusive)."""
        found: set[int] = set()
        sql = _IN_BBOX_PG if self._pg else _IN_BBOX_SQLITE
        with self._engine.connect() as conn:
            for box in boxes:
                params = dict(zip(("min_lon", "min_lat", "max_lon", "max_lat"), box, strict=True))
                params |= {"start": start, "end": end, "limit": 2**62}
                found |= {int(r[0]) for r in conn.execute(sql, params)}
        if boxes:
            when = (pc.field("t") >= start) & (pc.field("t") <= end)
            # the covering alone: a vessel a metre outside a reach box is replayed for
            # nothing, but the points' doubles are never decoded
            where = covering_filter(boxes[0])
            for box in boxes[1:]:
                where = where | covering_filter(box)
            before = self.counts.archive_read
            tab = self._archive(start, end, when & where, ["mmsi"])
            self.counts.scan_read += self.counts.archive_read - before
            if tab is not None:
                found |= {int(m) for m in pc.unique(tab.column("mmsi")).to_pylist()}
        return found

    def tracks(self, mmsis: Iterable[int], start: float, end: float) -> dict[int, list[Position]]:
        """Each vessel's positions between two times (inclusive), ascending, each once
        (one in both the store and the archive is the store's)."""
        wanted = sorted(set(mmsis))
        hot: dict[int, list[Position]] = {m: [] for m in wanted}
        with self._engine.connect() as conn:
            for i in range(0, len(wanted), _CHUNK):
                params = {"mmsis": wanted[i : i + _CHUNK], "start": start, "end": end}
                for r in conn.execute(_TRACKS, params):
                    hot[int(r.mmsi)].append(row_position(r._mapping))
        self.counts.hot_read += sum(len(v) for v in hot.values())
        if not wanted:
            return hot
        flt = pc.field("mmsi").isin(pa.array(wanted, pa.int64()))
        flt = flt & (pc.field("t") >= start) & (pc.field("t") <= end)
        tab = self._archive(start, end, flt, [*_TRACK_COLS, "source", "geometry"])
        if tab is None:
            return hot
        cold: dict[int, list[Position]] = {}
        for p in positions_from_table(tab.sort_by([("mmsi", "ascending"), ("t", "ascending")])):
            cold.setdefault(p.mmsi, []).append(p)
        return {m: merge_tracks(hot[m], cold.get(m, ())) for m in wanted}
