"""The archive's file format: GeoParquet 1.1 positions, one folder per UTC day.

A day's folder ``day=YYYY-MM-DD`` (Hive style, so DuckDB and pyarrow read the day as a
column) holds one or more ``part-*.parquet`` files, each sorted by MMSI then time. A
file is written under a temporary name, flushed to disk and renamed: a reader never
sees half a file, and a ``.tmp`` left by a killed run is ignored and removed. What the
folder holds is never trusted when read back (``archive_files``).

Columns are the stored position's own, with the location as a GeoParquet 1.1 *native*
``point`` geometry (a struct of x and y doubles, GeoArrow's layout) instead of WKB or a
lon/lat pair: the coordinates are kept once, and Parquet's row-group statistics on them
prune a spatial query even for a reader that knows no GeoParquet. The ``bbox`` covering
column the specification defines rides beside it in 32-bit floats rounded outwards (the
specification allows FLOAT; a point's box only has to contain it), which halves its
cost. Doubles are stored BYTE_STREAM_SPLIT then zstd: neighbouring reports of a vessel
share their high bytes, which that layout lines up for the compressor.

Readers that know no native encoding (GDAL before 3.9, geopandas before 1.0, DuckDB's
GEOMETRY: docs/archive.md) need WKB: ``VIGIA_ARCHIVE_GEOMETRY_ENCODING=wkb``
adds the point as WKB in ``geometry_wkb`` and makes it the file's declared (primary)
geometry. The native struct stays in ``geometry``, undeclared: Vigia's own reads use it
whatever the setting, so an archive may hold days of both kinds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyproj

from vigia.ingest.records import Position
from vigia.service.db.archive_cells import CellIndexer

DAY_S = 86_400
GeometryEncoding = Literal["native", "wkb"]
WKB_COLUMN = "geometry_wkb"
# a WKB point: byte order (1, little-endian), geometry type (1, Point), x, y; packed
_WKB_POINT = np.dtype([("order", "u1"), ("kind", "<u4"), ("x", "<f8"), ("y", "<f8")])
ROW_GROUP = 131_072  # rows; a vessel's track read touches one or two groups per day

POINT = pa.struct([pa.field("x", pa.float64(), False), pa.field("y", pa.float64(), False)])
BBOX = pa.struct([pa.field(n, pa.float32(), False) for n in ("xmin", "ymin", "xmax", "ymax")])
SCHEMA = pa.schema(
    [
        pa.field("mmsi", pa.int64(), False),
        pa.field("t", pa.float64(), False),  # Unix seconds, as the store keeps it
        pa.field("msg_type", pa.int8(), False),
        pa.field("sog", pa.float64()),
        pa.field("cog", pa.float64()),
        pa.field("heading", pa.int16()),
        pa.field("nav_status", pa.int8()),
        pa.field("accuracy", pa.bool_()),
        pa.field("source", pa.string()),
        pa.field("geometry", POINT, False),
        pa.field("bbox", BBOX, False),
    ]
)
# the store's position columns, as Arrow reads them before they become archive rows
STORE_TYPES: dict[str, pa.DataType] = {
    "mmsi": pa.int64(),
    "t": pa.float64(),
    "msg_type": pa.int8(),
    "lon": pa.float64(),
    "lat": pa.float64(),
    "sog": pa.float64(),
    "cog": pa.float64(),
    "heading": pa.int16(),
    "nav_status": pa.int8(),
    "accuracy": pa.bool_(),
    "source": pa.string(),
}
# OGC:CRS84 (longitude, latitude on WGS 84): the GeoParquet default, written out in full
# (PROJJSON, as PROJ itself writes it) so a reader need not know that default
CRS84: dict[str, Any] = pyproj.CRS.from_user_input("OGC:CRS84").to_json_dict()
_DOUBLES = ["t", "sog", "cog", "geometry.x", "geometry.y"]
_FLOATS = ["bbox.xmin", "bbox.ymin", "bbox.xmax", "bbox.ymax"]


def day_of(t: float) -> int:
    """The UTC day number (days since 1970-01-01) of a Unix time."""
    return int(t // DAY_S)


def day_name(day: int) -> str:
    """``YYYY-MM-DD`` of a day number."""
    return datetime.fromtimestamp(day * DAY_S, tz=UTC).strftime("%Y-%m-%d")


def day_dir(root: Path, day: int) -> Path:
    """The folder of one UTC day."""
    return root / f"day={day_name(day)}"


def _outwards(values: np.ndarray[Any, Any], up: bool) -> np.ndarray[Any, Any]:
    f = values.astype(np.float32)
    # float32 rounds to nearest; step the rounded value past the double when it fell short
    short = f.astype(np.float64) < values if up else f.astype(np.float64) > values
    target = np.float32(np.inf if up else -np.inf)
    return np.where(short, np.nextafter(f, target), f)


def table_from_columns(cols: dict[str, Sequence[Any]]) -> pa.Table:
    """An archive table from store columns (``mmsi, t, msg_type, lon, lat, sog, cog,
    heading, nav_status, accuracy, source``), in the order given."""
    # SQLite hands booleans back as integers
    accuracy = [None if a is None else bool(a) for a in cols["accuracy"]]
    cols = {**cols, "accuracy": accuracy}
    return table_from_arrow(
        pa.table({n: pa.array(cols[n], type=t) for n, t in STORE_TYPES.items()})
    )


def table_from_arrow(tab: pa.Table) -> pa.Table:
    """An archive table from an Arrow table of the store's columns, typed as the
    archive's (no row goes through Python)."""
    lon = tab.column("lon").to_numpy()
    lat = tab.column("lat").to_numpy()
    geometry = pa.StructArray.from_arrays([pa.array(lon), pa.array(lat)], fields=list(POINT))
    bbox = pa.StructArray.from_arrays(
        [
            pa.array(_outwards(lon, False)),
            pa.array(_outwards(lat, False)),
            pa.array(_outwards(lon, True)),
            pa.array(_outwards(lat, True)),
        ],
        fields=list(BBOX),
    )
    arrays = [tab.column(f.name).cast(f.type) for f in SCHEMA if f.name not in ("geometry", "bbox")]
    return pa.Table.from_arrays([*arrays, geometry, bbox], schema=SCHEMA)


