"""Vectorised evaluation: a batch of positions in, (position, zone, distance) pairs out.

Three stages, each cheaper than the next is costly:

1. a boolean numpy grid over the zones' reach rejects, with a few array operations, every
   position whose grid cell touches no zone (most of the ocean);
2. a shapely 2 STRtree over each zone's reach box (the reference geometry's bounding box
   grown by the rule distance plus the margin, converted generously to degrees) gives the
   bounding-box candidates of the survivors, all positions in one query;
3. exact distances in metres, in the zone's local transverse Mercator frame
   (:mod:`zones.frames`), one projection call per frame band and one vectorised call per
   geometry family for all candidate pairs: numpy for point zones, ``shapely.distance``
   for lines, and for polygons a prepared point-in-polygon test first (0 inside), then
   ``dwithin`` and ``shapely.distance`` only for the few outside within reach.

Distances are to the zone's reference geometry (platform, footprint, baseline), 0 inside
a polygon; a platform's ``footprint_m`` or a beach's ``baseline_offset_m`` grows that
geometry first (distance = max(0, distance to the charted geometry - offset)). Validity
windows are not applied here: the rules do that with ``Zone.in_force``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import shapely
from shapely.geometry.base import BaseGeometry

from vigia.zones.catalogue import SAIL_BAND_M
from vigia.zones.frames import Frame, frame_for, frame_for_band
from vigia.zones.model import Zone, ZoneKind

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Default rule distances (NORMAM-07 0211 b) and 0212 a), f)); 0 for area kinds.
DEFAULT_DISTANCE_M: dict[ZoneKind, float] = {
    ZoneKind.MILITARY: 200.0,
    ZoneKind.PLATFORM: 500.0,
    ZoneKind.BATHER_BEACH: 200.0,
}
#: Metres per degree used to grow boxes: below the true minimum (110.57 km for
#: latitude, 111.32 km x cos(lat) for longitude), so boxes only ever err large.
_M_PER_DEG = 110_000.0
#: Upper bound on the candidate grid's cell count (bytes of memory).
_MAX_GRID_CELLS = 4_000_000
_MIN_CELL_DEG = 0.01


@dataclass(frozen=True, slots=True)
class Hits:
    """Equal-length arrays: position index, zone index and distance in metres."""

    pos: IntArray
    zone: IntArray
    distance_m: FloatArray

    def __len__(self) -> int:
        return len(self.pos)


def _empty_hits() -> Hits:
    return Hits(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float64))


def rule_distance_m(zone: Zone) -> float:
    """The zone's rule distance: the override, else the kind's default (0 for areas)."""
    if zone.distance_m is not None:
        return zone.distance_m
    return DEFAULT_DISTANCE_M.get(zone.kind, 0.0)


class _Reach:
    """Grid and STRtree over the zones' reach boxes for one margin."""

    def __init__(self, bounds: FloatArray, reach_m: FloatArray) -> None:
        dlat = reach_m / _M_PER_DEG + 1e-7
        far_lat = np.minimum(np.maximum(np.abs(bounds[:, 1]), np.abs(bounds[:, 3])) + dlat, 89.0)
        dlon = reach_m / (_M_PER_DEG * np.cos(np.radians(far_lat))) + 1e-7
        self.boxes = np.column_stack(
            [bounds[:, 0] - dlon, bounds[:, 1] - dlat, bounds[:, 2] + dlon, bounds[:, 3] + dlat]
        )
        geoms: npt.NDArray[np.object_] = np.asarray(shapely.box(*self.boxes.T), dtype=object)
        self.tree = shapely.STRtree(geoms)
        x0, y0 = self.boxes[:, 0].min(), self.boxes[:, 1].min()
        x1, y1 = self.boxes[:, 2].max(), self.boxes[:, 3].max()
        cell = max(_MIN_CELL_DEG, math.sqrt((x1 - x0) * (y1 - y0) / _MAX_GRID_CELLS))
        # one empty cell of padding below and left: casting to int truncates toward zero,
        # so a position just below the grid lands in the (empty) padding, not in cell 0
        x0, y0 = x0 - cell, y0 - cell
        self.x0, self.y0, self.inv_cell = float(x0), float(y0), 1.0 / cell
        self.nx = int((x1 - x0) / cell) + 1
        self.ny = int((y1 - y0) / cell) + 1
        grid = np.zeros((self.ny, self.nx), dtype=bool)
        ix = ((self.boxes[:, [0, 2]] - x0) / cell).astype(np.int64)
        iy = ((self.boxes[:, [1, 3]] - y0) / cell).astype(np.int64)
        for (a, b), (c, d) in zip(ix.tolist(), iy.tolist(), strict=True):
            grid[c : d + 1, a : b + 1] = True
        self.grid = grid.ravel()

    def survivors(self, lon: FloatArray, lat: FloatArray) -> IntArray:
        """Indices of positions whose grid cell touches some zone's reach."""
        with np.errstate(invalid="ignore"):  # NaN and inf cast to a negative index
            ix = ((lon - self.x0) * self.inv_cell).astype(np.int64)
            iy = ((lat - self.y0) * self.inv_cell).astype(np.int64)
        ok = (ix >= 0) & (ix < self.nx) & (iy >= 0) & (iy < self.ny)
        flat = np.where(ok, iy * self.nx + ix, 0)
        return np.flatnonzero(self.grid[flat] & ok).astype(np.int64)


