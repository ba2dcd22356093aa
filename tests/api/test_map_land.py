"""The land the dashboard and the documents draw: the Navy chart's coastline where a
chart cell covers, Natural Earth elsewhere (issue 22: a boat 120 m off Copacabana was
drawn ashore because Natural Earth's coast runs about 300 m off the chart's)."""

from __future__ import annotations

import shapely

from tests.api.conftest import Api

# the demo's motorboat, 120 m off Copacabana beach (distance to the chart's coastline)
OFF_COPACABANA = (-43.172773, -22.967523)
CORCOVADO = (-43.2105, -22.9519)  # ashore, inside the Rio chart cell
FEIRA_DE_SANTANA = (-38.97, -12.27)  # ashore, far from any chart cell: Natural Earth
OFF_SALVADOR = (-38.0, -13.5)  # open sea


def test_the_served_land_follows_the_chart_coast(shared_api: Api) -> None:
    r = shared_api.client.get("/map/land", headers=shared_api.h("viewer"))
    assert r.status_code == 200
    land = shapely.union_all([shapely.geometry.shape(f["geometry"]) for f in r.json()["features"]])
    assert not land.contains(shapely.Point(*OFF_COPACABANA))
    assert land.contains(shapely.Point(*CORCOVADO))
    assert land.contains(shapely.Point(*FEIRA_DE_SANTANA))
    assert not land.contains(shapely.Point(*OFF_SALVADOR))
