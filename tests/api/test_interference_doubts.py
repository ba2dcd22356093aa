"""Leads raised where GNSS interference put a ship (issue 34), on both stores: three
ships at sea 200 km apart report a naval base in Guanabara Bay within five minutes of
one another, then their real tracks again; a fourth sails up to the base itself. The
pipeline raises the military area's lead for all four and one ``ID-INTERFERENCE``
lead; read through the API, the three spoofed ships' leads name the event that put them
there and the fourth's names none, and the event lists the three leads it explains.
Then ``doubts`` at its bounds, worked by hand."""

from __future__ import annotations

import dataclasses
import math

import pytest
from shapely.geometry import Point

from tests.alerts.scenario_kit import T0, aisgen, feature, index_from, to_positions
from tests.alerts.test_interference import KN, dest, fix, gc
from tests.api.conftest import Api
from vigia.alerts.identity.victims import doubts
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, iso_utc
from vigia.ingest.registry import VesselRegistry
from vigia.service.http.app import new_api_key
from vigia.service.http.deps import hash_key

pytestmark = pytest.mark.postgis
BASE = (-43.1712, -22.8978)  # a naval installation in Guanabara Bay
SPOOFED = [dest(BASE, b, 60.0) for b in (0.0, 120.0, 240.0)]  # 60 m from it, by hand
JUMPS = (T0 + 600.0, T0 + 720.0, T0 + 900.0)
SHIPS = (710_000_711, 710_000_712, 710_000_713)
HONEST = 710_000_714


def spoofed(k: int) -> list[Position]:
    """Ship ``k`` at sea, 200 km south-east of the base (a fix a minute at 12 kn); from
    ``JUMPS[k]`` ten fixes at the base, then its real track again."""
    mmsi, t = SHIPS[k], JUMPS[k]
    sea = dest(BASE, 120.0 + 20.0 * k, 200_000.0)
    real = [fix(mmsi, t - 60.0 * (20 - i), dest(sea, 90.0, 12 * KN * 60.0 * i)) for i in range(20)]
    fake = [dataclasses.replace(fix(mmsi, t + 60.0 * i, SPOOFED[k]), sog=0.1) for i in range(10)]
    back = [fix(mmsi, t + 600.0 + 60.0 * i, dest(sea, 90.0, 12 * KN * 60.0 * (30 + i)))
            for i in range(10)]  # fmt: skip
    return real + fake + back


@pytest.fixture(scope="module")
def stored(shared_api: Api, tmp_path_factory: pytest.TempPathFactory) -> tuple[Api, list[Lead]]:
    props = {"id": "t-base", "kind": "military", "name": "Base Naval"}
    index = index_from([feature(Point(*BASE), **props)], tmp_path_factory.mktemp("zones"))
    # the honest ship drifts north for 10 minutes 150 m east of the base
    start = aisgen.fwd(*aisgen.fwd(*BASE, 90, 150), 180, 30)
    honest = to_positions(HONEST, aisgen.run(*start, course=0, sog_kn=0.2, t0=T0, dt_s=10, n=60))
    recs = sorted([p for k in range(3) for p in spoofed(k)] + honest, key=lambda r: (r.t, r.mmsi))
    pipe = LeadPipeline(index, VesselRegistry())
    leads: list[Lead] = []
    for i in range(0, len(recs), 25):
        leads += pipe.process(recs[i : i + 25]) + pipe.expire(pipe.stream_time)
    leads += pipe.finish()
    shared_api.repo.upsert_leads(leads)
    return shared_api, leads


