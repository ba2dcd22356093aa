"""Land and depth basemaps for the ballast-water lines (NORMAM-20 2.3.1).

The bundled land is Natural Earth 1:10m (every country in the South Atlantic window,
plus Atol das Rocas, which NE 10m lacks) united with the Navy chart land areas of the
Rio region; the bundled depth is ETOPO1 at 0.1 degree. Both are cut by
``scripts/build_basemaps.py`` into ``zones/basemaps/``. Any land/baseline file
(GeoJSON, shapefile) or depth grid (GEBCO NetCDF) can be loaded instead; every figure
computed from a basemap names it (``Basemap.names``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from vigia.ingest.errors import VigiaError

BASEMAP_DIR = Path(__file__).resolve().parent / "basemaps"
LAND_FILE = BASEMAP_DIR / "land.npz"
DEPTH_FILE = BASEMAP_DIR / "depth_etopo1.npz"
GRID_FILE = BASEMAP_DIR / "class_grid.npz"
LINES_FILE = BASEMAP_DIR / "lines.geojson"
TERRITORY_FILE = BASEMAP_DIR / "brazil_territory.geojson"
CHART_LAND_FILE = BASEMAP_DIR / "chart_land.geojson"

FloatArray = NDArray[np.float64]


class BasemapError(VigiaError):
    """A basemap file is missing, unreadable or of the wrong shape."""

    code = "basemap-error"


@dataclass(slots=True)
class LandBasemap:
    """Land as rings (lon/lat vertex arrays; a one-vertex ring is an islet point)."""

    name: str
    rings: list[NDArray[np.float64]]
    closed: list[bool]  # polygon rings close on themselves; baselines (lines) do not
    polygons: BaseGeometry  # areas that count as land (inside: distance 0)

    def __post_init__(self) -> None:
        shapely.prepare(self.polygons)

    def contains(self, lons: FloatArray, lats: FloatArray) -> NDArray[np.bool_]:
        """Whether each point is on land."""
        if self.polygons.is_empty:
            return np.zeros(np.shape(lons), dtype=bool)
        return np.asarray(shapely.contains_xy(self.polygons, lons, lats), dtype=bool)


@dataclass(slots=True)
class DepthGrid:
    """A regular lon/lat grid of depth in metres, positive down (land is negative)."""

    name: str
    lon0: float
    lat0: float
    step_lon: float
    step_lat: float
    depth: NDArray[np.float32]  # [lat index, lon index]

    def depth_at(self, lons: FloatArray, lats: FloatArray) -> FloatArray:
        """Bilinearly interpolated depth (m, positive down); NaN outside the grid."""
        lons = np.asarray(lons, dtype=np.float64)
        lats = np.asarray(lats, dtype=np.float64)
        ny, nx = self.depth.shape
        fx = (lons - self.lon0) / self.step_lon
        fy = (lats - self.lat0) / self.step_lat
        inside = (fx >= 0) & (fx <= nx - 1) & (fy >= 0) & (fy <= ny - 1)
        ix = np.clip(np.floor(fx), 0, nx - 2).astype(np.intp)
        iy = np.clip(np.floor(fy), 0, ny - 2).astype(np.intp)
        tx = np.clip(fx - ix, 0.0, 1.0)
        ty = np.clip(fy - iy, 0.0, 1.0)
        z = self.depth
        top = z[iy, ix] * (1 - tx) + z[iy, ix + 1] * tx
        bot = z[iy + 1, ix] * (1 - tx) + z[iy + 1, ix + 1] * tx
        out = (top * (1 - ty) + bot * ty).astype(np.float64)
        out[~inside] = np.nan
        return out


@dataclass(slots=True)
class Basemap:
    """The land and depth a figure is measured against."""

    land: LandBasemap
    depth: DepthGrid
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> dict[str, str]:
        """``{"land": ..., "depth": ...}``, quoted with every figure."""
        return {"land": self.land.name, "depth": self.depth.name}

    @property
    def is_bundled(self) -> bool:
        """Whether both layers are the bundled ones (so prebuilt grids apply)."""
        return bool(self.extra.get("bundled_land")) and bool(self.extra.get("bundled_depth"))


def _land_from_npz(path: Path) -> LandBasemap:
    with np.load(path, allow_pickle=False) as f:
        xy = f["xy_microdeg"].astype(np.float64) / 1e6
        offsets = f["ring_offsets"]
        is_poly = f["ring_is_polygon"]
        poly_id = f["ring_polygon_id"]
        name = str(f["name"])
    rings = [xy[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]
    polys: dict[int, list[NDArray[np.float64]]] = {}
    for ring, pid, isp in zip(rings, poly_id, is_poly, strict=True):
        if isp:
            polys.setdefault(int(pid), []).append(ring)
    shapes = [shapely.Polygon(r[0], r[1:]) for r in polys.values()]
    closed = [bool(x) for x in is_poly]
    return LandBasemap(name, rings, closed, shapely.MultiPolygon(shapes))


Rings = list[tuple[NDArray[np.float64], bool]]


def rings_of(geom: BaseGeometry) -> tuple[Rings, list[BaseGeometry]]:
    """Boundary vertex arrays (with whether each closes) of any geometry, and its areas."""
    rings: Rings = []
    areas: list[BaseGeometry] = []
    for part in shapely.get_parts(geom):
        kind = part.geom_type
        if kind == "Polygon":
            areas.append(part)
            for r in [part.exterior, *part.interiors]:
                c = np.asarray(r.coords, dtype=np.float64)[:-1, :2]
                if len(c):
                    rings.append((c, True))
        elif kind == "LinearRing":
            rings.append((np.asarray(part.coords, dtype=np.float64)[:-1, :2], True))
        elif kind in ("LineString", "Point"):
            rings.append((np.asarray(part.coords, dtype=np.float64)[:, :2], False))
        elif kind.startswith("Multi") or kind == "GeometryCollection":
            r2, a2 = rings_of(part)
            rings.extend(r2)
            areas.extend(a2)
    return rings, areas


def land_from_geometry(name: str, geom: BaseGeometry) -> LandBasemap:
    """A land basemap from any geometry: polygons are land, lines a baseline, points islets."""
    rings, areas = rings_of(geom)
    if not rings:
        raise BasemapError(f"land basemap {name}: no geometry")
    polygons: BaseGeometry = shapely.union_all(areas) if areas else shapely.MultiPolygon()
    return LandBasemap(name, [r for r, _ in rings], [c for _, c in rings], polygons)


def _read_ogr_lonlat(p: Path) -> list[BaseGeometry]:
    """A shapefile's (or any OGR source's) geometries in WGS84 lon/lat, with pyogrio's
    array reader and pyproj: no data-frame library needed at run time."""
    try:
        from pyogrio.raw import read  # type: ignore[import-untyped]
    except ImportError as exc:
        raise BasemapError(
            "reading a shapefile needs pyogrio: pip install 'vigia[shapefiles]'"
        ) from exc
    meta, _, wkb, _ = read(p, read_geometry=True)
    geoms = shapely.from_wkb(wkb)
    crs = meta.get("crs")
    if crs:
        from pyproj import CRS, Transformer

        source = CRS.from_user_input(crs)
        if not source.equals(CRS.from_epsg(4326), ignore_axis_order=True):
            tr = Transformer.from_crs(source, 4326, always_xy=True)
            geoms = shapely.transform(
                geoms, lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1]))
            )
    return [g for g in geoms.tolist() if g is not None]


def load_land_file(path: str | Path) -> LandBasemap:
    """Land or baseline from a GeoJSON or a shapefile (e.g. the Decreto 8.400/2015 baseline)."""
    p = Path(path)
    if not p.exists():
        raise BasemapError(f"land basemap file not found: {p}")
    try:
        if p.suffix.lower() in (".geojson", ".json"):
            data = json.loads(p.read_text())
            feats = data.get("features", [data]) if isinstance(data, dict) else []
            geoms = [shapely.geometry.shape(f.get("geometry", f)) for f in feats]
        else:
            geoms = _read_ogr_lonlat(p)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BasemapError(f"cannot read land basemap {p}: {exc}") from exc
    geoms = [g for g in geoms if g is not None and not g.is_empty]
    return land_from_geometry(p.name, shapely.GeometryCollection(geoms))


def _depth_from_npz(path: Path) -> DepthGrid:
    with np.load(path, allow_pickle=False) as f:
        elev = f["elevation_m"]
        return DepthGrid(
            str(f["name"]),
            float(f["lon0"]),
            float(f["lat0"]),
            float(f["step"]),
            float(f["step"]),
            (-elev.astype(np.float32)),
        )


def load_depth_netcdf(path: str | Path) -> DepthGrid:
    """Depth from a GEBCO-style NetCDF grid (lat, lon, elevation); NetCDF3 or NetCDF4."""
    p = Path(path)
    if not p.exists():
        raise BasemapError(f"depth grid not found: {p}")
    with p.open("rb") as fh:
        magic = fh.read(4)
    try:
        if magic[:3] == b"CDF":
            from scipy.io import netcdf_file

            with netcdf_file(p, "r", mmap=False) as nc:
                names = set(nc.variables)
                lon = np.array(nc.variables[_pick(names, "lon", "x")].data, dtype=np.float64)
                lat = np.array(nc.variables[_pick(names, "lat", "y")].data, dtype=np.float64)
                z = np.array(nc.variables[_pick(names, "elevation", "z")].data, dtype=np.float32)
        else:
            try:
                import h5py  # type: ignore[import-untyped]
            except ImportError as exc:
                raise BasemapError("reading a NetCDF4 grid needs the h5py package") from exc
            with h5py.File(p, "r") as nc:
                names = set(nc.keys())
                lon = np.asarray(nc[_pick(names, "lon", "x")][:], dtype=np.float64)
                lat = np.asarray(nc[_pick(names, "lat", "y")][:], dtype=np.float64)
                z = np.asarray(nc[_pick(names, "elevation", "z")][:], dtype=np.float32)
    except (OSError, KeyError, ValueError) as exc:
        raise BasemapError(f"cannot read depth grid {p}: {exc}") from exc
    if z.shape != (lat.size, lon.size) or lon.size < 2 or lat.size < 2:
        raise BasemapError(f"depth grid {p}: elevation is not [lat, lon]")
    lon = np.where(lon > 180, lon - 360, lon)
    order = np.argsort(lon)
    lon, z = lon[order], z[:, order]
    if lat[1] < lat[0]:
        lat, z = lat[::-1], z[::-1]
    return DepthGrid(
        p.name,
        float(lon[0]),
        float(lat[0]),
        float(lon[1] - lon[0]),
        float(lat[1] - lat[0]),
        -z,
    )


def _pick(names: set[str], *options: str) -> str:
    for o in options:
        if o in names:
            return o
    raise KeyError(f"none of {options} in {sorted(names)}")


@cache
def bundled_land() -> LandBasemap:
    """The committed land cut (NE 10m + Atol das Rocas + Navy chart LNDARE)."""
    if not LAND_FILE.exists():
        raise BasemapError(f"bundled land missing: {LAND_FILE} (run scripts/build_basemaps.py)")
    return _land_from_npz(LAND_FILE)


@cache
def bundled_depth() -> DepthGrid:
    """The committed ETOPO1 0.1 degree cut."""
    if not DEPTH_FILE.exists():
        raise BasemapError(f"bundled depth missing: {DEPTH_FILE} (run scripts/build_basemaps.py)")
    return _depth_from_npz(DEPTH_FILE)


def load_basemap(land: str | Path | None = None, depth: str | Path | None = None) -> Basemap:
    """The basemap: bundled layers unless a land/baseline file or a depth grid is given."""
    land_map = bundled_land() if land is None else load_land_file(land)
    depth_map = bundled_depth() if depth is None else load_depth_netcdf(depth)
    return Basemap(
        land_map,
        depth_map,
        {"bundled_land": land is None, "bundled_depth": depth is None},
    )


@cache
def brazil_territory() -> BaseGeometry:
    """Brazil's land territory (Natural Earth 10m admin-0, prepared for fast point tests):
    its rivers and lakes are the inland waters NORMAM-20 2.1.1 d) counts as AJB."""
    if not TERRITORY_FILE.exists():
        raise BasemapError(f"bundled territory missing: {TERRITORY_FILE}")
    fc = json.loads(TERRITORY_FILE.read_text(encoding="utf-8"))
    geom = shapely.union_all([shapely.geometry.shape(f["geometry"]) for f in fc["features"]])
    shapely.prepare(geom)
    return geom


@cache
def display_land() -> BaseGeometry:
    """Land to draw on maps: inside each bundled chart cell's extent the Navy chart's own
    land areas, elsewhere the bundled land. The ballast figures keep the union (the
    lines are 50 and 200 nm out, where 300 m is nothing); a map at street scale must not
    draw a boat 120 m off Copacabana ashore."""
    land = bundled_land().polygons
    if not CHART_LAND_FILE.exists():
        return land
    fc = json.loads(CHART_LAND_FILE.read_text(encoding="utf-8"))
    shapes = [
        (f["properties"]["kind"], shapely.geometry.shape(f["geometry"])) for f in fc["features"]
    ]
    extents = shapely.union_all([g for kind, g in shapes if kind == "extent"])
    chart = shapely.union_all([g for kind, g in shapes if kind == "land"])
    out = shapely.union(shapely.difference(land, extents), chart)
    shapely.prepare(out)
    return out
