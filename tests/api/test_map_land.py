"""The map's land and beach bands (issue 22): at Copacabana the charted coast decides
what is land, and the bathing bands lie on the water side of the beach line only.

Expected sides are geography, not code: Copacabana faces the open sea to the
south-east (azimuth ~150°) and the city lies north-west of the sand (~330°).
"""

from __future__ import annotations

from typing import Any

import pytest
import shapely
from shapely.geometry import Point, shape

from scripts import aisgen
from vigia.service.http.map_land import chart_cells, finest_land
from vigia.service.http.routes.map_layers import zone_bands
from vigia.service.settings import BallastSettings
from vigia.zones.ballast import get_assessor
from vigia.zones.catalogue import bundled_zones_dir, load_zones

SEA, CITY = 150.0, 330.0


@pytest.fixture(scope="module")
def world() -> tuple[Any, list[Any]]:
    st = BallastSettings()
    return get_assessor(st.land, st.depth).basemap.land.polygons, load_zones([bundled_zones_dir()])


def _off_copacabana(zones: list[Any], azimuth: float, metres: float) -> Point:
    line = next(z for z in zones if z.id == "beach-copacabana").geometry
    mid = line.interpolate(0.5, normalized=True)
    return Point(aisgen.fwd(mid.x, mid.y, azimuth, metres))


def test_the_chart_decides_the_coast_where_a_cell_covers(world: tuple[Any, list[Any]]) -> None:
    basemap, zones = world
    assert len(chart_cells()) == 2
    sea = _off_copacabana(zones, SEA, 118)  # the boat, 118 m off the beach
    city = _off_copacabana(zones, CITY, 150)
    # the world dataset's coast lies out at sea there: that is what was drawn before
    assert basemap.contains(sea)
    box = (-43.20, -23.00, -43.15, -22.95)
    land = finest_land(basemap, box)
    assert not land.contains(sea) and land.contains(city)
    # outside every cell (Salvador, 13°S) the basemap is drawn as it is
    far = (-38.60, -13.05, -38.40, -12.90)
    assert shapely.equals(finest_land(basemap, far), shapely.clip_by_rect(basemap, *far))


def test_beach_bands_lie_on_the_water_side(world: tuple[Any, list[Any]]) -> None:
    basemap, zones = world

    def motor_band(land: Any) -> Any:
        fc = zone_bands(zones, land)
        return next(
            shape(f["geometry"])
            for f in fc["features"]
            if f["properties"]["id"] == "beach-copacabana" and f["properties"]["band"] == "motor"
        )

    both_sides, water_side = motor_band(None), motor_band(basemap)
    for metres in (50, 150):
        sea, city = _off_copacabana(zones, SEA, metres), _off_copacabana(zones, CITY, metres)
        assert both_sides.contains(sea) and both_sides.contains(city)  # the rule's reach
        assert water_side.contains(sea) and not water_side.contains(city)  # what is drawn
    # 250 m out is past the 200 m motor band either way
    assert not water_side.contains(_off_copacabana(zones, SEA, 250))