def _get(api: Api, lead_id: str) -> dict:  # type: ignore[type-arg]
    r = api.client.get(f"/leads/{lead_id}", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_spoofed_ships_leads_name_the_event_and_the_honest_one_none(
    stored: tuple[Api, list[Lead]],
) -> None:
    api, leads = stored
    by_rule = sorted((x.rule, x.mmsi) for x in leads)
    assert by_rule == [("ID-INTERFERENCE", SHIPS[0])] + [
        ("SEC-MILITARY", m) for m in (*SHIPS, HONEST)
    ]
    (event,) = [x for x in leads if x.rule == "ID-INTERFERENCE"]
    for k, mmsi in enumerate(SHIPS):
        (lead,) = [x for x in leads if x.mmsi == mmsi and x.rule == "SEC-MILITARY"]
        (doubt,) = _get(api, lead.id)["interference"]
        assert doubt["lead_id"] == event.id and doubt["vessel_count"] == 3
        assert doubt["t"] == iso_utc(JUMPS[k])  # a fix a minute: no fix thinned
        assert doubt["to"] == pytest.approx(list(SPOOFED[k]), abs=1e-9)
        assert doubt["jump_m"] > 10_000.0
    (honest,) = [x for x in leads if x.mmsi == HONEST]
    assert _get(api, honest.id)["interference"] == []
    # the list says so too, with the same links, and nothing on the others
    r = api.client.get("/leads?limit=100", headers=api.h("viewer"))
    listed = {x["id"]: x for x in r.json()["leads"]}
    assert len(listed) == 5
    for lead in leads:
        doubted = lead.rule == "SEC-MILITARY" and lead.mmsi in SHIPS
        assert ("interference" in listed[lead.id]) is doubted
        if doubted:
            assert listed[lead.id]["interference"] == _get(api, lead.id)["interference"]
    body = _get(api, event.id)
    assert body["interference"] == []  # an ID-* lead is about a claim, never doubted
    victims = body["interference_victims"]
    assert [(v["mmsi"], v["rule"], v["zone_id"]) for v in victims] == [
        (m, "SEC-MILITARY", "t-base") for m in SHIPS
    ]


# -- the bounds, by hand -----------------------------------------------------------------


def _lead(started_at: float, at: tuple[float, float], mmsi: int = SHIPS[0],
          rule: str = "SEC-MILITARY") -> Lead:  # fmt: skip
    return Lead(
        id="x", mmsi=mmsi, rule=rule, citation="", zone_id="t-base", zone_kind="military",
        started_at=started_at, ended_at=None, min_distance_m=0.0, max_sog_kn=None,
        closest_lon=at[0], closest_lat=at[1], closest_t=started_at, evidence=[],
    )  # fmt: skip


def _event(t: float, to: tuple[float, float]) -> Lead:
    e = _lead(t, to, rule="ID-INTERFERENCE")
    e.id = "event"
    e.details = {"vessel_count": 3, "vessels": [
        {"mmsi": SHIPS[0], "t": iso_utc(t), "from": [0.0, 0.0], "to": list(to), "jump_m": 2e5}
    ]}  # fmt: skip
    return e


@pytest.mark.parametrize(
    ("start", "marked"),
    [
        (JUMPS[0] - 30.0, True),  # 30 s before the jump: the watch's bucket, included
        (JUMPS[0] - 30.5, False),
        (JUMPS[0] + 86_400.0, True),  # a day after: the watch's forgetting, included
        (JUMPS[0] + 86_400.5, False),
    ],
)
def test_a_lead_is_doubted_from_30_s_before_the_jump_to_a_day_after(
    start: float, marked: bool
) -> None:
    assert bool(doubts(_lead(start, SPOOFED[0]), [_event(JUMPS[0], SPOOFED[0])])) is marked


@pytest.mark.parametrize(("metres", "marked"), [(4_999.0, True), (5_001.0, False)])
def test_and_within_5_km_of_where_the_jump_ended(metres: float, marked: bool) -> None:
    at = dest(SPOOFED[0], 45.0, metres)
    assert math.isclose(gc(at, SPOOFED[0]), metres, abs_tol=0.01)
    assert bool(doubts(_lead(JUMPS[0], at), [_event(JUMPS[0], SPOOFED[0])])) is marked


def test_another_ship_or_an_identity_lead_is_never_doubted() -> None:
    e = [_event(JUMPS[0], SPOOFED[0])]
    assert doubts(_lead(JUMPS[0], SPOOFED[0], mmsi=SHIPS[1]), e) == []
    assert doubts(_lead(JUMPS[0], SPOOFED[0], rule="ID-MMSI-SHARED"), e) == []


def test_a_key_of_one_office_is_told_only_of_its_own_events(api: Api) -> None:
    """The victim's lead is office A's, the event office B's: A's key sees its lead
    undoubted and B's event never named, on the list and in the detail; a key of every
    office sees the link."""
    victim, event = _lead(JUMPS[0], SPOOFED[0]), _event(JUMPS[0], SPOOFED[0])
    victim.id, victim.authority, event.authority = "victim", "CP-TESTE-A", "CP-TESTE-B"
    api.repo.upsert_leads([victim, event])
    key = new_api_key()
    api.repo.add_api_key("office-a", "viewer", hash_key(key), "CP-TESTE-A")
    for headers, marked in (({"X-API-Key": key}, False), (api.h("viewer"), True)):
        detail = api.client.get("/leads/victim", headers=headers).json()
        listed = api.client.get("/leads", headers=headers).json()["leads"]
        (row,) = [x for x in listed if x["id"] == "victim"]
        assert bool(detail["interference"]) is marked
        assert ("interference" in row) is marked
