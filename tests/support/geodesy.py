"""An independent geodesic reference for distance to land (a test oracle).

Imports no pytest, so benchmarks can measure against it too.
"""

from __future__ import annotations

import numpy as np
import shapely
from pyproj import CRS, Transformer

from vigia.zones.basemap import LandBasemap


def reference_distance_nm(land: LandBasemap, lon: float, lat: float, box_deg: float = 6.0) -> float:
    """Geodesic distance to land from an azimuthal equidistant projection centred on the
    point (exact for distances from its centre), with shapely on the same basemap."""
    window = shapely.box(lon - box_deg, lat - box_deg, lon + box_deg, lat + box_deg)
    polys = shapely.intersection(land.polygons, window)
    if polys.contains(shapely.Point(lon, lat)):
        return 0.0
    # islet points and open baselines are land too
    extra = [
        shapely.Point(r[0]) if len(r) == 1 else shapely.LineString(r)
        for r, closed in zip(land.rings, land.closed, strict=True)
        if not closed
    ]
    parts = [g for g in [polys, *extra] if not g.is_empty and window.intersects(g)]
    geom = shapely.segmentize(shapely.GeometryCollection(parts), 0.005)
    aeqd = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m")
    to_aeqd = Transformer.from_crs(4326, aeqd, always_xy=True)
    projected = shapely.transform(
        geom, lambda xy: np.column_stack(to_aeqd.transform(xy[:, 0], xy[:, 1]))
    )
    nm = float(shapely.distance(projected, shapely.Point(0, 0))) / 1852.0
    # only land inside the box was seen: widen it until the answer is inside the box
    if not np.isfinite(nm) or nm > box_deg * 60 * 0.5:
        return reference_distance_nm(land, lon, lat, box_deg * 2)
    return nm
