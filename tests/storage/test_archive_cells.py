"""The archive's cell index (issue 36): written beside each part, never read as
positions, and never narrower than the scan it replaces.

The property: for any points and any box and period, the vessels the index names
include every vessel the backtest's covering scan finds (the backtest then keeps only
those its tracks confirm: tests/storage/test_backtest.py shows the same leads and
report with and without the index). Points are drawn on and beside cell edges and box
edges, where a float32 covering can meet a box its point is outside.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vigia.service.db import archive_cells as cells
from vigia.service.db.archive_cells import index_path
from vigia.service.db.archive_files import ArchiveFolder, fragment
from vigia.service.db.archive_format import table_from_columns, write_part
from vigia.service.db.archive_index import index_missing
from vigia.service.db.archive_read import covering_filter

DAY = 20_606
T0 = DAY * 86_400.0
STEP = 1.0 / cells.PER_DEGREE


def _table(points: list[tuple[int, float, float, float]]) -> pa.Table:
    rows = sorted(points)
    n = len(rows)
    return table_from_columns({
        "mmsi": [r[0] for r in rows], "t": [r[1] for r in rows], "msg_type": [1] * n,
        "lon": [r[2] for r in rows], "lat": [r[3] for r in rows], "sog": [10.0] * n,
        "cog": [0.0] * n, "heading": [0] * n, "nav_status": [0] * n, "accuracy": [1] * n,
        "source": ["t"] * n,
    })  # fmt: skip


def _scan(path: Path, box: tuple[float, float, float, float], t0: float, t1: float) -> set[int]:
    """The backtest's first pass over a part without an index."""
    flt = (pc.field("t") >= t0) & (pc.field("t") <= t1) & covering_filter(box)
    with open(path, "rb") as fh:
        tab = fragment(fh).to_table(columns=["mmsi"], filter=flt)
    return set(tab.column("mmsi").to_pylist())


def _named(path: Path, box: tuple[float, float, float, float], t0: float, t1: float) -> set[int]:
    rows, size = pq.read_metadata(path).num_rows, path.stat().st_size
    with open(index_path(path), "rb") as fh:
        got = cells.query(fh, path.name, rows, size, [box], t0, t1)
    assert got is not None
    return got[0]


# box edges on a cell edge or anywhere; points on, inside or a hair outside a box edge
# (a float32 covering reaches some 4e-6 degree past its point here), or anywhere
_start = st.one_of(st.integers(-900, -700).map(lambda k: k * STEP), st.floats(-45.0, -35.0))
_size = st.sampled_from([0.0, 1e-7, 0.008, STEP, 0.3])
_off = st.sampled_from([-1e-4, -3e-6, -1e-6, -1e-9, 0.0, 1e-9, 1e-6, 0.5])


def _near(lo: float, size: float) -> st.SearchStrategy[float]:
    return st.one_of(
        _off.map(lambda d: lo + d),
        _off.map(lambda d: lo + size - d),
        st.floats(-45.0, -35.0),
    )


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[tuple[int, float, float, float]], tuple[float, ...]]:
    x0, y0, w, h = draw(_start), draw(_start), draw(_size), draw(_size)
    n = draw(st.integers(1, 40))
    points = [
        (draw(st.integers(1, 12)), draw(st.floats(T0, T0 + 86_399.0)),
         draw(_near(x0, w)), draw(_near(y0, h)))
        for _ in range(n)
    ]  # fmt: skip
    return points, (x0, y0, x0 + w, y0 + h)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_case(), period=st.tuples(st.floats(T0, T0 + 86_399.0), st.floats(0.0, 86_400.0)))
def test_the_index_names_every_vessel_the_scan_finds(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[list[tuple[int, float, float, float]], tuple[float, float, float, float]],
    period: tuple[float, float],
) -> None:
    points, box = case
    root = tmp_path_factory.mktemp("cells")
    path, _ = write_part(root, DAY, "p", [_table(points)], "native")
    t0, t1 = period[0], period[0] + period[1]
    assert _scan(path, box, t0, t1) <= _named(path, box, t0, t1)


