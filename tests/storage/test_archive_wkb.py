"""The archive's geometry in WKB for readers that know no native GeoParquet encoding
(issue 35): ``VIGIA_ARCHIVE_GEOMETRY_ENCODING=wkb`` declares a WKB point column as the
files' geometry and keeps the native struct Vigia reads. Both kinds of file are written,
then read back with pyarrow (and geopandas where installed); the WKB bytes are checked
against the layout of the Simple Features specification, written out by hand here.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from vigia.service.db.archive_format import table_from_columns, write_part
from vigia.service.db.archive_read import ArchiveReader

DAY = 20_606  # 2026-06-02: 20,606 days after 1970-01-01
T0 = DAY * 86_400.0
# two vessels off Santos, in MMSI then time order as the archive keeps them
ROWS = [(538_000_004, T0 + 60.5, -46.25, -24.0625), (710_000_001, T0 + 3_600.25, -46.5, -24.125)]


def _columns(shift: float) -> dict[str, list[object]]:
    n = len(ROWS)
    return {
        "mmsi": [r[0] for r in ROWS],
        "t": [r[1] + shift for r in ROWS],
        "msg_type": [1] * n,
        "lon": [r[2] for r in ROWS],
        "lat": [r[3] for r in ROWS],
        "sog": [10.5] * n,
        "cog": [123.4] * n,
        "heading": [90] * n,
        "nav_status": [0] * n,
        "accuracy": [1] * n,
        "source": ["rx-santos"] * n,
    }


def _write(root: Path, day: int, encoding: str | None) -> Path:
    path, rows = write_part(
        root, day, "x", [table_from_columns(_columns((day - DAY) * 86_400.0))], encoding
    )  # type: ignore[arg-type]
    assert rows == len(ROWS)
    return path


def _geo(path: Path) -> dict[str, object]:
    return json.loads(pq.read_metadata(path).metadata[b"geo"])  # type: ignore[no-any-return]


def _valid_geo(geo: dict[str, object], column: str, encoding: str) -> None:
    """What GeoParquet 1.1 requires of the ``geo`` key (spec, "File metadata" and
    "Column metadata"), for one point column."""
    assert geo["version"] == "1.1.0" and geo["primary_column"] == column
    columns = geo["columns"]
    assert isinstance(columns, dict) and list(columns) == [column]
    col = columns[column]
    assert col["encoding"] == encoding and col["geometry_types"] == ["Point"]
    assert col["crs"]["id"] == {"authority": "OGC", "code": "CRS84"}
    assert col["edges"] == "planar"
    assert col["covering"]["bbox"] == {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}


def test_native_and_wkb_files_carry_valid_metadata_and_the_same_points(tmp_path: Path) -> None:
    native = _write(tmp_path, DAY, "native")
    wkb = _write(tmp_path, DAY + 1, "wkb")
    _valid_geo(_geo(native), "geometry", "point")
    _valid_geo(_geo(wkb), "geometry_wkb", "WKB")
    # GeoParquet: a WKB column is BYTE_ARRAY; the native point a struct of x, y doubles
    assert pq.read_schema(wkb).field("geometry_wkb").type == "binary"
    assert "geometry_wkb" not in pq.read_schema(native).names

    points = [(r[2], r[3]) for r in ROWS]
    tab = pq.read_table(wkb)
    blobs = tab.column("geometry_wkb").to_pylist()
    # little-endian (1), type 1 = Point, then x and y: 1 + 4 + 8 + 8 = 21 bytes each
    assert [len(b) for b in blobs] == [21, 21]
    assert [struct.unpack("<BIdd", b) for b in blobs] == [(1, 1, x, y) for x, y in points]
    for path in (native, wkb):
        g = pq.read_table(path).column("geometry").combine_chunks()
        assert list(zip(g.field("x").to_pylist(), g.field("y").to_pylist(), strict=True)) == points


def test_the_setting_chooses_the_encoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _geo(_write(tmp_path, DAY, None))["primary_column"] == "geometry"  # the default
    monkeypatch.setenv("VIGIA_ARCHIVE_GEOMETRY_ENCODING", "wkb")
    assert _geo(_write(tmp_path, DAY + 1, None))["primary_column"] == "geometry_wkb"


def test_vigia_reads_an_archive_holding_days_of_both_kinds(tmp_path: Path) -> None:
    """A setting changed between two nights: both days are one track, none set aside."""
    _write(tmp_path, DAY, "native")
    _write(tmp_path, DAY + 1, "wkb")
    track = ArchiveReader(tmp_path).track(710_000_001, None, None, None)
    assert [(p.t, p.lon, p.lat) for p in track] == [
        (T0 + 3_600.25, -46.5, -24.125),
        (T0 + 86_400 + 3_600.25, -46.5, -24.125),
    ]
    assert not (tmp_path / "_quarantine").exists()
