"""Fixes deep inside land (issue 34): the margin measured against an independent
geodesic oracle (an azimuthal equidistant projection centred on each fix), places a
ship may be (a dock, the bay, the sea) and runs that are sustained or not."""

from __future__ import annotations

import numpy as np
import shapely
from pyproj import CRS, Transformer

from vigia.alerts.identity.land import MIN_SPAN_S, deep_on_land, land_runs
from vigia.zones.basemap import bundled_land


def _inland_m(lon: float, lat: float) -> float:
    """Geodesic distance (m) from a fix on land to the basemap's coast (0 at sea)."""
    window = shapely.box(lon - 1, lat - 1, lon + 1, lat + 1)
    land = shapely.intersection(bundled_land().polygons, window)
    if not land.contains(shapely.Point(lon, lat)):
        return 0.0
    coast = shapely.segmentize(shapely.intersection(land.boundary, window), 0.001)
    aeqd = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m")
    fwd = Transformer.from_crs(4326, aeqd, always_xy=True)
    proj = shapely.transform(coast, lambda xy: np.column_stack(fwd.transform(*xy.T)))
    return float(shapely.distance(proj, shapely.Point(0, 0)))


#: the rule's margin (docs/identity.md), written out: not read from the code under test
MARGIN_M = 2_000.0


def test_the_margin_on_both_sides_by_a_geodesic_oracle() -> None:
    # a transect north from the sea off Santos into the Serra do Mar, every 25 m
    lats = np.arange(-24.10, -23.80, 0.000225)
    lons = np.full_like(lats, -46.45)
    got = deep_on_land(lons, lats)
    truth = np.array([_inland_m(x, y) for x, y in zip(lons, lats, strict=True)])
    # clear of the bound by 5% (the projection's scale, the buffer's arcs), both sides
    assert got[truth > MARGIN_M * 1.05].all() and (truth > MARGIN_M * 1.05).any()
    assert (
        not got[truth < MARGIN_M * 0.95].any() and ((truth > 0) & (truth < MARGIN_M * 0.95)).any()
    )


def test_places_a_ship_may_be_are_not_deep_on_land() -> None:
    pts = {
        "Santos, a quay of the port": (-46.30, -23.96),
        "Guanabara Bay": (-43.16, -22.85),
        "Copacabana beach sand (inside the chart's coast)": (-43.1795, -22.9711),
        "open sea off Campos": (-40.0, -22.5),
    }
    lon, lat = np.array(list(pts.values())).T
    assert not deep_on_land(lon, lat).any()
    # the city of São Paulo (60 km inland) and Brasília are
    assert deep_on_land(np.array([-46.63, -47.88]), np.array([-23.55, -15.79])).all()


def test_only_a_sustained_run_is_a_candidate() -> None:
    t = [0.0, 150.0, 300.0, 450.0, 600.0, 750.0]
    assert land_runs(t, [True] * 5 + [False]) == [(0, 4)]  # 5 fixes over 600 s
    assert land_runs(t, [True] * 4 + [False, True]) == []  # 4 fixes: short
    t2 = [0.0, 100.0, 200.0, 300.0, 599.0]
    assert land_runs(t2, [True] * 5) == []  # 5 fixes over 599 s < MIN_SPAN_S
    assert MIN_SPAN_S == 600.0
    assert land_runs([0.0], [True]) == []  # one fix is a glitch
