"""What a silence looks like on a map: the straight line between its ends (dashed: the
vessel was not seen on it) and the area it could have reached in its time (an ellipse
with the two ends as foci, the sum of distances to them at most ``reach_m``)."""

from __future__ import annotations

import math

from pyproj import Geod

_GEOD = Geod(ellps="WGS84")


def reach_ring(
    a: tuple[float, float], b: tuple[float, float], reach_m: float, n: int = 48
) -> list[list[float]]:
    """The reachable ellipse's outline as a closed GeoJSON ring (lon, lat), worked out
    geodesically around the ends' midpoint (a few tens of km at most: exact enough)."""
    az, _, dist = _GEOD.inv(a[0], a[1], b[0], b[1])
    semi = max(reach_m, dist) / 2.0
    minor = math.sqrt(max(semi * semi - (dist / 2.0) ** 2, 0.0))
    mid_lon, mid_lat, _ = _GEOD.fwd(a[0], a[1], az, dist / 2.0)
    ring = []
    for k in range(n):
        u = 2.0 * math.pi * k / n
        x, y = semi * math.cos(u), minor * math.sin(u)  # along and across the axis
        r = math.hypot(x, y)
        bearing = az + math.degrees(math.atan2(y, x))
        lon, lat, _ = _GEOD.fwd(mid_lon, mid_lat, bearing, r)
        ring.append([round(lon, 6), round(lat, 6)])
    ring.append(ring[0])
    return ring
