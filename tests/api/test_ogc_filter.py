"""OGC API - Features Part 3: the CQL2 ``filter`` on every collection, on both stores,
each expectation worked out by hand from the rows inserted here.

B is the bound every comparison is made at: 2025-11-24T16:00:00Z (T0). The leads start
one minute before it, at it, one minute after it and a day before it, so each operator
is checked at the bound itself and on both sides of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.storage.builders import T0, lead, pos
from vigia.ingest.records import VesselInfo
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.http.app import new_api_key
from vigia.service.http.deps import hash_key

B = T0
RJ, SP = "CP-TESTE-RJ", "CP-TESTE-SP"


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


BOUND = f"TIMESTAMP('{iso(B)}')"
ALL = {"L-before", "L-at", "L-after", "L-old"}


@pytest.fixture(scope="module")
def data(shared_api: Api) -> Iterator[Api]:
    """Four leads around B, two vessels, and a key limited to each authority."""
    repo = shared_api.repo
    repo.upsert_leads(
        [
            # overlaps B but started before it: what `datetime=B/..` wrongly kept
            lead("L-before", started_at=B - 60, ended_at=B + 600, authority=RJ),
            lead("L-at", started_at=B, ended_at=B + 60, rule="BW-EXCH-200", zone_id=None,
                 closest_lon=-43.2, closest_lat=-23.0, min_distance_m=80.0, authority=SP),
            lead("L-after", started_at=B + 60, ended_at=None, rule="BW-EXCH-50",
                 closest_lon=-46.3, closest_lat=-24.0, min_distance_m=50.0, authority=SP),
            lead("L-old", started_at=B - 86_400, ended_at=B - 80_000, rule="SAR-DISTRESS",
                 zone_id=None, closest_lon=-43.1, closest_lat=-22.9, authority=RJ),
        ]
    )  # fmt: skip
    repo.upsert_vessels(
        [VesselInfo(710_000_001, name="MARIA DO MAR", ship_type=30), VesselInfo(710_000_002)]
    )
    repo.add_positions(
        [pos(710_000_001, B, -40.0, -22.5, sog=8.0), pos(710_000_002, B + 60, -43.17, -22.9)]
    )
    for authority in (RJ, SP):
        key = new_api_key()
        repo.add_api_key(f"viewer-{authority}", "viewer", hash_key(key), authority=authority)
        shared_api.keys[authority] = key
    yield shared_api
    for authority in (RJ, SP):
        shared_api.keys.pop(authority)
    assert repo.get_lead("L-at", EVERY_AUTHORITY) is not None


def items(api: Api, layer: str, key: str = "viewer", **params: Any) -> dict[str, Any]:
    r = api.client.get(f"/collections/{layer}/items", params=params, headers=api.h(key))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def ids(api: Api, cql: str, layer: str = "leads", **params: Any) -> set[str]:
    body = items(api, layer, filter=cql, **params)
    assert body["numberMatched"] == body["numberReturned"] == len(body["features"])
    return {str(f["id"]) for f in body["features"]}


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (">=", {"L-at", "L-after"}),
        (">", {"L-after"}),
        ("=", {"L-at"}),
        ("<>", {"L-before", "L-after", "L-old"}),
        ("<", {"L-before", "L-old"}),
        ("<=", {"L-before", "L-at", "L-old"}),
    ],
)
def test_each_comparison_at_the_bound(data: Api, op: str, expected: set[str]) -> None:
    assert ids(data, f"started_at {op} {BOUND}") == expected
    # GDAL's form: a quoted string compared with a date-time property
    assert ids(data, f"started_at {op} '{iso(B)}'") == expected
    as_json = {"op": op, "args": [{"property": "started_at"}, {"timestamp": iso(B)}]}
    assert ids(data, json.dumps(as_json), **{"filter-lang": "cql2-json"}) == expected


def test_a_date_is_its_whole_utc_day(data: Api) -> None:
    # B is 2025-11-24T16:00Z: L-old started on the 23rd, the rest on the 24th
    assert ids(data, "started_at = DATE('2025-11-24')") == ALL - {"L-old"}
    assert ids(data, "started_at < DATE('2025-11-24')") == {"L-old"}
    assert ids(data, "started_at > DATE('2025-11-24')") == set()
    # how GDAL sends the date literal of a `-where`
    assert ids(data, "started_at <= '2025-11-23T'") == {"L-old"}


def test_and_or_not_with_cql2_precedence(data: Api) -> None:
    assert ids(data, "rule = 'BW-EXCH-200' OR rule = 'SAR-DISTRESS'") == {"L-at", "L-old"}
    assert ids(data, "NOT (rule = 'SEC-PLATFORM')") == {"L-at", "L-after", "L-old"}
    # AND binds tighter than OR: ((before B) OR (BW-EXCH-50 AND under 100 m))
    either = f"started_at < {BOUND} OR rule = 'BW-EXCH-50' AND min_distance_m < 100"
    assert ids(data, either) == {"L-before", "L-old", "L-after"}
    assert ids(data, f"rule = 'SEC-PLATFORM' AND started_at >= {BOUND}") == set()


def test_in_between_like_and_is_null(data: Api) -> None:
    assert ids(data, "rule IN ('BW-EXCH-200', 'BW-EXCH-50')") == {"L-at", "L-after"}
    assert ids(data, "rule NOT IN ('BW-EXCH-200', 'BW-EXCH-50')") == {"L-before", "L-old"}
    # both ends inclusive, at the bound itself
    assert ids(data, "min_distance_m BETWEEN 50 AND 80") == {"L-at", "L-after"}
    window = f"started_at BETWEEN TIMESTAMP('{iso(B - 60)}') AND {BOUND}"
    assert ids(data, window) == {"L-before", "L-at"}
    assert ids(data, "rule LIKE 'BW-%'") == {"L-at", "L-after"}
    assert ids(data, "rule LIKE 'BW-EXCH-_0'") == {"L-after"}
    assert ids(data, "rule LIKE 'bw-%'") == set()  # CQL2's LIKE minds case, on SQLite too
    assert ids(data, "zone_id IS NULL") == {"L-at", "L-old"}
    assert ids(data, "ended_at IS NULL") == {"L-after"}
    assert ids(data, "ended_at IS NOT NULL") == ALL - {"L-after"}
    assert ids(data, "mmsi = 710000001") == ALL


def test_spatial_functions(data: Api) -> None:
    square = "POLYGON((-44 -24, -43 -24, -43 -22, -44 -22, -44 -24))"
    assert ids(data, f"S_INTERSECTS(geometry, {square})") == {"L-at", "L-old"}
    assert ids(data, f"S_DISJOINT(geometry, {square})") == {"L-before", "L-after"}
    # L-at lies on the box's corner: it intersects the box but is not within it
    corner = "BBOX(-43.2, -23.0, -43.0, -22.0)"
    assert ids(data, f"S_INTERSECTS(geometry, {corner})") == {"L-at", "L-old"}
    within = "POLYGON((-43.2 -23, -43 -23, -43 -22, -43.2 -22, -43.2 -23))"
    assert ids(data, f"S_WITHIN(geometry, {within})") == {"L-old"}
    assert ids(data, "S_EQUALS(geometry, POINT(-46.3 -24))") == {"L-after"}
    assert ids(data, f"NOT S_INTERSECTS(geometry, {square}) AND rule LIKE 'SEC%'") == {"L-before"}


def test_temporal_functions(data: Api) -> None:
    assert ids(data, f"T_AFTER(started_at, {BOUND})") == {"L-after"}
    assert ids(data, f"T_BEFORE(ended_at, {BOUND})") == {"L-old"}
    # episodes reaching B+600 or later: L-before ends exactly then; L-after is still open
    later = f"INTERVAL('{iso(B + 600)}', '..')"
    assert ids(data, f"T_INTERSECTS(INTERVAL(started_at, ended_at), {later})") == {
        "L-before",
        "L-after",
    }
    during = f"INTERVAL('{iso(B - 60)}', '{iso(B + 600)}')"
    assert ids(data, f"T_DURING(INTERVAL(started_at, ended_at), {during})") == {"L-at"}


def test_the_filter_with_bbox_datetime_and_paging(data: Api) -> None:
    assert ids(data, f"started_at >= {BOUND}", bbox="-47,-25,-43,-22") == {"L-at", "L-after"}
    # datetime keeps the episodes overlapping B+30 on: L-before, L-at, L-after
    assert ids(data, "rule LIKE 'BW%'", datetime=f"{iso(B + 30)}/..") == {"L-at", "L-after"}
    seen: list[str] = []
    page = items(data, "leads", filter=f"started_at >= TIMESTAMP('{iso(B - 60)}')", limit=1)
    while True:
        assert page["numberMatched"] == 3 and page["numberReturned"] == 1
        seen += [f["id"] for f in page["features"]]
        nxt = [x["href"] for x in page["links"] if x["rel"] == "next"]
        if not nxt:
            break
        r = data.client.get(nxt[0], headers=data.h("viewer"))
        assert r.status_code == 200, r.text
        page = r.json()
    assert seen == ["L-after", "L-at", "L-before"]  # newest first, the filter kept


def test_a_key_of_one_authority_sees_only_its_leads_through_a_filter(data: Api) -> None:
    everything = "started_at > TIMESTAMP('2000-01-01T00:00:00Z')"
    for authority, own in ((RJ, {"L-before", "L-old"}), (SP, {"L-at", "L-after"})):
        body = items(data, "leads", key=authority, filter=everything)
        assert {f["id"] for f in body["features"]} == own and body["numberMatched"] == 2
        body = items(data, "leads", key=authority, filter="rule IN ('BW-EXCH-50', 'SAR-DISTRESS')")
        assert len(body["features"]) == 1


def test_zones_and_vessels_are_filtered(data: Api) -> None:
    assert ids(data, "kind = 'anchorage'", "zones") == {"anch-santos"}
    assert ids(data, "valid_from IS NOT NULL", "zones") == {"notice-rio"}
    assert ids(data, "S_INTERSECTS(geometry, BBOX(-46.4, -24.1, -46.2, -24.0))", "zones") == {
        "anch-santos"
    }
    assert ids(data, "valid_to < DATE('2024-03-10')", "zones") == set()
    assert ids(data, "valid_to <= DATE('2024-03-10')", "zones") == {"notice-rio"}
    assert ids(data, "kind <> 'platform'", "zones", datetime="2024-03-05") == {
        "anch-santos",
        "notice-rio",
    }
    assert ids(data, "name = 'MARIA DO MAR'", "vessels") == {"710000001"}
    assert ids(data, "name IS NULL", "vessels") == {"710000002"}
    assert ids(data, f"t > {BOUND}", "vessels") == {"710000002"}
    assert ids(data, f"t >= {BOUND} AND sog >= 8", "vessels") == {"710000001"}
    assert ids(data, "S_INTERSECTS(geometry, BBOX(-44, -23, -43, -22))", "vessels") == {"710000002"}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"filter": "colour = 'red'"}, "colour"),
        ({"filter": "started_at >="}, "cql2-text"),
        ({"filter": "lower(rule) = 'x'"}, "lower"),
        ({"filter": "mmsi = 'abc'"}, "mmsi"),
        ({"filter": "rule LIKE 'BW\\'"}, "escape"),
        ({"filter": "S_INTERSECTS(geometry, POLYGON((0 0, 1 1, 1 0, 0 1, 0 0)))"}, "valid"),
        ({"filter": '{"op": "="}', "filter-lang": "cql2-json"}, "cql2-json"),
        ({"filter": "rule = 'X'", "filter-crs": "EPSG:4326"}, "filter-crs"),
        ({"filter": "rule = 'X'", "filter-lang": "ecql"}, "filter-lang"),
    ],
)
def test_a_bad_filter_is_a_400_naming_what_is_wrong(
    data: Api, params: dict[str, str], named: str
) -> None:
    r = data.client.get("/collections/leads/items", params=params, headers=data.h("viewer"))
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("invalid-filter") and named in problem["detail"]


def test_conformance_and_queryables(data: Api) -> None:
    conforms = data.client.get("/conformance", headers=data.h("viewer")).json()["conformsTo"]
    for cls in ("ogcapi-features-3/1.0/conf/filter", "ogcapi-features-3/1.0/conf/features-filter",
                "ogcapi-features-3/1.0/conf/queryables", "cql2/1.0/conf/basic-cql2",
                "cql2/1.0/conf/cql2-text", "cql2/1.0/conf/cql2-json",
                "cql2/1.0/conf/spatial-functions", "cql2/1.0/conf/temporal-functions"):  # fmt: skip
        assert f"http://www.opengis.net/spec/{cls}" in conforms
    props = data.client.get("/collections/leads/queryables", headers=data.h("viewer")).json()
    props = props["properties"]
    rules = props["rule"]["enum"]
    assert len(rules) == len(set(rules)) and {"BW-EXCH-200", "BW-EXCH-50"} <= set(rules)
    for name in ("started_at", "ended_at"):
        assert props[name] == {"title": props[name]["title"], "type": "string",
                               "format": "date-time"}  # fmt: skip
    meta = data.client.get("/collections/leads", headers=data.h("viewer")).json()
    assert meta["extent"]["temporal"]["interval"][0][0] == iso(B - 86_400)


#: CONTRACT.md section 3's lead fields, written out (not read from the code under test)
LEAD_FIELDS = {
    "id", "mmsi", "vessel", "rule", "citation", "zone_id", "zone_kind", "started_at",
    "ended_at", "min_distance_m", "max_sog_kn", "closest_point", "evidence", "authority",
    "status",
}  # fmt: skip


def test_a_lead_item_carries_every_lead_field_its_evidence_too(data: Api) -> None:
    """Section 8: leads' "properties: the lead fields", the same as GET /leads/{id}'s."""
    h = data.h("viewer")
    items = data.client.get("/collections/leads/items", headers=h).json()["features"]
    one = data.client.get("/collections/leads/items/L-at", headers=h).json()
    assert {f["id"] for f in items} == ALL
    for f in [*items, one]:
        assert set(f["properties"]) >= LEAD_FIELDS, LEAD_FIELDS - set(f["properties"])
        lead = data.client.get(f"/leads/{f['id']}", headers=h).json()
        assert f["properties"]["evidence"] == lead["evidence"] and lead["evidence"]
        assert f["geometry"] == f["properties"]["closest_point"] == lead["closest_point"]
