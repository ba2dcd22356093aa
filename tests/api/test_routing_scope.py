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
