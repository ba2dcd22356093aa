"""Hostile request bodies on both stores: no key means no body is read, every body is
capped in bytes (chunked too), non-finite numbers and unusable ids are 422s, never 500s."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy.exc

from tests.api.conftest import Api, feature, make_settings, start
from vigia.zones.catalogue import parse_feature_collection

pytestmark = pytest.mark.postgis

MB = 1_000_000


class Body:
    """A chunked request body that counts how much of it the server pulled."""

    def __init__(self, chunks: int, size: int = MB, fill: bytes = b" ") -> None:
        self.chunks, self.size, self.fill = chunks, size, fill
        self.pulled = 0

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.chunks):
            self.pulled += 1
            yield self.fill * self.size


@pytest.fixture
def small(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app with a 64 kB upload limit."""
    yield from start(make_settings(store_url, tmp_path, max_upload_bytes=64_000))


def test_a_body_without_a_key_is_never_read(api: Api) -> None:
    for path in ("/ballast/assess", "/collections/zones/items", "/apikeys", "/healthz"):
        body = Body(20)
        r = api.client.post(path, content=body)
        assert r.status_code in (401, 405), (path, r.status_code)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert body.pulled == 0, (path, body.pulled)
    # a revoked or unknown key is no better than none
    body = Body(20)
    r = api.client.post("/ballast/assess", content=body, headers={"X-API-Key": "not-a-key"})
    assert r.status_code == 401 and body.pulled == 0


def test_a_chunked_body_over_the_limit_is_a_413(small: Api) -> None:
    # (that it is refused before the rest is sent is seen on a real socket, test_served_guard)
    body = Body(50, size=16_000)
    r = small.client.post("/collections/zones/items", content=body, headers=small.h("admin"))
    assert r.status_code == 413, r.text
    assert r.json()["type"].endswith("payload-too-large")


@pytest.mark.parametrize("path", ["/ballast/assess", "/apikeys", "/ballast/audits"])
def test_a_declared_length_over_the_limit_is_refused_unread(small: Api, path: str) -> None:
    body = Body(1, size=100_000)
    headers = {**small.h("admin"), "Content-Length": "100000"}
    r = small.client.post(path, content=body, headers=headers)
    assert r.status_code == 413, r.text
    assert body.pulled == 0


def test_an_oversized_key_body_with_a_nul_is_a_413(small: Api) -> None:
    text = json.dumps({"role": "viewer", "name": "x\u0000y", "pad": "p" * 100_000})
    r = small.client.post("/apikeys", content=text, headers=small.h("admin"))
    assert r.status_code == 413, r.text
    names = [
        k["name"] for k in small.client.get("/apikeys", headers=small.h("admin")).json()["keys"]
    ]
    assert "x\x00y" not in names


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_in_a_zone_are_refused(api: Api, number: str) -> None:
    text = json.dumps(feature("plat-nan", "platform", {"type": "Point", "coordinates": [-40, -22]}))
    for hostile in (
        text.replace('"kind"', f'"depth": {number}, "kind"'),
        text.replace('"kind"', f'"extra": {{"deep": [1, {number}]}}, "kind"'),
        text.replace("-40", number),
    ):
        r = api.client.post("/collections/zones/items", content=hostile, headers=api.h("admin"))
        assert r.status_code == 422, (hostile, r.status_code, r.text)
    assert (
        api.client.get("/collections/zones/items/plat-nan", headers=api.h("viewer")).status_code
        == 404
    )
    assert api.client.get("/collections/zones/items", headers=api.h("viewer")).status_code == 200


