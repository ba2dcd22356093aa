"""Where each vessel was heard in an archive file: a small index written beside each
part file (issue 36), so that "which vessels came inside this box in that period"
reads some thousands of index rows a day instead of scanning the part.

A part is sorted by MMSI, so a row group holds some ninety vessels' days wherever they
sailed, and its ``bbox`` statistics span most of the coast: row-group pruning skips
little for national traffic. The index is the part's positions grouped by cell of a
0.05 degree grid and MMSI: one row per (cell, vessel) with the first and last time and
the union of the ``bbox`` coverings of that vessel's fixes in the cell, sorted by cell,
so a small box reads one or two of its row groups.

Why it never changes an answer: a row of the part whose covering meets a box B, at time
t, lies in a cell whose index row has t_min <= t <= t_max and a box containing that
covering, so :func:`query` names every vessel the covering scan would (a superset; the
cell grid only prunes, and it is computed on the point with a margin far wider than a
covering's float32 rounding). The backtest then keeps, of the vessels only the index
named, those whose own rows meet a box in the period, which is the scan's own test
(``backtest_read``). An index is used only when it names its part and the part's row
count and size are those it was built from; anything else (no index: days archived
before it, a restored backup, a file cut short) falls back to scanning that part.

Named ``_part-<name>.cells``: the underscore keeps pyarrow's and Spark's discovery out,
and a name not ending in ``.parquet`` keeps ``day=*/*.parquet`` globs (DuckDB's) from
reading it as positions. Written under ``.part-<name>.cells.parquet.tmp`` and renamed,
so a killed run leaves a temporary the archiver deletes (``archive_files``), never half
an index.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

log = logging.getLogger(__name__)

BBox = tuple[float, float, float, float]
PER_DEGREE = 20  # cells a degree: 0.05 degree, about 5.5 km
VERSION = 1
_COLS = 360 * PER_DEGREE + 1
_ROWS = 180 * PER_DEGREE + 1
#: degrees a box is widened by before its cells are listed: a covering is its point
#: rounded outwards to float32 (1.5e-5 degree at most at 180), so a point whose covering
#: meets the box lies within this margin of it
_MARGIN = 1e-3
_KEY = "vigia_cells"
ROW_GROUP = 8192
SCHEMA = pa.schema(
    [
        pa.field("cell", pa.int64(), False),
        pa.field("mmsi", pa.int64(), False),
        pa.field("t_min", pa.float64(), False),
        pa.field("t_max", pa.float64(), False),
        *(pa.field(n, pa.float32(), False) for n in ("xmin", "ymin", "xmax", "ymax")),
    ]
)
_FORMAT = ds.ParquetFileFormat(
    default_fragment_scan_options=ds.ParquetFragmentScanOptions(page_checksum_verification=True)
)


def index_path(part: Path) -> Path:
    """The index of a part file (``part-X.parquet`` -> ``_part-X.cells``)."""
    return part.with_name("_" + part.name.removesuffix(".parquet") + ".cells")


def _temp_path(part: Path) -> Path:
    # the archive's temporary pattern (.part-*.parquet.tmp): a run killed mid-write
    # leaves one that the next run deletes
    return part.with_name("." + part.name.removesuffix(".parquet") + ".cells.parquet.tmp")


def _col(x: Any) -> Any:
    # floor of a correctly rounded product: monotone in x, so x0 <= x <= x1 puts x's
    # column between theirs; clipped (monotone too) so that no value leaves the grid
    return np.clip(np.floor(np.asarray(x, np.float64) * PER_DEGREE) + 180 * PER_DEGREE,
                   0, _COLS - 1)  # fmt: skip


def _row(y: Any) -> Any:
    return np.clip(np.floor(np.asarray(y, np.float64) * PER_DEGREE) + 90 * PER_DEGREE,
                   0, _ROWS - 1)  # fmt: skip


def cells(x: Any, y: Any) -> Any:
    """The cell of each point (int64; -1 where a coordinate is not finite)."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    key = _row(np.where(ok, y, 0.0)) * _COLS + _col(np.where(ok, x, 0.0))
    return np.where(ok, key, -1).astype(np.int64)


