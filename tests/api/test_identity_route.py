"""GET /vessels/{mmsi}/identity (issue 34) on both stores: the MMSI's form and MID,
the checks on the latest static data by the published rules, and the ID-* leads."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api
from vigia.alerts.identity.static import STATIC_RULE
from vigia.alerts.lead import EvidencePoint, build_lead, vessel_json
from vigia.ingest.records import VesselInfo

pytestmark = pytest.mark.postgis
T0 = 1_709_294_400.0  # 2024-03-01T12:00:00Z
BR, SG = 710_000_501, 563_000_502


@pytest.fixture(scope="module")
def loaded(shared_api: Api) -> Api:
    api = shared_api
    api.repo.upsert_vessels(
        [
            # IMO 9074729 passes its check digit (9*7+0*6+7*5+4*4+7*3+2*2 = 139)
            VesselInfo(BR, name="BRAVO", callsign="PPBB", imo=9074729, updated_at=T0),
            # 9074728 fails it; PPXQ is a Brazilian call sign under Singapore's MID
            VesselInfo(SG, name="SIERRA", callsign="PPXQ", imo=9074728, updated_at=T0),
        ]
    )
    fix = EvidencePoint(T0, -43.1, -22.9, None, None, None)
    events = [{"t": "2024-03-01T12:00:00Z", "why": ["name and call sign changed in one report"],
               "changes": {"name": {"from": "ALFA", "to": "BRAVO"}}}]  # fmt: skip
    lead = build_lead(
        mmsi=BR, rule=STATIC_RULE, zone=None, started_at=T0, ended_at=T0, key_point=fix,
        points=[fix], cap=1, vessel=vessel_json(BR, None), max_sog_kn=None,
        details={"events": events},
    )  # fmt: skip
    api.repo.upsert_leads([lead])
    return api


def _get(api: Api, mmsi: int) -> dict:  # type: ignore[type-arg]
    r = api.client.get(f"/vessels/{mmsi}/identity", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_brazilian_vessel_with_its_history(loaded: Api) -> None:
    body = _get(loaded, BR)
    assert (body["mid"], body["mid_country"], body["mid_name"]) == (710, "BR", "Brazil")
    assert body["valid_form"] and body["device_class"] == "vessel"
    assert body["checks"] == {"imo_check_digit": True, "callsign_flag": None}
    (h,) = body["history"]
    assert h["rule"] == STATIC_RULE and h["events"][0]["changes"]["name"]["to"] == "BRAVO"


def test_the_checks_say_what_fails(loaded: Api) -> None:
    body = _get(loaded, SG)
    assert body["mid_country"] == "SG" and body["history"] == []
    assert body["checks"]["imo_check_digit"] is False
    assert "PPXQ" in body["checks"]["callsign_flag"]


def test_an_unknown_vessel_answers_with_nulls_and_a_viewer_key_is_needed(loaded: Api) -> None:
    body = _get(loaded, 222_000_001)  # a MID allocated to no one
    assert (body["mid"], body["mid_country"], body["static"]) == (222, None, None)
    assert loaded.client.get(f"/vessels/{BR}/identity").status_code == 401
