"""The pairs of slow vessels within reach of each other at one slot.

Vessels go into H3 cells (resolution 7, cells about 1.2 km across; every point within
500 m of a point lies in that point's cell or the ring around it, since a cell is wider
than that), so a vessel is measured only against its neighbours: the cost per vessel is
bounded by how crowded its neighbourhood is, never by the fleet. Distances are geodesic
on WGS84 (pyproj), a batch at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import h3
import numpy as np
from pyproj import Geod

_GEOD = Geod(ellps="WGS84")


def near_pairs(
    mmsis: Sequence[int],
    lons: Sequence[float],
    lats: Sequence[float],
    near_m: float,
    res: int,
) -> list[tuple[int, int, float]]:
    """(i, j, metres) for every pair of entries (indexes, i's MMSI below j's) within
    ``near_m`` of each other."""
    cells: dict[str, list[int]] = {}
    own: list[str] = []
    for i in range(len(mmsis)):
        c = h3.latlng_to_cell(lats[i], lons[i], res)
        own.append(c)
        cells.setdefault(c, []).append(i)
    ii: list[int] = []
    jj: list[int] = []
    for i, c in enumerate(own):
        for ring in h3.grid_disk(c, 1):
            for j in cells.get(ring, ()):
                if mmsis[j] > mmsis[i]:
                    ii.append(i)
                    jj.append(j)
    if not ii:
        return []
    lo, la = np.asarray(lons, dtype=np.float64), np.asarray(lats, dtype=np.float64)
    a, b = np.asarray(ii), np.asarray(jj)
    _, _, dist = _GEOD.inv(lo[a], la[a], lo[b], la[b])
    keep = np.flatnonzero(np.asarray(dist) <= near_m)
    return [(int(a[x]), int(b[x]), float(dist[x])) for x in keep.tolist()]


def geodesic_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Geodesic distance on WGS84, metres."""
    return float(_GEOD.inv(lon1, lat1, lon2, lat2)[2])
