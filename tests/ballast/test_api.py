"""The ballast routes on the real app and a real SQLite store."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from vigia.ingest.records import Position, iso_utc
from vigia.service.http.app import create_app, new_api_key
from vigia.service.http.deps import ROLES, hash_key
from vigia.service.settings import DatabaseSettings, IngestSettings, Settings, ZoneSettings

T0 = 1714521600.0
MMSI = 636012345


def track() -> list[Position]:
    """A ship steaming from the abyss toward Rio, a fix every 10 min for 40 h."""
    n = 240
    return [
        Position(
            MMSI,
            T0 + 600 * i,
            1,
            -34.0 + (-43.15 + 34.0) * i / 275,
            -30.0 + (-23.15 + 30.0) * i / 275,
            14.0,
            300.0,
        )
        for i in range(n)
    ]


def point(p: Position) -> dict[str, Any]:
    """A declared point where the track was."""
    return {"time": iso_utc(p.t), "lat": p.lat, "lon": p.lon}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The app on a fresh SQLite file, the worker off, one key per role."""
    zones = tmp_path / "zones"
    zones.mkdir()
    end = track()[-1]
    assert end.lon is not None and end.lat is not None
    ring = [[end.lon + dx, end.lat + dy] for dx, dy in ((-0.1, -0.1), (0.1, -0.1), (0.1, 0.1))]
    port = {
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
        "properties": {"id": "port-test", "kind": "port_facility"},
    }
    (zones / "ports.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": [port]})
    )
    settings = Settings(
        database=DatabaseSettings(url=f"sqlite:///{tmp_path / 'v.sqlite'}"),
        ingest=IngestSettings(worker=False),
        zones=ZoneSettings(zones_dir=str(zones)),
    )
    with TestClient(create_app(settings)) as c:
        repo = c.app.state.repository  # type: ignore[attr-defined]
        keys = {}
        for role in ROLES:
            keys[role] = new_api_key()
            repo.add_api_key(role, role, hash_key(keys[role]))
        repo.add_positions(track())
        yield c, keys


def test_assess_route(client: tuple[TestClient, dict[str, str]]) -> None:
    """POST /ballast/assess gives the docs/contract.md section 6 figures; bad points: 422."""
    c, keys = client
    body = {"points": [{"lat": -27.0, "lon": -38.0}, {"lat": -23.3, "lon": -43.0}]}
    r = c.post("/ballast/assess", json=body, headers={"X-API-Key": keys["viewer"]})
    assert r.status_code == 200
    pts = r.json()["points"]
    assert [p["zone"] for p in pts] == ["beyond_200nm", "within_50nm"]
    assert pts[0]["meets_200"] and not pts[1]["meets_50"]
    assert r.json()["basemap"]["depth"].startswith("ETOPO1")
    bad = c.post(
        "/ballast/assess",
        json={"points": [{"lat": 95, "lon": 0}]},
        headers={"X-API-Key": keys["viewer"]},
    )
    assert bad.status_code == 422
    assert c.post("/ballast/assess", json=body).status_code == 401


def test_lines_route(client: tuple[TestClient, dict[str, str]]) -> None:
    """GET /ballast/lines is GeoJSON with the three lines."""
    c, keys = client
    r = c.get("/ballast/lines", headers={"X-API-Key": keys["viewer"]})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/geo+json")
    assert {f["id"] for f in r.json()["features"]} == {"200nm", "50nm", "isobath_200m"}


def test_audit_on_the_stored_track_is_kept_and_raises_leads(
    client: tuple[TestClient, dict[str, str]],
) -> None:
    """An exchange on the shelf, audited against the stored AIS: stored audit and leads."""
    c, keys = client
    t = track()
    body = {
        "mmsi": MMSI,
        "exchanges": [
            {
                "start": point(t[24]),
                "end": point(t[60]),
                "volume_m3": 12000,
                "method": "sequential",
            },
            {
                "start": point(t[186]),
                "end": point(t[210]),
                "volume_m3": 12000,
                "method": "sequential",
            },
        ],
    }
    assert (
        c.post("/ballast/audits", json=body, headers={"X-API-Key": keys["viewer"]}).status_code
        == 403
    )
    r = c.post("/ballast/audits", json=body, headers={"X-API-Key": keys["inspector"]})
    assert r.status_code == 201, r.text
    doc = r.json()
    assert [e["verdict"] for e in doc["exchanges"]] == ["compliant", "noncompliant"]
    assert doc["track_source"] == "stored AIS"
    assert [ld["rule"] for ld in doc["leads"]] == ["BW-EXCH-200"]
    again = c.get(f"/ballast/audits/{doc['id']}", headers={"X-API-Key": keys["viewer"]})
    assert again.status_code == 200 and again.json()["exchanges"] == doc["exchanges"]
    lead = c.get(f"/leads/{doc['leads'][0]['id']}", headers={"X-API-Key": keys["viewer"]})
    assert lead.status_code == 200 and lead.json()["rule"] == "BW-EXCH-200"
    assert c.get("/ballast/audits/nope", headers={"X-API-Key": keys["viewer"]}).status_code == 404


def test_audit_with_its_own_track_and_a_bad_body(client: tuple[TestClient, dict[str, str]]) -> None:
    """A track in the body is used instead of the store; an end before start is a 422."""
    c, keys = client
    t = track()
    own = [{"t": iso_utc(p.t), "lat": p.lat, "lon": p.lon, "sog": p.sog} for p in t[:100]]
    body = {"mmsi": MMSI, "exchanges": [{"start": point(t[24]), "end": point(t[60])}], "track": own}
    r = c.post("/ballast/audits", json=body, headers={"X-API-Key": keys["inspector"]})
    assert r.status_code == 201 and r.json()["track_source"] == "request"
    body["exchanges"] = [{"start": point(t[60]), "end": point(t[24])}]
    r = c.post("/ballast/audits", json=body, headers={"X-API-Key": keys["inspector"]})
    assert r.status_code == 422


def test_screening_route(client: tuple[TestClient, dict[str, str]]) -> None:
    """GET /ballast/screening/{mmsi}: a)-water hours before arrival from the stored track."""
    c, keys = client
    q = {"start": iso_utc(T0), "end": iso_utc(T0 + 40 * 3600)}
    r = c.get(f"/ballast/screening/{MMSI}", params=q, headers={"X-API-Key": keys["viewer"]})
    assert r.status_code == 200
    assert r.json()["came_from_beyond_200nm"] and r.json()["a_water"]["total_hours"] > 25
    assert [a["port_zone_id"] for a in r.json()["arrivals"]] == ["port-test"]
    r = c.get("/ballast/screening/710000001", params=q, headers={"X-API-Key": keys["viewer"]})
    assert r.status_code == 404


def test_audits_survive_a_purge(client: tuple[TestClient, dict[str, str]]) -> None:
    """BW-RECORD: asking the store to purge everything keeps an audit younger than 5 years."""
    c, keys = client
    t = track()
    body = {"mmsi": MMSI, "exchanges": [{"start": point(t[24]), "end": point(t[60])}]}
    r = c.post("/ballast/audits", json=body, headers={"X-API-Key": keys["inspector"]})
    repo = c.app.state.repository  # type: ignore[attr-defined]
    repo.purge_audits(time.time() + 86_400)
    again = c.get(f"/ballast/audits/{r.json()['id']}", headers={"X-API-Key": keys["viewer"]})
    assert again.status_code == 200
