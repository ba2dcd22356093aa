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


def test_beach_bands_lie_on_the_water_side() -> None:
    """0211's 200 m and 100 m bands off Copacabana as /map/zones draws them (bundled
    zones): the boat 120 m off the beach is in the motor band, and next to nothing of
    either band lies ashore (before: about half)."""
    from vigia.service.http.routes.map_layers import zone_bands
    from vigia.zones.basemap import display_land
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    doc = zone_bands(load_zones([bundled_zones_dir()]))
    bands = {
        f["properties"]["band"]: shapely.geometry.shape(f["geometry"])
        for f in doc["features"]
        if f["properties"]["id"] == "beach-copacabana" and f["properties"]["role"] == "band"
    }
    assert set(bands) == {"motor", "sail"}
    assert bands["motor"].contains(shapely.Point(*OFF_COPACABANA))
    land = display_land()
    for name, band in bands.items():
        ashore = shapely.intersection(band, land).area / band.area
        assert ashore < 0.01, (name, ashore)


def test_map_labels_name_the_seat_towns_and_each_zone_on_it(shared_api: Api) -> None:
    """Offline labels (issue 22): the register's seat towns and every zone's name."""
    r = shared_api.client.get("/map/labels", headers=shared_api.h("viewer"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/geo+json")
    feats = r.json()["features"]
    places = {f["properties"]["name"]: f for f in feats if f["properties"]["kind"] == "place"}
    assert {"Rio de Janeiro", "Santos", "Salvador"} <= set(places)
    assert len(places) == len(set(places))  # a town with two offices is named once
    rio = places["Rio de Janeiro"]["geometry"]["coordinates"]
    assert -43.3 < rio[0] < -43.1 and -23.0 < rio[1] < -22.8  # the city, not the sea
    zones = {f["properties"]["zone_id"]: f for f in feats if f["properties"]["kind"] == "zone"}
    served = [
        f
        for f in shared_api.client.get("/map/zones", headers=shared_api.h("viewer")).json()[
            "features"
        ]
        if f["properties"]["role"] == "reference"
        and f["properties"]["kind"] != "jurisdiction"
        and f["properties"]["name"]  # an unnamed zone gets no label
    ]
    assert served and {f["properties"]["id"] for f in served} == set(zones)
    for f in served:
        label = zones[f["properties"]["id"]]
        assert label["properties"]["name"] == f["properties"]["name"]
        at = shapely.Point(label["geometry"]["coordinates"])
        # on the zone itself (to the 6 decimals sent, about 0.1 m), not beside it
        assert shapely.distance(shapely.geometry.shape(f["geometry"]), at) < 1e-5
    assert r.json() == shared_api.client.get("/map/labels", headers=shared_api.h("viewer")).json()


def test_the_bundled_beaches_are_named_on_their_shore() -> None:
    from vigia.service.http.routes.map_layers import map_labels
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    feats = map_labels(load_zones([bundled_zones_dir()]))["features"]
    (copa,) = [f for f in feats if f["properties"].get("zone_id") == "beach-copacabana"]
    assert copa["properties"]["name"] == "Praia de Copacabana"
    lon, lat = copa["geometry"]["coordinates"]
    assert -43.19 < lon < -43.16 and -22.99 < lat < -22.96  # along the beach's 4 km
