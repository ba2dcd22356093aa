"""The vessel layer zoomed out (issue 39): past 2,000 vessels in view a map below zoom 9
gets clusters on Web Mercator tiles, not every vessel; close in, or over fewer vessels,
the vessels themselves. Expected tiles and centroids are worked by hand (the slippy-map
tile formula as OpenStreetMap's wiki writes it, with ln(tan + sec) where the code uses
asinh(tan)), both sides of each bound and at it."""

from __future__ import annotations

import gzip
import json
import math
import random
from typing import Any

import pytest

from tests.api.conftest import Api
from vigia.ingest.records import Position
from vigia.service.http.map_grid import cell_zoom, grid_clusters, tiles
from vigia.service.http.routes import map_vessels

T0 = 1_780_000_000.0  # 2026-05-28T20:26:40Z


def _osm_tile(lon: float, lat: float, z: int) -> tuple[int, int]:
    """The OSM wiki's Slippy map tilenames formula, written out independently."""
    n = 2**z
    r = math.radians(lat)
    y = (1.0 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2.0 * n
    return int((lon + 180.0) / 360.0 * n), int(y)


def test_tiles_match_the_slippy_map_formula_and_its_edges() -> None:
    import numpy as np

    rng = random.Random(7)
    pts = [(rng.uniform(-75, -20), rng.uniform(-40, 10)) for _ in range(500)]
    for z in (3, 7, 11):
        x, y = tiles(np.array([p[0] for p in pts]), np.array([p[1] for p in pts]), z)
        assert list(zip(x.tolist(), y.tolist(), strict=True)) == [_osm_tile(*p, z) for p in pts]
    # by hand: at zoom 3 the tiles are 45 degrees wide, and -45 is the edge of tiles 3 and 4
    # (-180 + 3 * 45 = -45): a point on the edge is in the east tile, like every tile scheme
    xs, _ = tiles(np.array([-45.0001, -45.0, -44.9999]), np.zeros(3), 3)
    assert xs.tolist() == [2, 3, 3]
    # the equator is the edge of rows 3 and 4 at zoom 3 (8 rows), the south in row 4
    _, ys = tiles(np.zeros(3), np.array([0.0001, 0.0, -0.0001]), 3)
    assert ys.tolist() == [3, 4, 4]
    # beyond Web Mercator's square: the edge rows, never an index off the grid
    _, ys = tiles(np.zeros(2), np.array([89.9, -89.9]), 3)
    assert ys.tolist() == [0, 7]


def test_cell_zoom_is_three_deeper_than_the_map() -> None:
    assert [cell_zoom(z) for z in (0.0, 4.0, 4.99, 5.0, 8.7)] == [3, 7, 7, 8, 11]


def test_clusters_count_their_vessels_at_their_mean() -> None:
    # zoom 7: tiles 2.8125 degrees wide; Rio's three vessels share tile x 48
    # ((-43.2 + 180) / 360 * 128 = 48.6), Santos's two share x 50 (-46.3 -> 47.5: 47)
    rio = [(-43.20, -22.95), (-43.10, -22.90), (-43.00, -23.00)]
    santos = [(-46.30, -24.00), (-46.20, -23.96)]
    got = grid_clusters(rio + santos, 7)
    assert [c.size for c in got] == [3, 2]
    a, b = got
    assert (a.lon, a.lat) == (pytest.approx(-43.1), pytest.approx(-22.95))  # (sum)/3 by hand
    assert (a.west, a.south, a.east, a.north) == (-43.2, -23.0, -43.0, -22.9)
    assert (b.lon, b.lat) == (pytest.approx(-46.25), pytest.approx(-23.98))
    assert grid_clusters([], 7) == []


def _fleet(n: int, seed: int = 1) -> list[Position]:
    """``n`` vessels along the coast from Santos to Vitória."""
    rng = random.Random(seed)
    return [
        Position(mmsi=710_000_000 + k, t=T0 + k, msg_type=1, lon=rng.uniform(-47.0, -40.0),
                 lat=rng.uniform(-25.0, -20.0), sog=8.0, cog=90.0)
        for k in range(n)
    ]  # fmt: skip


def _get(api: Api, **params: Any) -> dict[str, Any]:
    r = api.client.get("/map/vessels", params=params, headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.parametrize(("vessels", "clustered"), [(1_999, False), (2_000, False), (2_001, True)])
def test_a_zoomed_out_map_gets_clusters_past_the_points_bound(
    api: Api, vessels: int, clustered: bool
) -> None:
    assert map_vessels.POINTS_MAX == 2_000
    api.repo.add_positions(_fleet(vessels))
    doc = _get(api, zoom=5.5)
    assert doc["clustered"] is clustered
    if not clustered:
        assert len(doc["vessels"]) == vessels
        assert doc["next_since"] is not None
        return
    assert doc["vessels"] == [] and doc["next_since"] is None
    assert doc["total"] == vessels == sum(c[2] for c in doc["clusters"])
    assert doc["cell_zoom"] == 8
    # each cluster lies on the tile that counted it, inside its vessels' box
    for lon, lat, _, w, s, e, n in doc["clusters"]:
        assert w <= lon <= e and s <= lat <= n
        assert _osm_tile(w, n, 8) == _osm_tile(e, s, 8)


def test_close_in_a_delta_or_a_box_of_few_vessels_is_never_clustered(api: Api) -> None:
    api.repo.add_positions(_fleet(4_400))
    assert _get(api, zoom=8.99)["clustered"] is True
    near = _get(api, zoom=9)
    assert near["clustered"] is False and len(near["vessels"]) == 4_400
    assert _get(api)["clustered"] is False  # a client that says no zoom
    delta = _get(api, zoom=4, since="2020-01-01T00:00:00Z")
    assert delta["clustered"] is False and len(delta["vessels"]) == 4_400
    # a harbour's box holds fewer than the bound: its vessels, even far out
    box = "-43.3,-23.1,-43.0,-22.8"
    inside = _get(api, bbox=box)["vessels"]
    assert 0 < len(inside) <= 2_000
    assert [r[0] for r in _get(api, zoom=4, bbox=box)["vessels"]] == [r[0] for r in inside]
    # a box of many: clusters of just those in it
    wide = _get(api, zoom=6, bbox="-47,-25,-42.5,-20")
    inside_wide = len(_get(api, bbox="-47,-25,-42.5,-20")["vessels"])
    assert wide["clustered"] is True and wide["total"] == inside_wide > 2_000
    assert wide["total"] < 4_400 and max(c[5] for c in wide["clusters"]) <= -42.5


def test_the_national_view_of_twenty_thousand_vessels_is_small(api: Api) -> None:
    api.repo.add_positions(_fleet(20_000, seed=2))
    clusters = api.client.get(
        "/map/vessels", params={"zoom": 4}, headers={**api.h("viewer"), "Accept-Encoding": "gzip"}
    )
    points = api.client.get("/map/vessels", headers={**api.h("viewer"), "Accept-Encoding": "gzip"})
    # what travels: the clusters' bytes against every vessel's, both gzipped as sent
    sent_c = len(gzip.compress(json.dumps(clusters.json()).encode()))
    sent_p = len(gzip.compress(json.dumps(points.json()).encode()))
    assert clusters.json()["total"] == 20_000
    assert sent_c < 10_000 < 100_000 < sent_p, (sent_c, sent_p)


@pytest.mark.parametrize("zoom", ["-1", "24.5", "x"])
def test_a_zoom_off_the_map_is_refused(api: Api, zoom: str) -> None:
    r = api.client.get(f"/map/vessels?zoom={zoom}", headers=api.h("viewer"))
    assert r.status_code == 422, r.text
