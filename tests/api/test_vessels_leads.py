"""Vessels, tracks, counters and leads read back through the API from each store."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.api.conftest import Api
from vigia.alerts.lead import EvidencePoint, Lead
from vigia.ingest.records import Position, VesselInfo

pytestmark = pytest.mark.postgis
T0 = 1_709_294_400.0  # 2024-03-01T12:00:00Z


def _pos(mmsi: int, t: float, lon: float, lat: float, sog: float = 5.0) -> Position:
    return Position(mmsi=mmsi, t=t, msg_type=1, lon=lon, lat=lat, sog=sog, cog=90.0, nav_status=0)


def _lead(
    i: int, mmsi: int, rule: str, zone: str | None, start: float, lon: float, lat: float
) -> Lead:
    ev = [
        EvidencePoint(start, lon - 0.001, lat, 6.0, 90.0, 0, 300.0),
        EvidencePoint(start + 60, lon, lat, 7.5, 90.0, 0, 150.0),
        EvidencePoint(start + 120, lon + 0.001, lat, 6.5, 90.0, 0, 320.0),
    ]
    return Lead(
        id=f"L-{i:04d}",
        mmsi=mmsi,
        rule=rule,
        citation="NORMAM-07/DPC 0212 f)",
        zone_id=zone,
        zone_kind="platform" if zone else None,
        started_at=start,
        ended_at=start + 120 if i % 2 == 0 else None,
        min_distance_m=150.0,
        max_sog_kn=7.5,
        closest_lon=lon,
        closest_lat=lat,
        closest_t=start + 60,
        evidence=ev,
        vessel={"name": f"BOAT {i}", "ship_type": 30, "length_m": 12.0, "flag_mid": 710},
        zone_version=1 if zone else None,
    )


@pytest.fixture(scope="module")
def loaded(shared_api: Api) -> Api:
    """Three vessels off Rio and one off Santos, with tracks, static data and leads."""
    api = shared_api
    positions = []
    for k in range(10):  # a track of 10 fixes for 710000001, eastwards
        positions.append(_pos(710000001, T0 + 60 * k, -43.20 + 0.001 * k, -22.95))
    positions.append(_pos(710000002, T0, -43.10, -22.90))
    positions.append(_pos(710000003, T0 + 30, -43.05, -22.85))
    positions.append(_pos(538000004, T0 + 10, -46.30, -24.05))
    api.repo.add_positions(positions)
    api.repo.upsert_vessels(
        [
            VesselInfo(
                mmsi=710000001,
                name="MARIA DO MAR",
                callsign="PP1234",
                ship_type=30,
                length_m=18.0,
                beam_m=5.0,
                updated_at=T0,
            ),
        ]
    )
    api.repo.upsert_leads(
        [
            _lead(0, 710000001, "SEC-PLATFORM", "plat-p66", T0, -40.05, -22.37),
            _lead(1, 710000002, "SEC-PLATFORM", "plat-p66", T0 + 3600, -40.051, -22.371),
            _lead(2, 710000001, "SEC-ANCHORAGE", "anch-santos", T0 + 7200, -46.30, -24.05),
            _lead(3, 538000004, "SEC-NOTICE", "notice-rio", T0 + 86400, -43.15, -22.95),
        ]
    )
    return api


def _get(api: Api, url: str) -> dict:  # type: ignore[type-arg]
    r = api.client.get(url, headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_latest_positions_one_per_vessel_in_the_bbox(loaded: Api) -> None:
    body = _get(loaded, "/vessels")
    assert body["type"] == "FeatureCollection"
    by_mmsi = {f["properties"]["mmsi"]: f for f in body["features"]}
    assert set(by_mmsi) == {710000001, 710000002, 710000003, 538000004}
    assert by_mmsi[710000001]["geometry"]["coordinates"] == pytest.approx([-43.191, -22.95])
    assert by_mmsi[710000001]["properties"]["t"] == "2024-03-01T12:09:00Z"
    rio = _get(loaded, "/vessels?bbox=-43.3,-23.0,-43.0,-22.8")
    assert sorted(f["properties"]["mmsi"] for f in rio["features"]) == [
        710000001,
        710000002,
        710000003,
    ]
    assert _get(loaded, "/vessels?bbox=10,10,11,11")["features"] == []


def test_vessel_pages_follow_next_links(loaded: Api) -> None:
    seen: list[int] = []
    url = "/vessels?limit=3"
    while url:
        body = _get(loaded, url)
        seen += [f["properties"]["mmsi"] for f in body["features"]]
        nxt = [x["href"] for x in body["links"] if x["rel"] == "next"]
        url = urlsplit(nxt[0])._replace(scheme="", netloc="").geturl() if nxt else ""
    assert sorted(seen) == [538000004, 710000001, 710000002, 710000003]


def test_static_data_and_unknown_vessel(loaded: Api) -> None:
    v = _get(loaded, "/vessels/710000001")
    assert v["name"] == "MARIA DO MAR" and v["ship_type"] == 30 and v["flag_mid"] == 710
    r = loaded.client.get("/vessels/710999999", headers=loaded.h("viewer"))
    assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("mmsi", [0, 1, 12345, 999_999_999, 1_073_741_823, 123_456_789])
@pytest.mark.parametrize("path", ["/vessels/{}", "/vessels/{}/track"])
def test_an_mmsi_of_no_station_is_refused_by_the_rule_ingest_keeps(
    loaded: Api, mmsi: int, path: str
) -> None:
    # the one rule (vigia.ingest.mmsi): never stored, so asking for it is a mistake
    r = loaded.client.get(path.format(mmsi), headers=loaded.h("viewer"))
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"


def test_track_is_a_linestring_and_points_between_two_times(loaded: Api) -> None:
    body = _get(
        loaded, "/vessels/710000001/track?start=2024-03-01T12:02:00Z&end=2024-03-01T12:05:00Z"
    )
    line, *points = body["features"]
    assert line["geometry"]["type"] == "LineString"
    assert len(line["geometry"]["coordinates"]) == 4
    assert [p["properties"]["t"] for p in points] == [
        "2024-03-01T12:02:00Z",
        "2024-03-01T12:03:00Z",
        "2024-03-01T12:04:00Z",
        "2024-03-01T12:05:00Z",
    ]
    assert all(p["geometry"]["type"] == "Point" for p in points)
    whole = _get(loaded, f"/vessels/710000001/track?start={T0}")
    assert len(whole["features"]) == 11
    r = loaded.client.get(
        "/vessels/710000001/track?start=2024-03-02T00:00:00Z&end=2024-03-01T00:00:00Z",
        headers=loaded.h("viewer"),
    )
    assert r.status_code == 422


def test_leads_filters(loaded: Api) -> None:
    def ids(query: str) -> list[str]:
        return sorted(x["id"] for x in _get(loaded, f"/leads{query}")["leads"])

    assert ids("") == ["L-0000", "L-0001", "L-0002", "L-0003"]
    assert ids("?rule=SEC-PLATFORM") == ["L-0000", "L-0001"]
    assert ids("?zone_id=anch-santos") == ["L-0002"]
    assert ids("?mmsi=710000001") == ["L-0000", "L-0002"]
    assert ids("?status=new&mmsi=538000004") == ["L-0003"]
    assert ids("?bbox=-41,-23,-39,-22") == ["L-0000", "L-0001"]
    # an open lead (L-0001) is still going on
    assert ids("?start=2024-03-02T00:00:00Z") == ["L-0001", "L-0003"]
    assert ids("?end=2024-03-01T12:30:00Z") == ["L-0000"]
    # a mistyped rule or status is refused, not answered with an empty page
    for bad in ("?rule=NOPE", "?status=reviewing"):
        r = loaded.client.get(f"/leads{bad}", headers=loaded.h("viewer"))
        assert r.status_code == 422, bad
        assert r.headers["content-type"].startswith("application/problem+json")
    assert (
        "unknown rule 'NOPE'"
        in loaded.client.get("/leads?rule=NOPE", headers=loaded.h("viewer")).json()["detail"]
    )


def test_leads_are_newest_first_and_page_with_next_links(loaded: Api) -> None:
    first = _get(loaded, "/leads?limit=3")
    assert first["numberMatched"] == 4 and first["numberReturned"] == 3
    assert [x["id"] for x in first["leads"]] == ["L-0003", "L-0002", "L-0001"]
    nxt = next(x["href"] for x in first["links"] if x["rel"] == "next")
    second = _get(loaded, urlsplit(nxt)._replace(scheme="", netloc="").geturl())
    assert [x["id"] for x in second["leads"]] == ["L-0000"]
    assert not [x for x in second["links"] if x["rel"] == "next"]


def test_one_lead_is_the_contract_json_and_its_evidence_is_geojson(loaded: Api) -> None:
    lead = _get(loaded, "/leads/L-0000")
    assert lead["rule"] == "SEC-PLATFORM" and lead["zone_id"] == "plat-p66"
    assert (
        lead["started_at"] == "2024-03-01T12:00:00Z" and lead["ended_at"] == "2024-03-01T12:02:00Z"
    )
    assert lead["closest_point"] == {"type": "Point", "coordinates": [-40.05, -22.37]}
    assert [e["sog"] for e in lead["evidence"]] == [6.0, 7.5, 6.5]
    assert lead["status"] == "new" and lead["vessel"]["name"] == "BOAT 0"
    assert _get(loaded, "/leads/L-0001")["ended_at"] is None

    r = loaded.client.get("/leads/L-0000/evidence", headers=loaded.h("viewer"))
    assert r.headers["content-type"].startswith("application/geo+json")
    kinds = [f["properties"]["kind"] for f in r.json()["features"]]
    assert kinds == ["path", "evidence", "evidence", "evidence", "closest_point"]
    assert r.json()["properties"]["rule"] == "SEC-PLATFORM"
    assert _get(loaded, "/leads/L-0000?f=geojson") == r.json()
    r = loaded.client.get("/leads/L-9999/evidence", headers=loaded.h("viewer"))
    assert r.status_code == 404


def test_counters_come_from_the_store_when_no_worker_runs(loaded: Api) -> None:
    loaded.repo.save_counters({"lines": 12, "decoded_lines": 10, "bad_checksum": 2})
    body = _get(loaded, "/ingest/counters")
    assert body["worker_running"] is False
    assert body["counters"]["lines"] == 12 and body["counters"]["bad_checksum"] == 2


def test_an_inspector_moves_a_lead_through_the_workflow(api: Api) -> None:
    api.repo.upsert_leads([_lead(7, 710000001, "SEC-PLATFORM", "plat-p66", T0, -40.05, -22.37)])
    url = "/leads/L-0007"
    r = api.client.patch(url, json={"status": "triaged"}, headers=api.h("viewer"))
    assert r.status_code == 403
    r = api.client.patch(url, json={"status": "triaged"}, headers=api.h("inspector"))
    assert r.status_code == 200 and r.json()["status"] == "triaged"
    assert len(r.json()["evidence"]) == 3
    r = api.client.patch(url, json={"status": "lost"}, headers=api.h("inspector"))
    assert r.status_code == 422 and "status" in r.json()["detail"]
    assert api.client.get(url, headers=api.h("viewer")).json()["status"] == "triaged"
    assert [
        x["id"]
        for x in api.client.get("/leads?status=triaged", headers=api.h("viewer")).json()["leads"]
    ] == ["L-0007"]
    r = api.client.patch("/leads/L-none", json={"status": "dismissed"}, headers=api.h("admin"))
    assert r.status_code == 404
