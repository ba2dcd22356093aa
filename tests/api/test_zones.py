"""Zones over OGC API - Features, on both stores: reading, paging, filters and edits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.api.conftest import Api, feature, make_settings, square, start

pytestmark = pytest.mark.postgis


def _items(api: Api, query: str = "") -> dict:  # type: ignore[type-arg]
    r = api.client.get(f"/collections/zones/items{query}", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/geo+json")
    return r.json()  # type: ignore[no-any-return]


def _ids(body: dict) -> list[str]:  # type: ignore[type-arg]
    return sorted(f["id"] for f in body["features"])


def test_bundled_zones_are_loaded_into_the_empty_store(shared_api: Api) -> None:
    api = shared_api
    body = _items(api)
    assert _ids(body) == ["anch-santos", "notice-rio", "plat-p66"]
    assert body["numberMatched"] == 3 and body["numberReturned"] == 3
    p66 = next(f for f in body["features"] if f["id"] == "plat-p66")
    assert p66["geometry"] == {"type": "Point", "coordinates": [-40.05, -22.37]}
    assert p66["properties"]["kind"] == "platform"
    assert p66["properties"]["version"] == 1


def test_landing_conformance_and_collections(shared_api: Api) -> None:
    api = shared_api
    h = api.h("viewer")
    rels = {link["rel"] for link in api.client.get("/", headers=h).json()["links"]}
    assert {"service-desc", "conformance", "data"} <= rels
    conf = api.client.get("/conformance", headers=h).json()["conformsTo"]
    assert any(c.endswith("/conf/geojson") for c in conf)
    cols = api.client.get("/collections", headers=h).json()["collections"]
    assert [c["id"] for c in cols] == ["zones", "leads", "vessels"]  # CONTRACT section 8
    assert api.client.get("/collections/zones", headers=h).json()["id"] == "zones"


def test_limit_offset_and_next_links_walk_every_zone_once(shared_api: Api) -> None:
    api = shared_api
    seen: list[str] = []
    url = "/collections/zones/items?limit=2"
    pages = 0
    while url:
        r = api.client.get(url, headers=api.h("viewer"))
        body = r.json()
        assert body["numberMatched"] == 3
        assert body["numberReturned"] <= 2
        seen += [f["id"] for f in body["features"]]
        nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
        url = "" if not nxt else urlsplit(nxt[0])._replace(scheme="", netloc="").geturl()
        pages += 1
    assert pages == 2
    assert sorted(seen) == ["anch-santos", "notice-rio", "plat-p66"]


def test_bbox_keeps_only_zones_that_touch_it(shared_api: Api) -> None:
    api = shared_api
    assert _ids(_items(api, "?bbox=-41,-23,-39,-22")) == ["plat-p66"]
    assert _ids(_items(api, "?bbox=-47,-25,-45,-23")) == ["anch-santos"]
    assert _ids(_items(api, "?bbox=-47,-25,-39,-22")) == ["anch-santos", "notice-rio", "plat-p66"]
    assert _ids(_items(api, "?bbox=10,10,11,11")) == []


def test_datetime_instant_and_interval_select_zones_in_force(shared_api: Api) -> None:
    api = shared_api
    assert "notice-rio" in _ids(_items(api, "?datetime=2024-03-05T12:00:00Z"))
    assert "notice-rio" not in _ids(_items(api, "?datetime=2024-04-01T00:00:00Z"))
    assert "notice-rio" in _ids(_items(api, "?datetime=2024-02-01T00:00:00Z/2024-03-02T00:00:00Z"))
    assert "notice-rio" not in _ids(_items(api, "?datetime=2024-03-11T00:00:00Z/.."))
    assert "notice-rio" in _ids(_items(api, "?datetime=../2024-03-01T00:00:00Z"))
    # zones without a validity window are always in force
    assert "plat-p66" in _ids(_items(api, "?datetime=2030-01-01T00:00:00Z"))


@pytest.mark.parametrize(
    "query",
    [
        "?bbox=1,2,3",
        "?bbox=a,b,c,d",
        "?bbox=0,10,1,5",
        "?datetime=yesterday",
        "?limit=0",
        "?datetime=2024-03-02T00:00:00Z/2024-03-01T00:00:00Z",
        "?offset=-1",
        "?colour=red",
    ],
)
def test_bad_query_parameters_are_400_problems(shared_api: Api, query: str) -> None:
    """OGC API - Features Part 1 (/req/core/query-param-invalid) asks for 400."""
    api = shared_api
    r = api.client.get(f"/collections/zones/items{query}", headers=api.h("viewer"))
    assert r.status_code == 400
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["status"] == 400 and r.json()["detail"]


def test_limit_is_clamped_to_the_configured_maximum(store_url: str, tmp_path: Path) -> None:
    for api in start(make_settings(store_url, tmp_path, max_page_limit=2)):
        body = _items(api, "?limit=500")
        assert body["numberReturned"] == 2
        assert any(link["rel"] == "next" for link in body["links"])


def test_create_replace_delete_make_versions(api: Api) -> None:
    h = api.h("admin")
    new = feature("mil-ilha", "military", square(-43.13, -22.89, 0.002), name="Ilha Fiscal")
    r = api.client.post("/collections/zones/items", json=new, headers=h)
    assert r.status_code == 201, r.text
    assert r.json()["features"][0]["properties"]["version"] == 1
    assert r.headers["location"].endswith("/collections/zones/items/mil-ilha")

    changed = feature("mil-ilha", "military", square(-43.13, -22.89, 0.003), distance_m=300)
    r = api.client.put("/collections/zones/items/mil-ilha", json=changed, headers=h)
    assert r.status_code == 200, r.text
    got = api.client.get("/collections/zones/items/mil-ilha", headers=api.h("viewer")).json()
    assert got["properties"]["version"] == 2
    assert got["properties"]["distance_m"] == 300

    r = api.client.delete("/collections/zones/items/mil-ilha", headers=h)
    assert r.status_code == 204
    r = api.client.get("/collections/zones/items/mil-ilha", headers=api.h("viewer"))
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
    assert api.client.delete("/collections/zones/items/mil-ilha", headers=h).status_code == 404


def test_a_feature_collection_upload_is_taken_whole(api: Api) -> None:
    fc = {
        "type": "FeatureCollection",
        "features": [
            feature("plant-angra", "power_plant", square(-44.46, -23.01)),
            feature("chan-santos", "access_channel", square(-46.31, -23.99, 0.005)),
        ],
    }
    r = api.client.post("/collections/zones/items", json=fc, headers=api.h("admin"))
    assert r.status_code == 201
    assert _items(api)["numberMatched"] == 5


BAD_UPLOADS = [
    (
        "x5",
        "outside 1970-2100",
        feature(
            "x5",
            "special_area",
            square(-43.2, -22.9),
            valid_from="2100-12-30T00:00:00Z",
            valid_to="2101-01-01T00:00:00Z",
        ),
    ),
    ("x1", "unknown kind", feature("x1", "beach", square(-43.2, -22.9))),
    ("x2", "", feature("x2", "platform", {"type": "Point", "coordinates": [-200.0, -22.0]})),
    (
        "#1",
        "missing id",
        {"type": "Feature", "geometry": square(-43.2, -22.9), "properties": {"kind": "anchorage"}},
    ),
    (
        "x3",
        "",
        feature(
            "x3",
            "anchorage",
            {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]},
        ),
    ),
    ("x4", "", feature("x4", "special_area", square(-43.2, -22.9))),
]


@pytest.mark.parametrize(("named", "reason_has", "bad"), BAD_UPLOADS)
def test_a_bad_upload_is_422_naming_the_feature_and_changes_nothing(
    shared_api: Api,
    named: str,
    reason_has: str,
    bad: dict,  # type: ignore[type-arg]
) -> None:
    api = shared_api
    before = _items(api)
    good = feature("anch-new", "anchorage", square(-46.2, -24.0))
    fc = {"type": "FeatureCollection", "features": [good, bad]}
    r = api.client.post("/collections/zones/items", json=fc, headers=api.h("admin"))
    assert r.status_code == 422, r.text
    problem = r.json()
    assert r.headers["content-type"] == "application/problem+json"
    assert problem["feature"] == named
    assert problem["reason"] and reason_has in problem["reason"]
    assert named in problem["detail"]
    assert _items(api) == before  # the good feature of the upload was not stored either


def test_put_refuses_a_mismatched_id_and_an_unknown_zone(shared_api: Api) -> None:
    api = shared_api
    h = api.h("admin")
    other = feature("other", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    assert (
        api.client.put("/collections/zones/items/plat-p66", json=other, headers=h).status_code
        == 422
    )
    missing = feature("nope", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    assert (
        api.client.put("/collections/zones/items/nope", json=missing, headers=h).status_code == 404
    )
    assert _items(api)["numberMatched"] == 3


def test_not_json_is_a_422_problem(shared_api: Api) -> None:
    api = shared_api
    r = api.client.post(
        "/collections/zones/items",
        content=b"{not json",
        headers={**api.h("admin"), "content-type": "application/geo+json"},
    )
    assert r.status_code == 422
    assert "JSON" in r.json()["detail"]


@pytest.fixture
def small(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app with tight upload limits."""
    yield from start(
        make_settings(
            store_url,
            tmp_path,
            max_upload_bytes=20_000,
            max_upload_features=3,
            max_upload_vertices=50,
        )
    )