def test_the_index_sits_beside_its_part_and_no_positions_reader_takes_it(tmp_path: Path) -> None:
    lon, lat = -40.0, -22.5  # a cell corner
    points = [(m, T0 + 60.0 * m, lon + 0.001 * m, lat - 0.002 * m) for m in range(1, 40)]
    path, rows = write_part(tmp_path, DAY, "p", [_table(points)], "native")
    index = index_path(path)
    assert index.name == "_part-p.cells" and index.exists()
    # the archive's globs and pyarrow's discovery see only the part
    assert list(tmp_path.glob("day=*/*.parquet")) == [path]
    found = ds.dataset(tmp_path, format="parquet", partitioning="hive").files
    assert [Path(f).name for f in found] == [path.name]
    tab = pq.read_table(index)
    assert tab.num_rows == len(points)  # each vessel heard in one cell
    assert tab.column("cell").to_pylist() == sorted(tab.column("cell").to_pylist())
    box = (lon - 0.0105, lat + 0.0095, lon - 0.0095, lat + 0.0105)  # nobody there
    assert _named(path, box, T0, T0 + 86_400) == set()
    box = (lon + 0.0049, lat - 0.0101, lon + 0.0051, lat - 0.0099)  # vessel 5
    assert _scan(path, box, T0, T0 + 86_400) == _named(path, box, T0, T0 + 86_400) == {5}
    # not its part: another row count or size, another part's name
    with open(index, "rb") as fh:
        assert cells.query(fh, path.name, rows + 1, path.stat().st_size, [box], T0, T0) is None
    with open(index, "rb") as fh:
        assert cells.query(fh, path.name, rows, path.stat().st_size + 1, [box], T0, T0) is None
    with open(index, "rb") as fh:
        assert cells.query(fh, "part-q.parquet", rows, path.stat().st_size, [box], T0, T0) is None


def test_a_temporary_index_left_by_a_kill_is_removed(tmp_path: Path) -> None:
    path, _ = write_part(tmp_path, DAY, "p", [_table([(1, T0, -40.0, -22.0)])], "native")
    left = path.with_name(".part-p.cells.parquet.tmp")
    left.write_bytes(b"half an index")
    assert ArchiveFolder(tmp_path).remove_temporaries() == 1
    assert not left.exists() and index_path(path).exists()


def test_an_index_that_cannot_be_written_leaves_the_part_whole(tmp_path: Path) -> None:
    day = tmp_path / "day=2026-06-02"
    day.mkdir()
    # a folder where the index goes: the rename fails, the part is written all the same
    (day / "_part-p.cells").mkdir()
    path, rows = write_part(tmp_path, DAY, "p", [_table([(1, T0, -40.0, -22.0)])], "native")
    assert rows == 1 and pq.read_metadata(path).num_rows == 1
    assert not list(day.glob(".part-*.tmp"))


def test_files_archived_without_an_index_get_one(tmp_path: Path) -> None:
    """``vigia archive --index``: a day archived before the index, and one whose index
    is spoiled, get theirs; a day whose index is good is left alone."""
    points = [(m, T0 + 60.0 * m, -40.0 + 0.01 * m, -22.5) for m in range(1, 9)]
    paths = [write_part(tmp_path, DAY + d, "p", [_table(points)], "native")[0] for d in range(3)]
    index_path(paths[0]).unlink()
    index_path(paths[1]).write_bytes(b"not an index")
    good = index_path(paths[2]).stat().st_mtime_ns
    done = index_missing(ArchiveFolder(tmp_path))
    assert [(x.part, x.positions, x.index) for x in done] == [
        (paths[0], 8, index_path(paths[0])),
        (paths[1], 8, index_path(paths[1])),
    ]
    assert index_path(paths[2]).stat().st_mtime_ns == good
    box = (-39.9701, -22.5001, -39.9699, -22.4999)  # vessel 3
    assert all(_named(p, box, T0, T0 + 86_400) == {3} for p in paths[:2])
    assert index_missing(ArchiveFolder(tmp_path)) == []


def test_an_index_of_other_columns_or_metadata_is_not_used(tmp_path: Path) -> None:
    path, rows = write_part(tmp_path, DAY, "p", [_table([(1, T0, -40.0, -22.0)])], "native")
    size = path.stat().st_size
    for meta in (b"[1]", b"{not json", b'{"version": 2}'):
        tab = pq.read_table(index_path(path)).replace_schema_metadata({b"vigia_cells": meta})
        pq.write_table(tab, index_path(path))
        with open(index_path(path), "rb") as fh:
            try:
                got = cells.query(fh, path.name, rows, size, [(-41, -23, -39, -21)], T0, T0)
            except ValueError:
                got = None  # not JSON: the reader passes it over (backtest_read)
        assert got is None
