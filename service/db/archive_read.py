"""Reading the GeoParquet archive, and merging it with the store's rows.

Read with pyarrow datasets rather than DuckDB: pyarrow already writes the archive, so
the service carries one Parquet engine, not two; the queries it needs (one vessel's
rows in a time range, the vessels inside a box) are filters that Parquet's row-group
statistics answer, since each file is sorted by MMSI then time and has a bbox column;
and DuckDB's spatial extension is fetched from the network at run time, which an
offline monitoring centre cannot do. DuckDB remains the analysts' tool over the same
files (docs/archive.md), and the tests read the archive with it.

Each file is read as a fragment of its own, opened by ``archive_files`` (which checks
what it is first): a bad file costs the answer its day, named in an ``ArchiveGaps``,
never the whole answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vigia.ingest.records import Position
from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps, day_range, scan
from vigia.service.db.archive_format import SCHEMA, positions_from_table

BBox = tuple[float, float, float, float]
_READ = ["mmsi", "t", "msg_type", "sog", "cog", "heading", "nav_status", "accuracy", "source"]


def _rows(fh: BinaryIO, flt: pc.Expression, columns: list[str]) -> pa.Table:
    # typed as the archive's: a foreign file fails here, inside the file's own guard,
    # and files written with other integer widths still concatenate
    tab = scan(fh, columns, flt)
    return pa.table({c: tab.column(c).cast(SCHEMA.field(c).type) for c in columns})


def covering_filter(bbox: BBox) -> pc.Expression:
    """Rows whose ``bbox`` covering meets ``bbox``: the row groups' statistics skip the
    groups outside, and a point's covering is the point rounded outwards to float32 (so
    this admits at most a metre more than the point itself would)."""
    x0, y0, x1, y1 = bbox
    return (
        (pc.field("bbox", "xmax") >= x0)
        & (pc.field("bbox", "xmin") <= x1)
        & (pc.field("bbox", "ymax") >= y0)
        & (pc.field("bbox", "ymin") <= y1)
    )


def box_filter(bbox: BBox) -> pc.Expression:
    """Rows whose point lies inside ``bbox`` (inclusive): the covering prunes row
    groups, the point itself decides."""
    x0, y0, x1, y1 = bbox
    return (
        covering_filter(bbox)
        & (pc.field("geometry", "x") >= x0)
        & (pc.field("geometry", "x") <= x1)
        & (pc.field("geometry", "y") >= y0)
        & (pc.field("geometry", "y") <= y1)
    )


class ArchiveReader:
    """The archive under ``root`` (which may not exist yet: then it is empty).

    A file that cannot be read leaves the answer without it, never fails it: the reads
    take an ``ArchiveGaps`` that names its day (``archive_files`` moves it aside)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = ArchiveFolder(root)

    def _table(
        self,
        start: float | None,
        end: float | None,
        flt: pc.Expression,
        columns: list[str],
        gaps: ArchiveGaps | None,
    ) -> pa.Table:
        gaps = ArchiveGaps() if gaps is None else gaps
        first, last = day_range(start, end)
        read = partial(_rows, flt=flt, columns=columns)
        tables = [
            tab
            for day, path in self.folder.files(first, last, gaps)
            if (tab := self.folder.read(day, path, read, gaps)) is not None
        ]
        if not tables:
            return pa.table({c: pa.array([], SCHEMA.field(c).type) for c in columns})
        return pa.concat_tables(tables)

    def track(
        self,
        mmsi: int,
        start: float | None,
        end: float | None,
        limit: int | None,
        gaps: ArchiveGaps | None = None,
    ) -> list[Position]:
        """One vessel's archived positions between two times (inclusive), oldest first,
        the first ``limit`` of them (all when None)."""
        flt = pc.field("mmsi") == mmsi
        if start is not None:
            flt = flt & (pc.field("t") >= start)
        if end is not None:
            flt = flt & (pc.field("t") <= end)
        tab = self._table(start, end, flt, [*_READ, "geometry"], gaps).sort_by("t")
        if limit is not None:
            tab = tab.slice(0, limit)
        return positions_from_table(tab)

    def vessels_in_bbox(
        self, bbox: BBox, start: float, end: float, gaps: ArchiveGaps | None = None
    ) -> set[int]:
        """MMSIs with an archived position inside ``bbox`` (inclusive) between two times
        (inclusive). The bbox column prunes row groups; the point itself decides."""
        flt = (pc.field("t") >= start) & (pc.field("t") <= end) & box_filter(bbox)
        tab = self._table(start, end, flt, ["mmsi"], gaps)
        return {int(m) for m in pc.unique(tab.column("mmsi")).to_pylist()}

    def count(self) -> int:
        """How many positions the archive's readable files hold (from their footers)."""
        gaps = ArchiveGaps()
        rows = [
            self.folder.read(day, path, lambda fh: pq.read_metadata(fh).num_rows, gaps)
            for day, path in self.folder.files(None, None, gaps)
        ]
        return sum(n or 0 for n in rows)

    def size_bytes(self) -> int:
        """Bytes the archive's readable files take."""
        files = self.folder.files(None, None, ArchiveGaps())
        return sum(path.lstat().st_size for _, path in files)


def merge_tracks(hot: Iterable[Position], cold: Iterable[Position]) -> list[Position]:
    """One vessel's positions from the store and the archive, by time, each once (a
    position in both, left by an interrupted archive run, is the store's)."""
    by_t = {p.t: p for p in cold}
    by_t.update((p.t, p) for p in hot)
    return [by_t[t] for t in sorted(by_t)]
