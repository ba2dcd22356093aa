"""Routing by jurisdiction and keys limited to one authority.

The jurisdiction zones are made for the test (Vigia ships none: no sourced boundary of
the Capitanias' areas is obtainable here); their places are real waters off Macaé and
Santos.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.api.conftest import Api, feature, square
from tests.api.test_procedure import make_lead
from vigia.ingest.records import VesselInfo

RJ, SP = "CP-TESTE-Macaé", "CP-TESTE-Santos"


def _zones(api: Api) -> None:
    fc = {
        "type": "FeatureCollection",
        "features": [
            feature(
                "jur-test-rj",
                "jurisdiction",
                square(-40.05, -22.37, 0.2),
                authority=RJ,
                seat_state="RJ",
                ports=["BRMEA", "Macaé"],
            ),
            feature(
                "jur-test-sp",
                "jurisdiction",
                square(-46.30, -24.05, 0.2),
                authority=SP,
                seat_state="SP",
                ports=["BRSSZ", "Santos"],
            ),
        ],
    }
    r = api.client.post("/collections/zones/items", json=fc, headers=api.h("admin"))
    assert r.status_code in (200, 201), r.text


def _key(api: Api, role: str, authority: str) -> dict[str, str]:
    body = {"role": role, "name": f"{role}-{authority}", "authority": authority}
    r = api.client.post("/apikeys", json=body, headers=api.h("admin"))
    assert r.status_code == 201 and r.json()["authority"] == authority, r.text
    return {"X-API-Key": r.json()["key"]}


def test_leads_route_by_zone_and_destination_and_keys_see_their_own(api: Api) -> None:
    _zones(api)
    api.repo.upsert_vessels([VesselInfo(636000001, "OCEAN STAR", destination="BR SSZ")])
    platform = dataclasses.replace(make_lead("L-RJ"), authority=None)  # inside the RJ zone
    # a ballast lead far offshore, outside both zones: routed by its destination port
    ballast = dataclasses.replace(
        make_lead("L-BW", rule="BW-EXCH-200", mmsi=636000001),
        authority=None,
        closest_lon=-38.0,
        closest_lat=-26.0,
    )
    nowhere = dataclasses.replace(
        make_lead("L-NONE", mmsi=710000002), authority=None, closest_lon=-35.0, closest_lat=-8.0
    )
    api.repo.upsert_leads([platform, ballast, nowhere])

    def ids(query: str, headers: dict[str, str]) -> list[str]:
        r = api.client.get(f"/leads{query}", headers=headers)
        assert r.status_code == 200, r.text
        return sorted(x["id"] for x in r.json()["leads"])

    viewer = api.h("viewer")
    assert ids("", viewer) == ["L-BW", "L-NONE", "L-RJ"]
    assert ids(f"?authority={RJ}", viewer) == ["L-RJ"]
    assert ids(f"?authority={SP}", viewer) == ["L-BW"]

    santos = _key(api, "viewer", SP)
    assert ids("", santos) == ["L-BW"]
    assert api.client.get("/leads/L-BW", headers=santos).status_code == 200
    for path in ("/leads/L-RJ", "/leads/L-RJ/evidence", "/leads/L-NONE"):
        assert api.client.get(path, headers=santos).status_code == 404, path
    r = api.client.get(f"/leads?authority={RJ}", headers=santos)
    assert r.status_code == 403

    macae = _key(api, "inspector", RJ)
    r = api.client.patch("/leads/L-BW", json={"status": "triaged"}, headers=macae)
    assert r.status_code == 404
    r = api.client.patch("/leads/L-RJ", json={"status": "triaged"}, headers=macae)
    assert r.status_code == 200
    body: dict[str, Any] = r.json()
    # the working-day calendar follows the seat its jurisdiction zone names
    assert body["procedure"]["seat_state"] == "RJ" and body["calendar"]["state"] == "RJ"
    assert body["history"][0]["by"] == f"inspector-{RJ}"

    r = api.client.post("/apikeys", json={"role": "admin", "authority": RJ}, headers=api.h("admin"))
    assert r.status_code == 422


def _post(api: Api, path: str, body: dict[str, Any], headers: dict[str, str]) -> int:
    r = api.client.post(path, json=body, headers=headers)
    if r.status_code >= 400:
        assert r.headers["content-type"] == "application/problem+json", r.text
    return r.status_code


def test_a_scoped_key_silences_only_zones_whose_leads_can_be_its_own(api: Api) -> None:
    """Issue 31: a zone named by another office, inside another's jurisdiction zone, or
    routed by the register to another office is not a limited key's to silence."""
    _zones(api)
    named = feature("anch-named-sp", "anchorage", square(-40.0, -22.3, 0.01), authority=SP)
    r = api.client.post(
        "/collections/zones/items",
        json={"type": "FeatureCollection", "features": [named]},
        headers=api.h("admin"),
    )
    assert r.status_code in (200, 201), r.text
    macae = _key(api, "inspector", RJ)
    until = {"until": "2099-01-01T00:00:00Z", "reason": "survey under contract"}
    refused = [
        "anch-santos",  # inside SP's jurisdiction zone
        "jur-test-sp",  # SP's jurisdiction itself
        "anch-named-sp",  # inside RJ's square, but the zone names SP
        "notice-rio",  # outside both: the register routes it to the CP of Rio de Janeiro
    ]
    for zone_id in refused:
        assert _post(api, "/silences", {**until, "zone_id": zone_id}, macae) == 403, zone_id
        body = {**until, "zone_id": zone_id, "mmsi": 710_000_001}
        assert _post(api, "/silences", body, macae) == 403, zone_id
    assert _post(api, "/silences", {**until, "zone_id": "no-such-zone"}, macae) == 422
    assert _post(api, "/silences", {**until, "zone_id": "plat-p66"}, macae) == 201
    assert _post(api, "/silences", {**until, "zone_id": "jur-test-rj"}, macae) == 201
    # by MMSI alone it hides only the key's own leads already: allowed
    assert _post(api, "/silences", {**until, "mmsi": 710_000_001}, macae) == 201
    # an unlimited inspector silences anywhere
    for zone_id in refused:
        assert _post(api, "/silences", {**until, "zone_id": zone_id}, api.h("inspector")) == 201
    assert len(api.client.get("/silences", headers=macae).json()["silences"]) == 3


def test_a_scoped_key_watches_only_places_routed_to_its_office(api: Api) -> None:
    _zones(api)
    macae = _key(api, "inspector", RJ)
    held = {"mmsi": 710_000_001, "radius_m": 150.0, "reason": "lacre 12/2026"}
    santos, rio, off_macae = (-46.30, -24.05), (-43.17, -22.9), (-40.05, -22.37)
    for lon, lat in (santos, rio):  # SP's zone; the register's CP of Rio de Janeiro
        assert _post(api, "/watchlist", {**held, "lon": lon, "lat": lat}, macae) == 403
    lon, lat = off_macae
    assert _post(api, "/watchlist", {**held, "lon": lon, "lat": lat}, macae) == 201
    lon, lat = santos
    assert _post(api, "/watchlist", {**held, "lon": lon, "lat": lat}, api.h("inspector")) == 201
    assert len(api.client.get("/watchlist", headers=macae).json()["watchlist"]) == 1
