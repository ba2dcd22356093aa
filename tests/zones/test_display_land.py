"""The map's land (zones/basemap.py ``display_land``): the Navy chart's coast where a
chart cell charts the coast, the bundled land elsewhere, and never a hole between them.

The reference is the bundled land itself (Natural Earth 10m with the charts' land
areas) beyond the coast the charts chart: BR323100 charts Rio de Janeiro to São
Sebastião, lon -45.6 to -43.0 (the shared data's provenance, ../shared/data/README.md).
West of it, away from the coast (where two generalisations of one coast cannot disagree),
the map must say land where the reference does and water where it does. Inside the
cells the chart rightly differs (Lagoa de Araruama is water on the chart, land in
Natural Earth 10m). A cell's extent once
was the bounds of all its layers; BR323100's land areas reach 0.7 deg west of the last
coast it charts, so Natural Earth was cut out along the Santos coast and a rectangle of
land about 75 x 25 km was drawn as water (found on the dashboard in issue 35).
"""

from __future__ import annotations

import numpy as np
import pyproj
import shapely

from vigia.zones.basemap import bundled_land, display_land

#: a margin for two generalisations of one coast (NE 10m is off by up to about 1 km)
MARGIN_M = 2_000.0
#: west of BR323100's charted coast (to -45.6) to the Santos coast, every 0.02 deg
LON = np.arange(-47.0, -45.65, 0.02)
LAT = np.arange(-24.4, -23.4, 0.02)


def test_the_map_agrees_with_the_bundled_land_away_from_the_coast() -> None:
    box = shapely.box(LON[0] - 0.1, LAT[0] - 0.1, LON[-1] + 0.1, LAT[-1] + 0.1)
    reference = shapely.intersection(bundled_land().polygons, box)
    shown = shapely.intersection(display_land(), box)
    lon, lat = np.meshgrid(LON, LAT)
    pts = shapely.points(lon.ravel(), lat.ravel())
    # metres in UTM 23S, where the whole box lies within a few degrees of the zone
    utm = pyproj.Transformer.from_crs(4326, 32723, always_xy=True)

    def metres(g: shapely.Geometry) -> shapely.Geometry:
        return shapely.transform(g, lambda xy: np.column_stack(utm.transform(xy[:, 0], xy[:, 1])))

    coast_m = metres(shapely.boundary(reference))
    far = shapely.distance(metres(pts), coast_m) > MARGIN_M
    on_land = shapely.contains_xy(reference, lon.ravel(), lat.ravel())
    shown_land = shapely.contains_xy(shown, lon.ravel(), lat.ravel())
    assert far.sum() > 2_000 and (far & on_land).sum() > 1_000  # the check has points
    wrong = far & (on_land != shown_land)
    where = zip(lon.ravel()[wrong][:10], lat.ravel()[wrong][:10], strict=True)
    assert not wrong.any(), [(round(x, 2), round(y, 2)) for x, y in where]
