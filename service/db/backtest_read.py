"""The positions a backtest reads: the store and the archive for a period, only what
can matter (issue 36).

Two passes. First the vessels with a fix inside the zones' reach boxes during the
window; the archive's days outside the window are never opened. A file with a cell
index (``archive_cells``) answers from the index rows of the boxes' cells, and the
vessels it names that nothing had found yet are checked against their own rows: only
their row groups (by the ``mmsi`` statistics), and of those only ``mmsi``, ``t`` and
the ``bbox`` covering. A file without one (archived before the index) is scanned: the
row groups whose statistics (the covering, ``t``) meet a box, those columns only. Then
those vessels' tracks over the window and its lead-in: a file is sorted by MMSI then
time, so the row groups whose ``mmsi`` range holds none of them are skipped. pyarrow
picks the row groups (``split_by_row_group``), so the count of positions read is the
sum of the row groups it kept, not an estimate. Within a row group every column is
decoded whole and the candidates' rows filtered after: pyarrow cannot read part of a
row group (it has no row ranges; apache/arrow#45284), and a column of one is one or two
of the writer's 1 MB pages.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from sqlalchemy import bindparam, text
from sqlalchemy.engine import Engine

from vigia.ingest.records import Position
from vigia.service.db import archive_cells as cells
from vigia.service.db.archive_cells import index_path
from vigia.service.db.archive_entries import open_regular
from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps, day_range, fragment
from vigia.service.db.archive_format import SCHEMA, day_name, positions_from_table
from vigia.service.db.archive_read import covering_filter, merge_tracks
from vigia.service.db.codec import POSITION_COLUMNS, row_position
from vigia.service.db.positions import box_params
from vigia.service.db.repository import _IN_BBOX_PG, _IN_BBOX_SQLITE

BBox = tuple[float, float, float, float]
_TRACK_COLS = ["mmsi", "t", "msg_type", "sog", "cog", "heading", "nav_status", "accuracy"]
_TRACKS = text(
    f"SELECT {', '.join(POSITION_COLUMNS)} FROM positions "
    "WHERE mmsi IN :mmsis AND t >= :start AND t <= :end ORDER BY mmsi, t"
).bindparams(bindparam("mmsis", expanding=True))
_CHUNK = 500  # MMSIs to a statement
log = logging.getLogger(__name__)
T = TypeVar("T")


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
    index_read: int = 0  # rows of the cell indexes read by the first pass
    files_indexed: int = 0  # files whose vessels the first pass took from their index
    #: days of which a file had no usable index: the first pass scanned it
    unindexed: set[int] = field(default_factory=set)
    named: int = 0  # vessels an index named that nothing before had found
    dropped: int = 0  # of which no row of theirs passed the scan's test
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
            "index_rows_read": self.index_read,
            "files_indexed": self.files_indexed,
            "days_scanned_without_index": [day_name(d) for d in sorted(self.unindexed)],
            "vessels_named_by_index": self.named,
            "vessels_named_not_near": self.dropped,
            "missing_days": self.gaps.json(),
        }


class PeriodReader:
    """Reads the store (``engine``) and the archive under ``folder`` (None: none) as one.

    ``index``: take the first pass's vessels from the parts' cell indexes where they have
    one (False: scan every part, as for days archived before the index; the answer is
    the same, tests/storage/test_backtest.py)."""

    def __init__(self, engine: Engine, folder: ArchiveFolder | None, *, index: bool = True) -> None:
        self._engine = engine
        self._pg = engine.dialect.name == "postgresql"
        self._folder = folder
        self._index = index
        self.counts = ReadCounts()
        self._seen_files: set[str] = set()

    def _each_file(
        self, start: float, end: float, visit: Callable[[int, Path, BinaryIO], T]
    ) -> list[T]:
        """``visit`` of each readable archive file of the days in [start, end]."""
        if self._folder is None:
            return []
        folder, c = self._folder, self.counts
        first, last = day_range(start, end)
        out = []
        for day, path in folder.files(first, last, c.gaps):
            got = folder.read(day, path, partial(visit, day, path), c.gaps)
            if got is not None:
                out.append(got)
        return out

    def _frag(self, path: Path, fh: BinaryIO) -> ds.ParquetFileFragment:
        frag = fragment(fh)
        meta, c = frag.metadata, self.counts
        if str(path) not in self._seen_files:  # the period's size, counted once a file
            self._seen_files.add(str(path))
            c.files += 1
            c.archived += meta.num_rows
        c.row_groups += meta.num_row_groups
        return frag

    def _rows(
        self, frag: ds.ParquetFileFragment, flt: pc.Expression, columns: list[str]
    ) -> pa.Table | None:
        """The rows ``flt`` admits, of the row groups whose statistics it admits."""
        parts = frag.split_by_row_group(flt)
        if not parts:
            return None
        c = self.counts
        c.row_groups_read += len(parts)
        c.archive_read += sum(rg.num_rows for p in parts for rg in p.row_groups)
        rg_ids = [rg.id for p in parts for rg in p.row_groups]
        got: pa.Table = frag.subset(row_group_ids=rg_ids).to_table(columns=columns, filter=flt)
        return pa.table({n: got.column(n).cast(SCHEMA.field(n).type) for n in columns})

    def _from_index(
        self, path: Path, fh: BinaryIO, rows: int, boxes: Sequence[BBox], start: float, end: float
    ) -> set[int] | None:
        """The vessels the part's cell index names, or None when it has no usable one."""
        try:
            with open_regular(index_path(path)) as ih:
                got = cells.query(ih, path.name, rows, os.fstat(fh.fileno()).st_size,
                                  boxes, start, end)  # fmt: skip
        except FileNotFoundError:
            return None
        except (OSError, pa.ArrowException, ValueError) as exc:
            # an index is only ever a shortcut: a bad one is passed over, never trusted
            log.warning("cell index of %s not used (%s): the file is scanned", path, exc)
            return None
        if got is None:
            return None
        self.counts.index_read += got[1]
        self.counts.files_indexed += 1
        return got[0]

    def candidates(self, boxes: Sequence[BBox], start: float, end: float) -> set[int]:
        """Vessels with a fix inside any of the boxes between two times (inclusive).

        A file with a cell index: of the vessels its index names there (never fewer than
        the scan would find), those whose own rows pass the scan's test, read from their
        row groups only (``mmsi`` statistics) and only those columns. So the answer is
        the scan's, with or without an index."""
        found: set[int] = set()
        sql = _IN_BBOX_PG if self._pg else _IN_BBOX_SQLITE
        with self._engine.connect() as conn:
            for box in boxes:
                params: dict[str, Any] = {"start": start, "end": end, "limit": 2**62}
                params |= box_params(box)
                found |= {int(r[0]) for r in conn.execute(sql, params)}
        if not boxes:
            return found
        when = (pc.field("t") >= start) & (pc.field("t") <= end)
        # the covering alone: a vessel a metre outside a reach box is replayed for
        # nothing, but the points' doubles are never decoded
        where = covering_filter(boxes[0])
        for box in boxes[1:]:
            where = where | covering_filter(box)
        c = self.counts
        named: set[int] = set()
        confirmed: set[int] = set()

        def visit(day: int, path: Path, fh: BinaryIO) -> None:
            frag = self._frag(path, fh)
            flt = when & where
            if self._index:
                got = self._from_index(path, fh, frag.metadata.num_rows, boxes, start, end)
                if got is not None:
                    check = got - found
                    named.update(check)
                    if not check:
                        return
                    flt = flt & pc.field("mmsi").isin(pa.array(sorted(check), pa.int64()))
                else:
                    c.unindexed.add(day)
            else:
                c.unindexed.add(day)
            before = c.archive_read
            tab = self._rows(frag, flt, ["mmsi"])
            c.scan_read += c.archive_read - before
            if tab is not None:
                hits = {int(m) for m in pc.unique(tab.column("mmsi")).to_pylist()}
                found.update(hits)
                confirmed.update(hits)

        self._each_file(start, end, visit)
        c.named += len(named)
        c.dropped += len(named - confirmed)
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
        columns = [*_TRACK_COLS, "source", "geometry"]

        def visit(day: int, path: Path, fh: BinaryIO) -> pa.Table | None:
            return self._rows(self._frag(path, fh), flt, columns)

        tables = [t for t in self._each_file(start, end, visit) if t is not None and t.num_rows]
        if not tables:
            return hot
        tab = pa.concat_tables(tables)
        cold: dict[int, list[Position]] = {}
        for p in positions_from_table(tab.sort_by([("mmsi", "ascending"), ("t", "ascending")])):
            cold.setdefault(p.mmsi, []).append(p)
        return {m: merge_tracks(hot[m], cold.get(m, ())) for m in wanted}