class CellIndexer:
    """Builds a part's index from the archive tables written to it, as they stream."""

    def __init__(self) -> None:
        self._parts: list[pa.Table] = []

    def add(self, tab: pa.Table) -> None:
        """Fold in archive rows (``mmsi``, ``t``, ``geometry``, ``bbox``)."""
        if not tab.num_rows:
            return
        g = tab.column("geometry").combine_chunks()
        b = tab.column("bbox").combine_chunks()
        rows = pa.table(
            {
                "cell": cells(g.field("x").to_numpy(), g.field("y").to_numpy()),
                "mmsi": tab.column("mmsi"),
                "t": tab.column("t"),
                **{n: b.field(n) for n in ("xmin", "ymin", "xmax", "ymax")},
            }
        )
        self._parts.append(_fold(rows, "t", "t"))

    def table(self) -> pa.Table:
        """The index rows, sorted by cell then MMSI."""
        if not self._parts:
            return SCHEMA.empty_table()
        whole = pa.concat_tables(self._parts)
        if len(self._parts) > 1:  # a vessel's fixes in a cell may span two tables
            whole = _fold(whole, "t_min", "t_max")
        tab = whole.sort_by([("cell", "ascending"), ("mmsi", "ascending")])
        return pa.Table.from_arrays(
            [tab.column(f.name).cast(f.type) for f in SCHEMA], schema=SCHEMA
        )

    def write(self, part: Path, rows: int) -> Path | None:
        """Write the index of ``part`` (just written, ``rows`` positions) beside it;
        None when it could not be (the part is whole without it: reads scan it)."""
        tmp, final = _temp_path(part), index_path(part)
        try:
            meta = {"version": VERSION, "per_degree": PER_DEGREE, "part": part.name,
                    "rows": rows, "bytes": part.stat().st_size}  # fmt: skip
            tab = self.table().replace_schema_metadata({_KEY: json.dumps(meta)})
            pq.write_table(
                tab, tmp, row_group_size=ROW_GROUP, compression="zstd",
                write_statistics=True, write_page_checksum=True,
            )  # fmt: skip
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except OSError as exc:
            log.warning("no cell index for %s (%s): reads will scan it", part, exc)
            tmp.unlink(missing_ok=True)
            return None
        return final


def _fold(rows: pa.Table, t_lo: str, t_hi: str) -> pa.Table:
    agg = rows.group_by(["cell", "mmsi"], use_threads=False).aggregate(
        [(t_lo, "min"), (t_hi, "max"), ("xmin", "min"), ("ymin", "min"),
         ("xmax", "max"), ("ymax", "max")]
    )  # fmt: skip
    names = {f"{t_lo}_min": "t_min", f"{t_hi}_max": "t_max", "xmin_min": "xmin",
             "ymin_min": "ymin", "xmax_max": "xmax", "ymax_max": "ymax"}  # fmt: skip
    return agg.rename_columns([names.get(n, n) for n in agg.column_names])


def _where(boxes: Sequence[BBox], start: float, end: float) -> pc.Expression:
    """Index rows that may hold a fix whose covering meets a box between two times:
    the cell range prunes row groups, the row's own box and times decide."""
    out: pc.Expression | None = None
    for x0, y0, x1, y1 in boxes:
        lo = int(_row(y0 - _MARGIN)) * _COLS + int(_col(x0 - _MARGIN))
        hi = int(_row(y1 + _MARGIN)) * _COLS + int(_col(x1 + _MARGIN))
        one = (
            (pc.field("cell") >= lo) & (pc.field("cell") <= hi)
            & (pc.field("xmax") >= x0) & (pc.field("xmin") <= x1)
            & (pc.field("ymax") >= y0) & (pc.field("ymin") <= y1)
        )  # fmt: skip
        out = one if out is None else out | one
    assert out is not None
    return out & (pc.field("t_max") >= start) & (pc.field("t_min") <= end)


def query(
    fh: BinaryIO, part: str, rows: int, size: int, boxes: Sequence[BBox], start: float, end: float
) -> tuple[set[int], int] | None:
    """The vessels the index of ``part`` (``rows`` positions, ``size`` bytes) names
    inside the boxes between two times, and the index rows read; None when the index
    is not that part's (then the part must be scanned)."""
    frag = _FORMAT.make_fragment(fh)
    raw = (frag.physical_schema.metadata or {}).get(_KEY.encode())
    if raw is None:
        return None
    meta = json.loads(raw)
    want = {"version": VERSION, "per_degree": PER_DEGREE, "part": part, "rows": rows,
            "bytes": size}  # fmt: skip
    if not isinstance(meta, dict) or any(meta.get(k) != v for k, v in want.items()):
        return None
    if not boxes:
        return set(), 0
    flt = _where(boxes, start, end)
    kept = frag.split_by_row_group(flt)
    read = sum(rg.num_rows for p in kept for rg in p.row_groups)
    if not kept:
        return set(), 0
    ids = [rg.id for p in kept for rg in p.row_groups]
    tab = frag.subset(row_group_ids=ids).to_table(columns=["mmsi"], filter=flt)
    return {int(m) for m in pc.unique(tab.column("mmsi")).to_pylist()}, read
