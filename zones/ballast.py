"""Ballast-water assessment: geodesic distance to land, depth, and the 2.3.1 classes.

Distance is the true distance on the WGS84 ellipsoid to the nearest land of the
basemap. The coast is densified (straight lon/lat edges, at most ``MAX_SEG_KM`` apart)
and indexed in Earth-centred (ECEF) coordinates; the nearest point of the nearest
segments is found as a Euclidean chord, which is exact 3-D geometry, and the chord is
converted to the geodesic length (``c + c^3 / 24R^2``, R the Gaussian radius at the
point: error under 1 m at 200 nm). A k-nearest query is accepted only when every
vertex it did not return is provably too far to bound a nearer segment; other points
fall back to a radius query, so the result does not depend on k.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from vigia.ingest.errors import InputFormatError
from vigia.ingest.units import M_PER_NM, lonlat_in_range
from vigia.zones.ballast_grid import LIMIT_A_NM, LIMIT_B_NM, ClassGrid, grid_for
from vigia.zones.basemap import Basemap, FloatArray, LandBasemap, load_basemap

NM_KM = M_PER_NM / 1000.0
A_KM = 6378.137
F = 1 / 298.257223563
E2 = F * (2 - F)
MAX_SEG_KM = 3.0
MIN_DEPTH_M = 200.0
ZONES = ("within_50nm", "between_50_200nm", "beyond_200nm")
WITHIN_50, BETWEEN, BEYOND = 0, 1, 2
_CHUNK = 40_000
_K = 4


def ecef_km(lons: FloatArray, lats: FloatArray) -> FloatArray:
    """Earth-centred coordinates (km) of points on the WGS84 ellipsoid surface."""
    lam = np.radians(lons)
    phi = np.radians(lats)
    s = np.sin(phi)
    n = A_KM / np.sqrt(1 - E2 * s * s)
    c = np.cos(phi)
    return np.stack([n * c * np.cos(lam), n * c * np.sin(lam), n * (1 - E2) * s], axis=-1)


def gaussian_radius_km(lats: FloatArray) -> FloatArray:
    """sqrt(M N): the mean radius of curvature at a latitude."""
    s2 = np.sin(np.radians(lats)) ** 2
    w = 1 - E2 * s2
    return np.asarray(A_KM * np.sqrt(1 - E2) / w, dtype=np.float64)


def chord_to_geodesic_km(chord: FloatArray, lats: FloatArray) -> FloatArray:
    """Geodesic length of a chord (series of 2R asin(c/2R), good well past 500 km)."""
    r = gaussian_radius_km(lats)
    x = chord / r
    return np.asarray(chord * (1 + x * x / 24 + 3 * x**4 / 640), dtype=np.float64)


def _densify(ring: FloatArray, closed: bool) -> FloatArray:
    """Insert vertices along straight lon/lat edges so none is longer than MAX_SEG_KM."""
    if len(ring) < 2:
        return ring
    pts = np.vstack([ring, ring[:1]]) if closed else ring
    e = ecef_km(pts[:, 0], pts[:, 1])
    seg_km = np.linalg.norm(np.diff(e, axis=0), axis=1)
    parts = np.maximum(1, np.ceil(seg_km / MAX_SEG_KM * 1.02)).astype(np.intp)
    starts = np.repeat(pts[:-1], parts, axis=0)
    ends = np.repeat(pts[1:], parts, axis=0)
    offs = np.concatenate([np.arange(p) for p in parts]) / np.repeat(parts, parts)
    out = starts + (ends - starts) * offs[:, None]
    return out if closed else np.vstack([out, pts[-1:]])


class CoastIndex:
    """Nearest-land geodesic distance against one land basemap."""

    def __init__(self, land: LandBasemap) -> None:
        xs: list[FloatArray] = []
        nxt: list[NDArray[np.intp]] = []
        prv: list[NDArray[np.intp]] = []
        base = 0
        for ring, closed in zip(land.rings, land.closed, strict=True):
            d = _densify(ring, closed)
            n = len(d)
            idx = np.arange(base, base + n)
            if closed:
                nx_, pv = np.roll(idx, -1), np.roll(idx, 1)
            else:
                nx_ = np.append(idx[1:], idx[-1])
                pv = np.insert(idx[:-1], 0, idx[0])
            xs.append(d)
            nxt.append(nx_)
            prv.append(pv)
            base += n
        lonlat = np.vstack(xs)
        self.land = land
        self.lonlat = lonlat
        self.xyz = ecef_km(lonlat[:, 0], lonlat[:, 1])
        self.nxt = np.concatenate(nxt)
        self.prv = np.concatenate(prv)
        seg = np.linalg.norm(self.xyz[self.nxt] - self.xyz, axis=1)
        self.max_seg_km = float(seg.max()) if len(seg) else 0.0
        self.tree = cKDTree(self.xyz, leafsize=64)

    def _seg_dist(self, p: FloatArray, cand: NDArray[np.intp]) -> FloatArray:
        """Chord distance from points p (N,3) to segments adjacent to candidates (N,k)."""
        a = np.concatenate([cand, self.prv[cand]], axis=1)
        b = np.concatenate([self.nxt[cand], cand], axis=1)
        pa = self.xyz[a]
        ab = self.xyz[b] - pa
        ap = p[:, None, :] - pa
        den = np.einsum("nkd,nkd->nk", ab, ab)
        t = np.einsum("nkd,nkd->nk", ap, ab) / np.where(den > 0, den, 1.0)
        t = np.clip(t, 0.0, 1.0)
        diff = ap - ab * t[..., None]
        d2 = np.einsum("nkd,nkd->nk", diff, diff)
        return np.asarray(np.sqrt(d2.min(axis=1)), dtype=np.float64)

    def chord_km(self, xyz: FloatArray) -> FloatArray:
        """Chord (km) from ECEF points to the nearest coast segment."""
        out = np.empty(len(xyz))
        k = min(_K, len(self.xyz))
        for lo in range(0, len(xyz), _CHUNK):
            p = xyz[lo : lo + _CHUNK]
            dist, idx = self.tree.query(p, k=k)
            dist = dist.reshape(len(p), k)
            idx = idx.reshape(len(p), k)
            c = self._seg_dist(p, idx)
            # a segment nearer than c has an endpoint within sqrt(c^2 + (s/2)^2)
            reach = np.sqrt(c * c + self.max_seg_km**2 / 4) + 1e-9
            unsure = np.flatnonzero((dist[:, -1] <= reach) & (k < len(self.xyz)))
            for i in unsure:
                near = np.asarray(self.tree.query_ball_point(p[i], reach[i]), dtype=np.intp)
                if len(near):
                    c[i] = min(c[i], self._seg_dist(p[i : i + 1], near[None, :])[0])
            out[lo : lo + len(p)] = c
        return out

    def distance_nm(self, lons: FloatArray, lats: FloatArray) -> FloatArray:
        """Geodesic distance (nm) to the nearest land; 0 on land."""
        lons = np.atleast_1d(np.asarray(lons, dtype=np.float64))
        lats = np.atleast_1d(np.asarray(lats, dtype=np.float64))
        km = np.zeros(len(lons))
        sea = np.flatnonzero(~self.land.contains(lons, lats))
        chord = self.chord_km(ecef_km(lons[sea], lats[sea]))
        km[sea] = chord_to_geodesic_km(chord, lats[sea])
        return km / NM_KM


@dataclass(slots=True)
class Assessment:
    """Per-point figures (arrays of equal length)."""

    lon: FloatArray
    lat: FloatArray
    distance_nm: FloatArray
    depth_m: FloatArray
    zone: NDArray[np.int8]
    meets_200: NDArray[np.bool_]
    meets_50: NDArray[np.bool_]
    basemap: dict[str, str]

    def __len__(self) -> int:
        return len(self.lon)

    def item(self, i: int) -> dict[str, Any]:
        """The docs/contract.md section 6 object of point ``i`` (plus the basemap it used)."""
        depth = self.depth_m[i]
        return {
            "lat": float(self.lat[i]),
            "lon": float(self.lon[i]),
            "distance_to_land_nm": round(float(self.distance_nm[i]), 2),
            "depth_m": None if np.isnan(depth) else round(float(depth), 1),
            "zone": ZONES[int(self.zone[i])],
            "meets_200": bool(self.meets_200[i]),
            "meets_50": bool(self.meets_50[i]),
            "basemap": dict(self.basemap),
        }

    def items(self) -> list[dict[str, Any]]:
        """Every point's object."""
        return [self.item(i) for i in range(len(self))]


