"""What careless operators and a bad day need: the last admin stays, a strong bootstrap key,
a database outage that leaks nothing and leaves /metrics up, docs off in production,
links from the configured public URL, safe headers, and bounded track reads."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from pydantic import ValidationError

from tests.api.conftest import Api, feature, make_settings, start
from tests.storage.pgcluster import PrivateCluster, private_cluster
from vigia.ingest.records import Position
from vigia.service.http.app import new_api_key
from vigia.service.http.deps import hash_key
from vigia.service.settings import AuthSettings

pytestmark = pytest.mark.postgis

T0 = 1709294400.0  # 2024-03-01T12:00:00Z
MMSI = 710000009


def test_the_last_two_admins_cannot_revoke_each_other(api: Api) -> None:
    a = api.repo.find_api_key(hash_key(api.keys["admin"]))
    other = new_api_key()
    b = api.repo.add_api_key("admin-b", "admin", hash_key(other))
    assert a is not None
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def revoke(key: str, target: int) -> None:
        barrier.wait()
        r = api.client.delete(f"/apikeys/{target}", headers={"X-API-Key": key})
        codes.append(r.status_code)

    threads = [
        threading.Thread(target=revoke, args=(api.keys["admin"], b.id)),
        threading.Thread(target=revoke, args=(other, a.id)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = api.client.get("/apikeys", headers=api.h("admin"))
    active = [k for k in api.repo.list_api_keys() if k.role == "admin" and not k.revoked]  # type: ignore[attr-defined]
    assert len(active) >= 1, (codes, keys.text)
    assert sorted(codes)[0] == 204


def test_the_store_refuses_to_revoke_the_last_admin(api: Api) -> None:
    record = api.repo.find_api_key(hash_key(api.keys["admin"]))
    assert record is not None
    from vigia.service.errors import ConflictError

    with pytest.raises(ConflictError, match="last admin"):
        api.repo.revoke_api_key(record.id)  # type: ignore[attr-defined]
    again = api.repo.find_api_key(hash_key(api.keys["admin"]))
    assert again is not None and not again.revoked


def test_a_short_bootstrap_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="at least"):
        AuthSettings(bootstrap_admin_key="x")
    with pytest.raises(ValidationError):
        AuthSettings(bootstrap_admin_key="correct-horse")
    assert AuthSettings(bootstrap_admin_key="k" * 32).bootstrap_admin_key is not None


@pytest.fixture
def outage_pg() -> Iterator[PrivateCluster]:
    yield from private_cluster()


def test_a_database_outage_is_a_bare_503_and_metrics_stay_up(
    outage_pg: PrivateCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for api in start(make_settings(outage_pg.url, tmp_path)):
        assert api.client.get("/metrics", headers=api.h("viewer")).status_code == 200
        outage_pg.stop("immediate")
        caplog.set_level(logging.INFO)
        for path in ("/vessels", "/leads/L-%1b%5b2J%1b%5b31mRED", "/collections/zones/items"):
            r = api.client.get(path, headers=api.h("viewer"))
            assert r.status_code == 503, (path, r.text)
            text = r.text.lower()
            for leak in ("127.0.0.1", str(outage_pg.port), "psycopg", "connection", "postgres"):
                assert leak not in text, (leak, r.text)
        m = api.client.get("/metrics", headers=api.h("viewer"))
        assert m.status_code == 200 and "vigia_store_connected" in m.text
        assert api.client.get("/metrics").status_code == 401
        assert api.client.get("/healthz").status_code == 200
        assert not any("\x1b" in rec.getMessage() for rec in caplog.records)
        outage_pg.start()


def test_docs_are_a_setting_off_in_production(store_url: str, tmp_path: Path) -> None:
    for api in start(make_settings(store_url, tmp_path, production=True)):
        for path in ("/docs", "/openapi.json", "/redoc"):
            assert api.client.get(path).status_code == 404, path
            assert api.client.get(path, headers=api.h("admin")).status_code == 404, path
    for api in start(make_settings(store_url, tmp_path, production=True, docs=True)):
        assert api.client.get("/openapi.json").status_code == 200
    for api in start(make_settings(store_url, tmp_path)):
        assert api.client.get("/openapi.json").status_code == 200


def test_every_response_says_nosniff(shared_api: Api) -> None:
    for path, key in (("/healthz", None), ("/vessels", "viewer"), ("/nope", "viewer")):
        r = shared_api.client.get(path, headers=shared_api.h(key))
        assert r.headers.get("x-content-type-options") == "nosniff", path
    assert shared_api.client.get("/vessels").headers["x-content-type-options"] == "nosniff"


def test_links_come_from_the_public_url_not_the_host_header(store_url: str, tmp_path: Path) -> None:
    public = "https://vigia.marinha.example/api"
    for api in start(make_settings(store_url, tmp_path, public_url=public + "/")):
        h = {**api.h("admin"), "Host": "evil.example"}
        hrefs = [x["href"] for x in api.client.get("/", headers=h).json()["links"]]
        hrefs += [
            x["href"]
            for x in api.client.get("/collections/zones/items?limit=1", headers=h).json()["links"]
        ]
        assert hrefs and all(href.startswith(public + "/") for href in hrefs), hrefs
        assert not any("evil" in href for href in hrefs)
        feat = feature("área λ 1", "platform", {"type": "Point", "coordinates": [-40.0, -22.0]})
        r = api.client.post("/collections/zones/items", json=feat, headers=h)
        assert r.status_code == 201, r.text
        location = r.headers["location"]
        assert location == public + "/collections/zones/items/%C3%A1rea%20%CE%BB%201"
        path = urlsplit(location).path.removeprefix("/api")
        assert api.client.get(path, headers=h).json()["id"] == "área λ 1"


@pytest.fixture
def tracked(store_url: str, tmp_path: Path) -> Iterator[Api]:
    for api in start(make_settings(store_url, tmp_path, track_default_limit=100)):
        api.repo.add_positions(
            [
                Position(MMSI, T0 + 10 * i, 1, -43.2 + 1e-4 * i, -22.95, 5.0, 90.0)
                for i in range(250)
            ]
        )
        yield api


def _points(body: dict[str, Any]) -> list[str]:
    return [f["properties"]["t"] for f in body["features"] if f["geometry"]["type"] == "Point"]


def test_a_track_is_paged_with_a_default_limit(tracked: Api) -> None:
    url, seen, pages = f"/vessels/{MMSI}/track", [], 0
    while url:
        body = tracked.client.get(url, headers=tracked.h("viewer")).json()
        assert len(_points(body)) <= 100
        assert body["numberReturned"] == len(_points(body))
        seen += _points(body)
        nxt = [x["href"] for x in body["links"] if x["rel"] == "next"]
        url = urlsplit(nxt[0])._replace(scheme="", netloc="").geturl() if nxt else ""
        pages += 1
    assert pages == 3 and len(seen) == 250 and seen == sorted(set(seen))
    body = tracked.client.get(f"/vessels/{MMSI}/track?limit=20", headers=tracked.h("viewer"))
    assert len(_points(body.json())) == 20
    too_big = tracked.client.get(
        f"/vessels/{MMSI}/track?limit=10000000", headers=tracked.h("viewer")
    )
    assert too_big.status_code == 422


def test_healthz_answers_while_a_zone_write_is_slow(api: Api) -> None:
    slow = api.repo.put_zones

    def put_zones_slowly(zones: Any) -> Any:
        time.sleep(1.5)  # a database under load
        return slow(zones)

    api.repo.put_zones = put_zones_slowly  # type: ignore[method-assign]
    app = api.client.app
    feat = feature("plat-slow", "platform", {"type": "Point", "coordinates": [-40.1, -22.3]})

    async def race() -> tuple[float, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            t0 = time.monotonic()
            write = asyncio.create_task(
                client.post("/collections/zones/items", json=feat, headers=api.h("admin"))
            )
            await asyncio.sleep(0.3)
            health = await client.get("/healthz")
            # the write sleeps 1.5 s in the store; /healthz must not queue behind it
            waited = time.monotonic() - t0
            assert health.status_code == 200
            return waited, (await write).status_code

    waited, status = asyncio.run(race())
    assert status == 201
    assert waited < 1.2, f"/healthz answered {waited:.2f} s after a zone write began"
