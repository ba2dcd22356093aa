"""The bulk fast path (a classification grid) and the 200/50 nm lines and 200 m isobath.

Distance to land changes by at most the distance moved, so a cell whose corner
distances, widened by the cell's half-diagonal, stay on one side of 50 and 200 nm has
one class for every point in it. Only points in the other cells (a band a few miles
wide along each line) and outside the grid need the exact method.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import shapely
from numpy.typing import NDArray

from vigia.zones.basemap import GRID_FILE, LINES_FILE, Basemap, FloatArray

# NORMAM-20/DPC 2.3.1: a) at least 200 nm from the nearest land, b) at least 50 nm. They
# live here, below zones.ballast, so the grid needs nothing from the assessor's module.
LIMIT_A_NM = 200.0
LIMIT_B_NM = 50.0


class Measurer(Protocol):
    """What the grid needs of an assessor (structural, so this module imports none)."""

    @property
    def basemap(self) -> Basemap: ...

    @property
    def grid(self) -> ClassGrid: ...

    def distance_nm(self, lons: FloatArray, lats: FloatArray) -> FloatArray: ...


GRID_WINDOW = (-60.0, -38.0, -20.0, 10.0)  # lon/lat: Brazil's coast, islands and beyond
GRID_STEP = 0.05
MIXED = -1


@dataclass(slots=True)
class ClassGrid:
    """Class per cell (0 within 50 nm, 1 between, 2 beyond 200 nm, -1 undecided)."""

    lon0: float
    lat0: float
    step: float
    cls: NDArray[np.int8]  # [lat index, lon index]

    def lookup(self, lons: FloatArray, lats: FloatArray) -> NDArray[np.int8]:
        """Class of each point's cell; -1 for undecided cells and points off the grid."""
        ny, nx = self.cls.shape
        ix = np.floor((lons - self.lon0) / self.step).astype(np.intp)
        iy = np.floor((lats - self.lat0) / self.step).astype(np.intp)
        inside = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
        out = np.full(len(lons), MIXED, dtype=np.int8)
        out[inside] = self.cls[iy[inside], ix[inside]]
        return out

    @property
    def decided_fraction(self) -> float:
        """Share of cells the grid decides alone."""
        return float(np.mean(self.cls != MIXED))

    def save(self, path: Path) -> None:
        """Write the grid as a compressed npz."""
        np.savez_compressed(path, cls=self.cls, lon0=self.lon0, lat0=self.lat0, step=self.step)

    @classmethod
    def load(cls, path: Path) -> ClassGrid:
        """Read a grid written by ``save``."""
        with np.load(path, allow_pickle=False) as f:
            return cls(float(f["lon0"]), float(f["lat0"]), float(f["step"]), f["cls"])


def build_grid(
    assessor: Measurer,
    window: tuple[float, float, float, float] = GRID_WINDOW,
    step: float = GRID_STEP,
) -> tuple[ClassGrid, FloatArray]:
    """The grid and the exact distance (nm) at its nodes."""
    lons = np.arange(window[0], window[2] + step / 2, step)
    lats = np.arange(window[1], window[3] + step / 2, step)
    gx, gy = np.meshgrid(lons, lats)
    nodes = assessor.distance_nm(gx.ravel(), gy.ravel()).reshape(gx.shape)
    corners = np.stack([nodes[:-1, :-1], nodes[:-1, 1:], nodes[1:, :-1], nodes[1:, 1:]])
    # conservative nm per degree: meridian at most 60.4, parallel at most 60.2 cos(lat)
    low_abs_lat = np.minimum(np.abs(lats[:-1]), np.abs(lats[1:]))
    low_abs_lat[np.sign(lats[:-1]) != np.sign(lats[1:])] = 0.0
    dx = step * 60.2 * np.cos(np.radians(low_abs_lat))
    dy = step * 60.4
    half_diag = (0.5 * np.sqrt(dx**2 + dy**2) * 1.01)[:, None]
    lo = corners.min(axis=0) - half_diag
    hi = corners.max(axis=0) + half_diag
    cls = np.full(lo.shape, MIXED, dtype=np.int8)
    cls[hi < LIMIT_B_NM] = 0
    cls[(lo >= LIMIT_B_NM) & (hi < LIMIT_A_NM)] = 1
    cls[lo >= LIMIT_A_NM] = 2
    return ClassGrid(float(lons[0]), float(lats[0]), step, cls), nodes


def grid_for(assessor: Measurer) -> ClassGrid:
    """The prebuilt grid for the bundled basemap; otherwise one built now (seconds)."""
    if assessor.basemap.is_bundled and GRID_FILE.exists():
        return ClassGrid.load(GRID_FILE)
    grid, nodes = build_grid(assessor)
    assessor.basemap.extra["grid_nodes_nm"] = nodes
    return grid