def geo_metadata(encoding: GeometryEncoding = "native") -> dict[str, Any]:
    """The ``geo`` key of GeoParquet 1.1. No file-wide ``bbox`` (optional): a file is
    written as it streams, before its extent is known; the covering column's row-group
    statistics give any reader the extent."""
    name = WKB_COLUMN if encoding == "wkb" else "geometry"
    column: dict[str, Any] = {
        "encoding": "WKB" if encoding == "wkb" else "point",
        "geometry_types": ["Point"],
        "crs": CRS84,
        "edges": "planar",
        "covering": {"bbox": {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}},
    }
    return {"version": "1.1.0", "primary_column": name, "columns": {name: column}}


GEO_SCHEMA = SCHEMA.with_metadata({"geo": json.dumps(geo_metadata())})
WKB_SCHEMA = SCHEMA.append(pa.field(WKB_COLUMN, pa.binary(), False)).with_metadata(
    {"geo": json.dumps(geo_metadata("wkb"))}
)


def with_wkb(tab: pa.Table) -> pa.Table:
    """An archive table with its points also as WKB (``WKB_COLUMN``), built in numpy."""
    g = tab.column("geometry").combine_chunks()
    n = len(g)
    points = np.empty(n, _WKB_POINT)
    points["order"] = 1
    points["kind"] = 1
    points["x"] = g.field("x").to_numpy()
    points["y"] = g.field("y").to_numpy()
    offsets = pa.py_buffer(np.arange(n + 1, dtype=np.int32) * _WKB_POINT.itemsize)
    wkb = pa.Array.from_buffers(pa.binary(), n, [None, offsets, pa.py_buffer(points.tobytes())])
    return tab.append_column(WKB_SCHEMA.field(WKB_COLUMN), wkb)


def geometry_encoding() -> GeometryEncoding:
    """The encoding the settings ask for (``VIGIA_ARCHIVE_GEOMETRY_ENCODING``)."""
    from vigia.service.settings import ArchiveSettings

    return ArchiveSettings().archive_geometry_encoding


def write_part(
    root: Path,
    day: int,
    name: str,
    tables: Iterable[pa.Table],
    encoding: GeometryEncoding | None = None,
) -> tuple[Path, int]:
    """Write ``tables`` (each already in MMSI, time order, and each after the one
    before) as one file of the day, durably, its geometry in ``encoding`` (by default
    the settings'); returns its final path and row count, or no file when no rows came.
    Its row count is checked before it is renamed into place: a file that does not hold
    what was handed to it never becomes visible. Its cell index (``archive_cells``) is
    written beside it after the rename: a file left without one (a kill in between, a
    full disk) is whole, and reads scan it instead."""
    folder = day_dir(root, day)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"part-{name}.parquet"
    tmp = folder / f".part-{name}.parquet.tmp"
    expected = 0
    wkb = (encoding or geometry_encoding()) == "wkb"
    schema = WKB_SCHEMA if wkb else GEO_SCHEMA
    cells = CellIndexer()
    with pq.ParquetWriter(
        tmp,
        schema,
        compression="zstd",
        compression_level=9,
        use_dictionary=["msg_type", "heading", "nav_status", "accuracy", "source", "mmsi"],
        column_encoding=dict.fromkeys(_DOUBLES + _FLOATS, "BYTE_STREAM_SPLIT"),
        write_statistics=True,
        write_page_index=True,
        # a CRC32 per page: a byte spoiled on disk is then found on read, not decoded
        # into a wrong time or place (archive_files checks them)
        write_page_checksum=True,
    ) as writer:
        for tab in tables:
            expected += tab.num_rows
            cells.add(tab)
            tab = with_wkb(tab) if wkb else tab
            writer.write_table(tab.replace_schema_metadata(schema.metadata), ROW_GROUP)
    if expected == 0:
        tmp.unlink()
        return final, 0
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    written = pq.read_metadata(tmp).num_rows
    if written != expected:
        tmp.unlink()
        raise OSError(f"archive file {final} holds {written} rows, not {expected}")
    os.replace(tmp, final)
    cells.write(final, written)
    _fsync_dir(folder)
    _fsync_dir(folder.parent)
    return final, written


def _fsync_dir(folder: Path) -> None:
    # the rename is durable only once the folder's own entry is on disk
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def positions_from_table(tab: pa.Table) -> list[Position]:
    """Positions from archive rows (any column order; extra columns ignored)."""
    g = tab.column("geometry").combine_chunks()
    # column by column into Position's own field order (a million rows of keyword
    # calls cost half as much again)
    head = [tab.column(n).to_pylist() for n in ("mmsi", "t", "msg_type")]
    rest = [tab.column(n).to_pylist() for n in ("sog", "cog", "heading", "nav_status", "accuracy")]
    source = pc.fill_null(tab.column("source"), "").to_pylist()
    xs, ys = g.field("x").to_pylist(), g.field("y").to_pylist()
    return list(map(Position, *head, xs, ys, *rest, source))