def zone_of(distance_nm: FloatArray) -> NDArray[np.int8]:
    """The 2.3.1 class of each distance."""
    z = np.full(np.shape(distance_nm), WITHIN_50, dtype=np.int8)
    z[distance_nm >= LIMIT_B_NM] = BETWEEN
    z[distance_nm >= LIMIT_A_NM] = BEYOND
    return z


def meets(
    zone: NDArray[np.int8], depth_m: FloatArray
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """(meets_200, meets_50): distance class and depth together (NaN depth meets nothing)."""
    deep = np.nan_to_num(depth_m, nan=-1.0) >= MIN_DEPTH_M
    return (zone == BEYOND) & deep, (zone >= BETWEEN) & deep


class BallastAssessor:
    """Exact assessment and the bulk fast path against one basemap."""

    def __init__(self, basemap: Basemap) -> None:
        self.basemap = basemap
        self.index = CoastIndex(basemap.land)
        self._grid: ClassGrid | None = None

    @property
    def grid(self) -> ClassGrid:
        """The classification grid (prebuilt for the bundled basemap, else built now)."""
        if self._grid is None:
            self._grid = grid_for(self)
        return self._grid

    def distance_nm(self, lons: FloatArray, lats: FloatArray) -> FloatArray:
        """Exact geodesic distance to the nearest land (nm)."""
        return self.index.distance_nm(lons, lats)

    def assess(self, lons: FloatArray, lats: FloatArray) -> Assessment:
        """Exact figures for each point."""
        lons = np.atleast_1d(np.asarray(lons, dtype=np.float64))
        lats = np.atleast_1d(np.asarray(lats, dtype=np.float64))
        check_coords(lons, lats)
        dist = self.distance_nm(lons, lats)
        depth = self.basemap.depth.depth_at(lons, lats)
        zone = zone_of(dist)
        m200, m50 = meets(zone, depth)
        return Assessment(lons, lats, dist, depth, zone, m200, m50, self.basemap.names)

    def classify(
        self, lons: FloatArray, lats: FloatArray
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_], NDArray[np.bool_]]:
        """Bulk (zone, meets_200, meets_50): the grid where it decides, exact elsewhere."""
        lons = np.atleast_1d(np.asarray(lons, dtype=np.float64))
        lats = np.atleast_1d(np.asarray(lats, dtype=np.float64))
        zone = self.grid.lookup(lons, lats)
        todo = np.flatnonzero(zone < 0)
        if len(todo):
            zone[todo] = zone_of(self.distance_nm(lons[todo], lats[todo]))
        m200, m50 = meets(zone, self.basemap.depth.depth_at(lons, lats))
        return zone, m200, m50


class CoordinateError(InputFormatError):
    """Latitude or longitude missing or out of range."""

    code = "invalid-coordinates"


def check_coords(lons: FloatArray, lats: FloatArray) -> None:
    """Refuse NaN or out-of-range coordinates."""
    bad = ~lonlat_in_range(lons, lats)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CoordinateError(f"point {i}: lat {lats[i]}, lon {lons[i]} out of range")


@cache
def _cached(land: str | None, depth: str | None) -> BallastAssessor:
    return BallastAssessor(load_basemap(land, depth))


def get_assessor(land: str | None = None, depth: str | None = None) -> BallastAssessor:
    """A cached assessor for the bundled basemap or the given land/depth files."""
    return _cached(land, depth)