def contour(
    values: FloatArray, lons: FloatArray, lats: FloatArray, level: float
) -> shapely.MultiLineString:
    """Marching squares: the line where a node field crosses ``level``, merged."""
    v = np.where(np.isnan(values), -np.inf, values)
    above = v >= level

    def cut(a: FloatArray, b: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip((level - a) / (b - a), 0.0, 1.0)
        return np.nan_to_num(t, nan=0.5)

    # crossing points on horizontal edges (ny, nx-1) and vertical edges (ny-1, nx)
    th = cut(v[:, :-1], v[:, 1:])
    hx, hy = lons[:-1] + th * np.diff(lons), np.broadcast_to(lats[:, None], th.shape)
    tv = cut(v[:-1, :], v[1:, :])
    vx, vy = np.broadcast_to(lons[None, :], tv.shape), lats[:-1, None] + tv * np.diff(lats)[:, None]
    hc = above[:, :-1] != above[:, 1:]
    vc = above[:-1, :] != above[1:, :]
    # edges per cell: 0 bottom, 1 right, 2 top, 3 left
    ex = np.stack([hx[:-1], vx[:, 1:], hx[1:], vx[:, :-1]], axis=-1)
    ey = np.stack([hy[:-1], vy[:, 1:], hy[1:], vy[:, :-1]], axis=-1)
    ec = np.stack([hc[:-1], vc[:, 1:], hc[1:], vc[:, :-1]], axis=-1)
    n = ec.sum(axis=-1)
    segs: list[NDArray[np.float64]] = []
    two = np.argwhere(n == 2)
    if len(two):
        order = np.argsort(~ec[two[:, 0], two[:, 1]], axis=-1, kind="stable")[:, :2]
        r, c = two[:, 0:1], two[:, 1:2]
        pts = np.stack([ex[r, c, order], ey[r, c, order]], axis=-1)
        segs.extend(pts)
    for r, c in np.argwhere(n == 4):
        centre = above[r, c]  # saddle: join edges around the corner unlike the centre
        pairs = ((0, 1), (2, 3)) if centre == above[r, c + 1] else ((0, 3), (1, 2))
        for a, b in pairs:
            segs.append(np.array([[ex[r, c, a], ey[r, c, a]], [ex[r, c, b], ey[r, c, b]]]))
    if not segs:
        return shapely.MultiLineString([])
    merged = shapely.line_merge(shapely.MultiLineString(segs))
    return shapely.MultiLineString(
        [g for g in shapely.get_parts(merged) if isinstance(g, shapely.LineString)]
    )


def lines_geojson(grid: ClassGrid, nodes_nm: FloatArray, basemap: Basemap) -> dict[str, Any]:
    """The 200 nm and 50 nm lines and the 200 m isobath as a FeatureCollection."""
    ny, nx = nodes_nm.shape
    lons = np.asarray(grid.lon0 + grid.step * np.arange(nx), dtype=np.float64)
    lats = np.asarray(grid.lat0 + grid.step * np.arange(ny), dtype=np.float64)
    gx, gy = np.meshgrid(lons, lats)
    depth = basemap.depth.depth_at(gx.ravel(), gy.ravel()).reshape(gx.shape)
    features = []
    for key, field, level, desc in (
        ("200nm", nodes_nm, 200.0, "200 nm from the nearest land (NORMAM-20 2.3.1 a)"),
        ("50nm", nodes_nm, 50.0, "50 nm from the nearest land (NORMAM-20 2.3.1 b)"),
        ("isobath_200m", depth, 200.0, "200 m depth contour"),
    ):
        line = shapely.simplify(contour(field, lons, lats, level), 0.01)
        geom = json.loads(shapely.to_geojson(shapely.set_precision(line, 1e-4)))
        props = {"line": key, "description": desc, "basemap": basemap.names}
        features.append({"type": "Feature", "id": key, "geometry": geom, "properties": props})
    return {
        "type": "FeatureCollection",
        "features": features,
        "window": list(GRID_WINDOW),
        "grid_step_deg": grid.step,
    }


def lines_for(assessor: Measurer) -> dict[str, Any]:
    """The lines for an assessor's basemap: prebuilt for the bundled one, else computed."""
    if assessor.basemap.is_bundled and LINES_FILE.exists():
        data: dict[str, Any] = json.loads(LINES_FILE.read_text())
        return data
    cached = assessor.basemap.extra.get("lines")
    if cached is None:
        nodes = assessor.basemap.extra.get("grid_nodes_nm")
        if nodes is None:
            _, nodes = build_grid(assessor)
            assessor.basemap.extra["grid_nodes_nm"] = nodes
        cached = lines_geojson(assessor.grid, nodes, assessor.basemap)
        assessor.basemap.extra["lines"] = cached
    out: dict[str, Any] = cached
    return out