class ZoneIndex:
    """Zones compiled for evaluation: metre frames, rule distances, and spatial indexes."""

    sail_band_m: float = SAIL_BAND_M

    def __init__(self, zones: Sequence[Zone]) -> None:
        self.zones: list[Zone] = list(zones)
        n = len(self.zones)
        self.threshold_m: FloatArray = np.array(
            [rule_distance_m(z) for z in self.zones], dtype=np.float64
        )
        # footprint / surf-line offsets: the reference is the charted geometry grown by it
        self.offset_m: FloatArray = np.array([z.offset_m for z in self.zones], dtype=np.float64)
        self._bounds = np.array([z.geometry.bounds for z in self.zones], dtype=np.float64)
        self._bounds = self._bounds.reshape(n, 4)
        frames = [frame_for(z.geometry) for z in self.zones]
        self._band: IntArray = np.array([f.band for f in frames], dtype=np.int64)
        self._frames: list[Frame] = frames
        geoms = np.empty(n, dtype=object)
        geoms[:] = [z.geometry for z in self.zones]
        self._geom_m = np.empty(n, dtype=object)
        for band in np.unique(self._band).tolist():
            sel = np.flatnonzero(self._band == band)
            self._geom_m[sel] = frame_for_band(band).project_many(geoms[sel])
        is_point = np.array([z.geometry.geom_type == "Point" for z in self.zones], dtype=bool)
        self._is_point = is_point
        xy = np.full((n, 2), np.nan)
        if is_point.any():
            xy[is_point] = shapely.get_coordinates(self._geom_m[is_point])
        self._point_xy = xy
        self._is_area = np.array(
            [z.geometry.geom_type in ("Polygon", "MultiPolygon") for z in self.zones], dtype=bool
        )
        shapely.prepare(self._geom_m)
        self._reach: dict[float, _Reach] = {}

    def __len__(self) -> int:
        return len(self.zones)

    def _reach_for(self, margin_m: float) -> _Reach:
        key = float(margin_m)
        reach = self._reach.get(key)
        if reach is None:
            if len(self._reach) > 8:
                self._reach.clear()
            reach = _Reach(self._bounds, self.threshold_m + self.offset_m + key)
            self._reach[key] = reach
        return reach

    def evaluate(
        self, lon: FloatArray, lat: FloatArray, *, margin_m: float = 0.0, prefilter: bool = True
    ) -> Hits:
        """Every (position, zone) pair with distance_m <= threshold_m[zone] + margin_m.

        ``prefilter=False`` skips the grid stage (same result; the benchmark's baseline).
        """
        lon = np.ascontiguousarray(lon, dtype=np.float64)
        lat = np.ascontiguousarray(lat, dtype=np.float64)
        if lon.shape != lat.shape or lon.ndim != 1:
            raise ValueError("lon and lat must be 1-D arrays of equal length")
        if not self.zones or len(lon) == 0:
            return _empty_hits()
        if not math.isfinite(margin_m) or margin_m < 0:
            raise ValueError("margin_m must be a finite number >= 0")
        reach = self._reach_for(margin_m)
        if prefilter:
            cand = reach.survivors(lon, lat)
        else:
            cand = np.flatnonzero(np.isfinite(lon) & np.isfinite(lat)).astype(np.int64)
        if len(cand) == 0:
            return _empty_hits()
        sub, zone = reach.tree.query(shapely.points(lon[cand], lat[cand]))
        pos = cand[sub]
        zone = zone.astype(np.int64)
        dist = self._distances(pos, zone, lon, lat, margin_m)
        off = self.offset_m[zone]
        dist = np.where(off > 0, np.maximum(dist - off, 0.0), dist)
        keep = dist <= self.threshold_m[zone] + margin_m
        pos, zone, dist = pos[keep], zone[keep], dist[keep]
        order = np.lexsort((zone, pos))
        return Hits(pos[order], zone[order], dist[order])

    def _distances(
        self, pos: IntArray, zone: IntArray, lon: FloatArray, lat: FloatArray, margin_m: float
    ) -> FloatArray:
        """Exact distance (m) of each candidate pair in the zone's frame; +inf where a
        polygon is farther than its reach (its exact distance is not needed then)."""
        out = np.empty(len(pos), dtype=np.float64)
        x = np.empty(len(pos), dtype=np.float64)
        y = np.empty(len(pos), dtype=np.float64)
        bands = self._band[zone]
        for band in np.unique(bands).tolist():
            sel = np.flatnonzero(bands == band)
            x[sel], y[sel] = frame_for_band(band).forward(lon[pos[sel]], lat[pos[sel]])
        pt = self._is_point[zone]
        if pt.any():
            zxy = self._point_xy[zone[pt]]
            out[pt] = np.hypot(x[pt] - zxy[:, 0], y[pt] - zxy[:, 1])
        line = np.flatnonzero(~pt & ~self._is_area[zone])
        if len(line):
            out[line] = shapely.distance(shapely.points(x[line], y[line]), self._geom_m[zone[line]])
        area = np.flatnonzero(self._is_area[zone])
        if len(area):
            # prepared point-in-polygon first: a large polygon (a jurisdiction) with
            # thousands of vertices costs microseconds per distance, nanoseconds per test
            geoms = self._geom_m[zone[area]]
            inside = shapely.contains_xy(geoms, x[area], y[area])
            out[area] = np.where(inside, 0.0, np.inf)
            reach = self.threshold_m[zone[area]] + self.offset_m[zone[area]] + margin_m
            todo = np.flatnonzero(~inside & (reach > 0))
            if len(todo):
                pts: npt.NDArray[np.object_] = np.asarray(
                    shapely.points(x[area[todo]], y[area[todo]]), dtype=object
                )
                # the stubs allow a scalar distance only; shapely broadcasts arrays
                near = shapely.dwithin(geoms[todo], pts, reach[todo])  # type: ignore[call-overload]
                sel = todo[near]
                out[area[sel]] = shapely.distance(pts[near], geoms[sel])
        return out

    def distance_m(self, zone_idx: int, lon: FloatArray, lat: FloatArray) -> FloatArray:
        """Distance (m) from each position to one zone's reference geometry (0 inside)."""
        frame = self._frames[zone_idx]
        x, y = frame.forward(np.asarray(lon, np.float64), np.asarray(lat, np.float64))
        with np.errstate(invalid="ignore"):  # NaN positions give NaN, quietly
            d = shapely.distance(shapely.points(x, y), self._geom_m[zone_idx])
            d = np.maximum(np.asarray(d, dtype=np.float64) - self.offset_m[zone_idx], 0.0)
        return np.asarray(d, dtype=np.float64)

    def nearest_point(self, zone_idx: int, lon: float, lat: float) -> tuple[float, float]:
        """Lon/lat of the point of the zone's reference geometry closest to (lon, lat)."""
        out_lon, out_lat = self.nearest_points(
            zone_idx, np.array([lon], np.float64), np.array([lat], np.float64)
        )
        return float(out_lon[0]), float(out_lat[0])

    def nearest_points(
        self, zone_idx: int, lon: FloatArray, lat: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Per position, the lon/lat of the closest point of the zone's reference geometry
        (element by element the same figures as :meth:`nearest_point`)."""
        frame = self._frames[zone_idx]
        x, y = frame.forward(np.asarray(lon, np.float64), np.asarray(lat, np.float64))
        lines = shapely.shortest_line(shapely.points(x, y), self._geom_m[zone_idx])
        # each line runs from the position to the geometry: its second vertex
        ends = np.asarray(shapely.get_coordinates(lines), dtype=np.float64).reshape(-1, 2, 2)[:, 1]
        return frame.inverse(ends[:, 0].copy(), ends[:, 1].copy())

    def band(self, zone_idx: int, width_m: float | None = None) -> BaseGeometry:
        """The zone's evaluation form as a lon/lat polygon, for maps: every point within
        ``width_m`` (default the rule distance) of the reference geometry, buffered in
        metres in the zone's frame."""
        frame = self._frames[zone_idx]
        width = float(self.threshold_m[zone_idx] if width_m is None else width_m)
        width += float(self.offset_m[zone_idx])
        geom: BaseGeometry = self._geom_m[zone_idx]
        shape_m = geom.buffer(width, quad_segs=16) if width > 0 else geom

        def inv(coords: FloatArray) -> FloatArray:
            lon, lat = frame.inverse(coords[:, 0].copy(), coords[:, 1].copy())
            return np.column_stack([lon, lat])

        out: BaseGeometry = shapely.transform(shape_m, inv)
        return out

    def projected(self, zone_idx: int) -> tuple[Frame, BaseGeometry]:
        """The zone's frame and its reference geometry in that frame's metres."""
        geom: BaseGeometry = self._geom_m[zone_idx]
        return self._frames[zone_idx], geom

    def zones_containing(
        self, kind: ZoneKind, lon: FloatArray, lat: FloatArray
    ) -> list[int | None]:
        """Per position, the index of the first zone of ``kind`` containing it, else None."""
        lon = np.asarray(lon, dtype=np.float64)
        lat = np.asarray(lat, dtype=np.float64)
        found = np.full(len(lon), -1, dtype=np.int64)
        for i, z in enumerate(self.zones):
            if z.kind is not kind:
                continue
            todo = np.flatnonzero(found < 0)
            if len(todo) == 0:
                break
            shapely.prepare(z.geometry)  # idempotent; makes large polygons cheap
            inside = shapely.intersects_xy(z.geometry, lon[todo], lat[todo])
            found[todo[inside]] = i
        return [None if f < 0 else int(f) for f in found.tolist()]
