"""GET /vessels/{mmsi}/identity (issue 34) on both stores: the MMSI's form and MID,
the checks on the latest static data by the published rules, the stored identity
history (newest first, limited, the days past the cap), and the ID-* leads in the
caller's scope."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api
from vigia.alerts.identity.history import HistoryOut, IdentityChange
from vigia.alerts.identity.static import STATIC_RULE
from vigia.alerts.lead import EvidencePoint, build_lead, vessel_json
from vigia.ingest.records import VesselInfo
from vigia.service.http.app import new_api_key
from vigia.service.http.deps import hash_key

pytestmark = pytest.mark.postgis
T0 = 1_709_294_400.0  # 2024-03-01T12:00:00Z
BR, SG, BUSY = 710_000_501, 563_000_502, 710_000_503


def _history(*changes: IdentityChange) -> HistoryOut:
    h = HistoryOut()
    for c in changes:
        h.add(c)
    return h


@pytest.fixture(scope="module")
def loaded(shared_api: Api) -> Api:
    api = shared_api
    api.repo.upsert_vessels(
        [
            # IMO 9074729 passes its check digit (9*7+0*6+7*5+4*4+7*3+2*2 = 139)
            VesselInfo(BR, name="BRAVO", callsign="PPBB", imo=9074729, updated_at=T0),
            # 9074728 fails it; PPXQ is a Brazilian call sign under Singapore's MID
            VesselInfo(SG, name="SIERRA", callsign="PPXQ", imo=9074728, updated_at=T0),
        ],
        # BR was ALFA / PPAA until 11:00 UTC, and 80 m long until 11:30
        _history(
            IdentityChange(BR, T0 - 3600, "name", "ALFA", "BRAVO", 5, "tcp:rx1", 1),
            IdentityChange(BR, T0 - 3600, "callsign", "PPAA", "PPBB", 5, "tcp:rx1", 2),
            IdentityChange(BR, T0 - 1800, "length_m", 80.0, 95.5, 24, "udp:rx2", 3),
        ),
    )
    # a transponder renaming its ship every 10 s for 20 min: 120 changes that day
    api.repo.upsert_vessels(
        [],
        _history(*(IdentityChange(BUSY, T0 + 10 * k, "name", f"N{k}", f"N{k + 1}", 5, "x", k + 1)
                   for k in range(120))),
    )  # fmt: skip
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
    # newest first; the two changes of one report by field name
    assert body["history"] == [
        {"t": "2024-03-01T11:30:00Z", "field": "length_m", "before": 80.0, "after": 95.5,
         "msg_type": 24, "source": "udp:rx2"},
        {"t": "2024-03-01T11:00:00Z", "field": "callsign", "before": "PPAA", "after": "PPBB",
         "msg_type": 5, "source": "tcp:rx1"},
        {"t": "2024-03-01T11:00:00Z", "field": "name", "before": "ALFA", "after": "BRAVO",
         "msg_type": 5, "source": "tcp:rx1"},
    ]  # fmt: skip
    assert (body["history_total"], body["history_limit"], body["history_day_cap"]) == (3, 100, 50)
    assert body["history_not_kept"] == []
    (h,) = body["leads"]
    assert h["rule"] == STATIC_RULE and h["events"][0]["changes"]["name"]["to"] == "BRAVO"


def test_the_history_is_limited_and_says_what_a_day_did_not_keep(loaded: Api) -> None:
    r = loaded.client.get(f"/vessels/{BR}/identity?limit=1", headers=loaded.h("viewer"))
    assert r.status_code == 200 and [x["field"] for x in r.json()["history"]] == ["length_m"]
    assert r.json()["history_total"] == 3
    body = _get(loaded, BUSY)
    assert body["history_total"] == 50 and len(body["history"]) == 50
    # the first 50 of the day kept, newest first: N49 -> N50 at 12:08:10
    assert body["history"][0] == {"t": "2024-03-01T12:08:10Z", "field": "name", "before": "N49",
                                  "after": "N50", "msg_type": 5, "source": "x"}  # fmt: skip
    assert body["history_not_kept"] == [{"day": "2024-03-01", "changes": 120, "kept": 50}]
    for bad in ("0", "1001", "x"):
        got = loaded.client.get(f"/vessels/{BR}/identity?limit={bad}", headers=loaded.h("viewer"))
        assert got.status_code == 422, bad


def test_the_history_pages_past_its_newest_by_keyset(loaded: Api) -> None:
    """BUSY's 50 kept changes, 20 a page: 20, 20 and 10, each older than the page before,
    together the 50 of one read, and no cursor after the last; BR's two changes of one
    report (11:00, callsign then name) are split between pages at the bound."""

    def pages(mmsi: int, limit: int) -> list[list[dict]]:  # type: ignore[type-arg]
        out, before = [], ""
        while True:
            q = f"/vessels/{mmsi}/identity?limit={limit}" + (f"&before={before}" if before else "")
            body = loaded.client.get(q, headers=loaded.h("viewer")).json()
            out.append(body["history"])
            before = body["history_next"]
            if before is None:
                return out
            assert len(out) < 10

    busy = pages(BUSY, 20)
    assert [len(p) for p in busy] == [20, 20, 10]
    assert [c for p in busy for c in p] == _get(loaded, BUSY)["history"]
    # the oldest kept: N0 -> N1 at 12:00:00, the day's first
    assert (busy[-1][-1]["t"], busy[-1][-1]["after"]) == ("2024-03-01T12:00:00Z", "N1")
    br = pages(BR, 2)  # length_m 11:30 | callsign 11:00, name 11:00: the same t split
    assert [[(c["t"][11:16], c["field"]) for c in p] for p in br] == [
        [("11:30", "length_m"), ("11:00", "callsign")],
        [("11:00", "name")],
    ]
    assert pages(BR, 3) == [_get(loaded, BR)["history"]]  # exactly one page: no cursor


@pytest.mark.parametrize(
    "cursor",
    [
        "x",
        "eyJzIjoibmV3ZXN0IiwidCI6MTcwOTI5NDQwMC4wLCJpZCI6IkwtMSJ9",  # a lead list's
        "eyJzIjoiaGlzdG9yeSIsInQiOiJub3cifQ",  # {"s":"history","t":"now"}
    ],
)
def test_a_cursor_it_did_not_write_is_a_400(loaded: Api, cursor: str) -> None:
    r = loaded.client.get(f"/vessels/{BR}/identity?before={cursor}", headers=loaded.h("viewer"))
    assert r.status_code == 400, r.text


def test_a_key_of_another_authority_sees_the_history_not_the_leads(loaded: Api) -> None:
    key = new_api_key()
    loaded.repo.add_api_key("other-office", "viewer", hash_key(key), "CP-TESTE-Outra")
    body = loaded.client.get(f"/vessels/{BR}/identity", headers={"X-API-Key": key}).json()
    assert body["leads"] == []  # the ID lead is another authority's
    assert body["history_total"] == 3  # the vessel's own static data is nobody's


def test_the_checks_say_what_fails(loaded: Api) -> None:
    body = _get(loaded, SG)
    assert body["mid_country"] == "SG" and body["history"] == [] and body["leads"] == []
    assert body["checks"]["imo_check_digit"] is False
    assert "PPXQ" in body["checks"]["callsign_flag"]


def test_an_unknown_vessel_answers_with_nulls_and_a_viewer_key_is_needed(loaded: Api) -> None:
    body = _get(loaded, 222_000_001)  # a MID allocated to no one
    assert (body["mid"], body["mid_country"], body["static"]) == (222, None, None)
    assert loaded.client.get(f"/vessels/{BR}/identity").status_code == 401