def test_uploads_over_the_limits_are_413_and_change_nothing(small: Api) -> None:
    h = small.h("admin")
    many = {
        "type": "FeatureCollection",
        "features": [
            feature(f"p{i}", "platform", {"type": "Point", "coordinates": [-40.0 + i / 100, -22.0]})
            for i in range(4)
        ],
    }
    r = small.client.post("/collections/zones/items", json=many, headers=h)
    assert r.status_code == 413 and "features" in r.json()["detail"]

    ring = [[-43.0 + 0.001 * i, -22.9 + 0.0001 * (i % 2)] for i in range(60)]
    poly = {"type": "Polygon", "coordinates": [[*ring, [-43.0, -22.8], ring[0]]]}
    r = small.client.post(
        "/collections/zones/items", json=feature("v", "anchorage", poly), headers=h
    )
    assert r.status_code == 413 and "vertices" in r.json()["detail"]

    big = feature("b", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    big["properties"]["name"] = "x" * 30_000
    r = small.client.post("/collections/zones/items", content=json.dumps(big), headers=h)
    assert r.status_code == 413 and "bytes" in r.json()["detail"]
    assert r.headers["content-type"] == "application/problem+json"
    assert _items(small)["numberMatched"] == 3


def test_bundled_zones_are_not_loaded_again_into_a_store_that_has_zones(
    store_url: str, tmp_path: Path
) -> None:
    settings = make_settings(store_url, tmp_path)
    for api in start(settings):
        api.client.delete("/collections/zones/items/plat-p66", headers=api.h("admin"))
    for api in start(settings):
        assert _ids(_items(api)) == ["anch-santos", "notice-rio"]


def test_nul_characters_are_refused_everywhere(shared_api: Api) -> None:
    api = shared_api
    bad = feature("nul-zone", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    bad["properties"]["name"] = "P-\x0066"
    r = api.client.post("/collections/zones/items", json=bad, headers=api.h("admin"))
    assert r.status_code == 422 and "NUL" in r.json()["detail"]
    r = api.client.get("/leads?rule=SEC%00", headers=api.h("viewer"))
    assert r.status_code == 422
    r = api.client.get("/collections/zones/items/a%00b", headers=api.h("viewer"))
    assert r.status_code == 422
    r = api.client.post("/apikeys", json={"role": "viewer", "name": "\x00"}, headers=api.h("admin"))
    assert r.status_code == 422
    assert _items(api)["numberMatched"] == 3