def test_a_stored_zone_with_nan_never_breaks_reads(api: Api, store_url: str) -> None:
    # zones stored before non-finite numbers were refused (SQLite keeps them as NaN)
    feat = feature("plat-old", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    feat["properties"]["depth"] = float("nan")
    zones = parse_feature_collection({"type": "FeatureCollection", "features": [feat]})
    if not store_url.startswith("sqlite"):
        # PostgreSQL's json type refuses the NaN token itself: nothing can be stored, and
        # the refusal must leave nothing behind (each store's behaviour asserted, no skip)
        with pytest.raises(sqlalchemy.exc.DataError, match="NaN"):
            api.repo.put_zones(zones)
        one = api.client.get("/collections/zones/items/plat-old", headers=api.h("viewer"))
        assert one.status_code == 404
        r = api.client.get("/collections/zones/items", headers=api.h("viewer"))
        assert r.status_code == 200, r.text
        return
    api.repo.put_zones(zones)
    r = api.client.get("/collections/zones/items", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    one = api.client.get("/collections/zones/items/plat-old", headers=api.h("viewer"))
    assert one.status_code == 200 and one.json()["properties"]["depth"] is None


@pytest.mark.parametrize("zone_id", ["a/b", "x" * 100_000, "\ud800", "bad\u0007bell", ""])
def test_unusable_zone_ids_are_refused(api: Api, zone_id: str) -> None:
    feat = feature(zone_id, "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
    text = json.dumps(feat)  # ensure_ascii: a lone surrogate travels as \ud800
    r = api.client.post("/collections/zones/items", content=text, headers=api.h("admin"))
    assert r.status_code == 422, (r.status_code, r.text[:300])
    listed = api.client.get("/collections/zones/items", headers=api.h("viewer")).json()
    assert len(listed["features"]) == 3


def test_a_lone_surrogate_anywhere_in_a_body_is_a_422(api: Api) -> None:
    text = '{"role": "viewer", "name": "a\\udc80b"}'
    r = api.client.post("/apikeys", content=text, headers=api.h("admin"))
    assert r.status_code == 422, r.text


@pytest.mark.parametrize(
    "coords", [[True, False], ["-40.0", "-22.0"], [-40.0, None]], ids=["bool", "str", "null"]
)
def test_zone_coordinates_must_be_numbers(api: Api, coords: list[object]) -> None:
    feat = feature("plat-odd", "platform", {"type": "Point", "coordinates": coords})
    r = api.client.post("/collections/zones/items", json=feat, headers=api.h("admin"))
    assert r.status_code == 422, r.text


@pytest.mark.parametrize("point", [{"lat": True, "lon": False}, {"lat": "-27", "lon": "-38"}])
def test_assessed_coordinates_must_be_numbers(api: Api, point: dict[str, object]) -> None:
    r = api.client.post("/ballast/assess", json={"points": [point]}, headers=api.h("viewer"))
    assert r.status_code == 422, r.text
    ok = api.client.post(
        "/ballast/assess", json={"points": [{"lat": -27, "lon": -38}]}, headers=api.h("viewer")
    )
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
def test_audit_times_out_of_range_are_a_422(api: Api, when: str) -> None:
    point = {"time": when, "lat": -27.0, "lon": -38.0}
    body = {"mmsi": 636012345, "exchanges": [{"start": point, "end": point}]}
    r = api.client.post("/ballast/audits", json=body, headers=api.h("inspector"))
    assert r.status_code == 422, r.text
    body["track"] = [{"t": when, "lat": -27.0, "lon": -38.0}]
    ok = {"start": {**point, "time": "2024-05-01T00:00:00Z"}}
    ok["end"] = {**point, "time": "2024-05-01T01:00:00Z"}
    body["exchanges"] = [ok]
    r = api.client.post("/ballast/audits", json=body, headers=api.h("inspector"))
    assert r.status_code == 422, r.text


@pytest.mark.parametrize(
    "query",
    ["end=0001-01-01T00:00:00Z", "end=9999-12-31T23:59:59Z", "start=-62135596800&end=-62135500000"],
)
def test_arrival_windows_out_of_range_are_a_422(api: Api, query: str) -> None:
    r = api.client.get(f"/ballast/arrivals?{query}", headers=api.h("viewer"))
    assert r.status_code == 422, r.text
