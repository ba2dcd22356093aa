"""Reading the GeoParquet archive, and merging it with the store's rows.

Read with pyarrow datasets rather than DuckDB: pyarrow already writes the archive, so
the service carries one Parquet engine, not two; the queries it needs (one vessel's
rows in a time range, the vessels inside a box) are filters that Parquet's row-group
statistics answer, since each file is sorted by MMSI then time and has a bbox column;
and DuckDB's spatial extension is fetched from the network at run time, which an
offline monitoring centre cannot do. DuckDB remains the analysts' tool over the same
files (docs/archive.md), and the tests read the archive with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from vigia.ingest.records import Position
from vigia.service.db.archive_format import (
    DAY_S,
    archived_days,
    parts,
    positions_from_table,
)

BBox = tuple[float, float, float, float]
_READ = ["mmsi", "t", "msg_type", "sog", "cog", "heading", "nav_status", "accuracy", "source"]


class ArchiveReader:
    """The archive under ``root`` (which may not exist yet: then it is empty)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _files(self, start: float | None, end: float | None) -> list[str]:
        out: list[str] = []
        for day in archived_days(self.root):
            if end is not None and day * DAY_S > end:
                continue
            if start is not None and (day + 1) * DAY_S <= start:
                continue
            out.extend(str(p) for p in parts(self.root, day))
        return out

    def _table(self, files: list[str], flt: pc.Expression, columns: list[str]) -> pa.Table:
        if not files:
            return pa.table({c: [] for c in columns})
        return ds.dataset(files, format="parquet").to_table(columns=columns, filter=flt)

    def track(
        self, mmsi: int, start: float | None, end: float | None, limit: int | None
    ) -> list[Position]:
        """One vessel's archived positions between two times (inclusive), oldest first,
        the first ``limit`` of them (all when None)."""
        flt = pc.field("mmsi") == mmsi
        if start is not None:
            flt = flt & (pc.field("t") >= start)
        if end is not None:
            flt = flt & (pc.field("t") <= end)
        files = self._files(start, end)
        if not files:
            return []
        tab = self._table(files, flt, [*_READ, "geometry"]).sort_by("t")
        if limit is not None:
            tab = tab.slice(0, limit)
        return positions_from_table(tab)

    def vessels_in_bbox(self, bbox: BBox, start: float, end: float) -> set[int]:
        """MMSIs with an archived position inside ``bbox`` (inclusive) between two times
        (inclusive). The bbox column prunes row groups; the point itself decides."""
        x0, y0, x1, y1 = bbox
        flt = (
            (pc.field("t") >= start)
            & (pc.field("t") <= end)
            & (pc.field("bbox", "xmax") >= x0)
            & (pc.field("bbox", "xmin") <= x1)
            & (pc.field("bbox", "ymax") >= y0)
            & (pc.field("bbox", "ymin") <= y1)
            & (pc.field("geometry", "x") >= x0)
            & (pc.field("geometry", "x") <= x1)
            & (pc.field("geometry", "y") >= y0)
            & (pc.field("geometry", "y") <= y1)
        )
        tab = self._table(self._files(start, end), flt, ["mmsi"])
        return {int(m) for m in pc.unique(tab.column("mmsi")).to_pylist()}

    def count(self) -> int:
        """How many positions the archive holds (from the files' footers)."""
        return sum(
            pq.read_metadata(p).num_rows
            for d in archived_days(self.root)
            for p in parts(self.root, d)
        )

    def size_bytes(self) -> int:
        """Bytes the archive's files take."""
        return sum(p.stat().st_size for d in archived_days(self.root) for p in parts(self.root, d))


def merge_tracks(hot: Iterable[Position], cold: Iterable[Position]) -> list[Position]:
    """One vessel's positions from the store and the archive, by time, each once (a
    position in both, left by an interrupted archive run, is the store's)."""
    by_t = {p.t: p for p in cold}
    by_t.update((p.t, p) for p in hot)
    return [by_t[t] for t in sorted(by_t)]
