"""OGC API - Features read by the clients analysts use: GDAL's OAPIF driver (through
pyogrio, with the key as ``Authorization: Bearer`` from a header file, as QGIS and GDAL
users pass it) and OWSLib, against a real ``vigia serve``; every claimed conformance
class is exercised here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.live.service import ADMIN_KEY, Service
from tests.storage.builders import T0, lead, pos
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.ingest.records import VesselInfo
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

pytestmark = pytest.mark.slow
BEARER = {"Authorization": f"Bearer {ADMIN_KEY}"}

INSPECTOR = Actor("test-inspector", "inspector")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("ogc")
    url = f"sqlite:///{tmp / 'v.sqlite'}"
    store = open_repository(url)
    assert isinstance(store, SqlRepository)
    store.migrate()
    store.upsert_leads(
        [
            lead("L-campos"),
            lead("L-sar", rule="SAR-DISTRESS", zone_id=None, closest_lon=-43.2, closest_lat=-23.0),
            lead("L-old", started_at=T0 - 86_400, ended_at=T0 - 80_000, closest_t=T0 - 86_000),
        ]
    )
    store.move_lead(
        "L-old", Move("dismissed", reason="duplicate"), INSPECTOR, scope=EVERY_AUTHORITY
    )
    store.upsert_vessels(
        [
            VesselInfo(710_000_001, name="MARIA DO MAR", ship_type=30, length_m=18.0),
            VesselInfo(710_000_002, name="SÃO JOSÉ", ship_type=70),
        ]
    )
    store.add_positions(
        [
            pos(710_000_001, T0, -40.0, -22.5, sog=8.0),
            pos(710_000_001, T0 + 60, -40.01, -22.51, sog=8.1),
            pos(710_000_002, T0, -43.17, -22.9),
            pos(710_000_003, T0, -46.3, -24.0),  # no static data yet
            # last seen two days before the others: 2025-11-22T16:00Z
            pos(710_000_004, T0 - 2 * 86_400, -41.0, -23.0),
        ]
    )
    store.close()
    svc = Service(tmp, url, {"VIGIA_LOAD_BUNDLED": "true"}).start()
    yield svc
    svc.stop()


def _read(src: str, layer: str, **kw: object) -> list[dict[str, object]]:
    """Features as GDAL reads them: attribute dicts with the geometry as ``geometry``."""
    import shapely
    from pyogrio.raw import read

    meta, _fids, geoms, fields = read(src, layer=layer, **kw)  # type: ignore[arg-type]
    rows = [dict(zip(meta["fields"], values, strict=True)) for values in zip(*fields, strict=True)]
    for row, wkb in zip(rows, geoms, strict=True):
        row["geometry"] = shapely.from_wkb(wkb)
    return rows


def test_gdal_reads_every_layer_with_a_bearer_key(served: Service, tmp_path: Path) -> None:
    pyogrio = pytest.importorskip("pyogrio")
    header_file = tmp_path / "headers.txt"
    header_file.write_text(f"Authorization: Bearer {ADMIN_KEY}\n")
    src = f"OAPIF:{served.base}"
    pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": str(header_file)})
    try:
        layers = {str(name) for name, _ in pyogrio.list_layers(src)}
        assert layers == {"zones", "leads", "vessels"}
        leads = {str(x["id"]): x for x in _read(src, "leads")}
        assert sorted(leads) == ["L-campos", "L-old", "L-sar"]
        sar = leads["L-sar"]
        assert (sar["geometry"].x, sar["geometry"].y) == (-43.2, -23.0)  # type: ignore[attr-defined]
        assert sar["rule"] == "SAR-DISTRESS" and sar["status"] == "new"
        near_rio = _read(src, "leads", bbox=(-44, -24, -43, -22))
        assert [x["id"] for x in near_rio] == ["L-sar"]
        vessels = {int(x["mmsi"]): x for x in _read(src, "vessels")}  # type: ignore[call-overload]
        assert vessels[710_000_001]["name"] == "MARIA DO MAR"
        assert vessels[710_000_002]["name"] == "SÃO JOSÉ"
        assert len(vessels) == 4
        one = vessels[710_000_001]["geometry"]
        assert (one.x, one.y) == (-40.01, -22.51)  # type: ignore[attr-defined]
        assert len(_read(src, "zones")) > 10
    finally:
        pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": None})


def test_owslib_reads_api_conformance_collections_and_items(served: Service) -> None:
    features = pytest.importorskip("owslib.ogcapi.features")
    api = features.Features(served.base, headers=BEARER)
    doc = api.api()  # follows the service-desc link typed as OpenAPI 3.0
    assert doc["openapi"].startswith("3.0") and "/collections/leads/items" in doc["paths"]
    conforms = api.conformance()["conformsTo"]
    assert any(c.endswith("/conf/oas30") for c in conforms)
    assert any(c.endswith("/conf/geojson") for c in conforms)
    listed = api.collections()
    assert {c["id"] for c in listed["collections"]} == {"zones", "leads", "vessels"}
    assert any(link["rel"] == "self" for link in listed["links"])
    leads_meta = api.collection("leads")
    bbox = leads_meta["extent"]["spatial"]["bbox"][0]
    assert bbox[0] <= -43.2 and bbox[2] >= -40.0
    assert leads_meta["extent"]["temporal"]["interval"][0][0] is not None
    page = api.collection_items("leads", limit=2)
    assert page["numberMatched"] == 3 and page["numberReturned"] == 2
    assert any(link["rel"] == "next" for link in page["links"])
    dismissed = api.collection_items("leads", status="dismissed")
    assert [f["id"] for f in dismissed["features"]] == ["L-old"]
    sar = api.collection_items("leads", rule="SAR-DISTRESS")
    assert [f["id"] for f in sar["features"]] == ["L-sar"]
    recent = api.collection_items("leads", datetime_=f"{_iso(T0 - 10)}/..")
    assert sorted(f["id"] for f in recent["features"]) == ["L-campos", "L-sar"]
    one = api.collection_item("leads", "L-sar")
    assert any(link["rel"] == "self" for link in one["links"])
    vessel = api.collection_item("vessels", "710000002")
    assert vessel["properties"]["name"] == "SÃO JOSÉ"


def _iso(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(
    "query",
    ["bbox=1,2,3", "bbox=a,b,c,d", "limit=0", "limit=x", "datetime=yesterday", "colour=red",
     "rule=NOPE", "status=maybe"],
)  # fmt: skip
def test_invalid_query_parameters_are_400(served: Service, query: str) -> None:
    r = httpx.get(f"{served.base}/collections/leads/items?{query}", headers=BEARER)
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")


def test_head_on_items_and_self_links(served: Service) -> None:
    for path in ("leads/items", "vessels/items", "zones/items", "leads/items/L-sar"):
        head = httpx.head(f"{served.base}/collections/{path}", headers=BEARER)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-type"].startswith("application/geo+json")
    assert (
        httpx.head(f"{served.base}/collections/leads/items/nope", headers=BEARER).status_code == 404
    )
    assert httpx.get(f"{served.base}/collections/leads/items").status_code == 401
    zone = httpx.get(f"{served.base}/collections/zones/items?limit=1", headers=BEARER).json()
    fid = zone["features"][0]["id"]
    one = httpx.get(f"{served.base}/collections/zones/items/{fid}", headers=BEARER).json()
    assert {"self", "collection"} <= {link["rel"] for link in one["links"]}
    for layer in ("zones", "leads", "vessels"):
        meta = httpx.get(f"{served.base}/collections/{layer}", headers=BEARER).json()
        assert meta["extent"]["spatial"]["bbox"][0] != [-180.0, -90.0, 180.0, 90.0]


# T0 is 2025-11-24T16:00Z. Leads: L-campos and L-sar start then and stay open; L-old ran
# 2025-11-23T16:00Z-17:46:40Z. Vessels last seen: 1 at T0+60, 2 and 3 at T0, 4 at T0-2 days.
DAY_OF_T0, DAY_BEFORE, TWO_DAYS_BEFORE = "2025-11-24", "2025-11-23", "2025-11-22"


def _ids(served: Service, layer: str, query: str) -> list[str]:
    r = httpx.get(f"{served.base}/collections/{layer}/items?{query}", headers=BEARER)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["numberMatched"] == body["numberReturned"] == len(body["features"])
    return sorted(str(f["id"]) for f in body["features"])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (f"datetime={DAY_OF_T0}", ["710000001", "710000002", "710000003"]),
        (f"datetime={DAY_BEFORE}", []),
        (f"datetime={TWO_DAYS_BEFORE}", ["710000004"]),
        (f"datetime=../{DAY_BEFORE}", ["710000004"]),
        (f"datetime={DAY_BEFORE}/..", ["710000001", "710000002", "710000003"]),
        # both sides of an instant bound, inclusive: vessel 1 was last seen at T0+60
        (f"datetime={_iso(T0 + 60)}/..", ["710000001"]),
        (f"datetime={_iso(T0 + 61)}/..", []),
        (f"datetime=../{_iso(T0 - 1)}", ["710000004"]),
        (f"datetime=../{_iso(T0)}", ["710000002", "710000003", "710000004"]),
        (f"datetime={_iso(T0)}", ["710000002", "710000003"]),
        ("datetime=../..", ["710000001", "710000002", "710000003", "710000004"]),
        (f"datetime={DAY_OF_T0}&bbox=-44,-24,-43,-22", ["710000002"]),
    ],
)
def test_vessels_filtered_by_the_time_of_their_latest_position(
    served: Service, query: str, expected: list[str]
) -> None:
    assert _ids(served, "vessels", query) == expected


@pytest.mark.parametrize(
    ("day", "expected"),
    [(DAY_BEFORE, ["L-old"]), (DAY_OF_T0, ["L-campos", "L-sar"]), ("2025-11-21", [])],
)
def test_a_date_means_that_whole_utc_day_for_leads(
    served: Service, day: str, expected: list[str]
) -> None:
    # before the fix a date was read as its midnight, where no lead was open
    assert _ids(served, "leads", f"datetime={day}") == expected
    assert _ids(served, "leads", f"datetime={day}T00:00:00Z") == []


def test_a_date_means_that_whole_utc_day_for_zones(served: Service) -> None:
    every = httpx.get(f"{served.base}/collections/zones/items?limit=10000", headers=BEARER)
    zones = every.json()["features"]

    def in_force(day_start: str, day_end: str) -> list[str]:
        # by hand from each zone's own validity window, ISO strings compared as instants
        from datetime import datetime

        lo, hi = datetime.fromisoformat(day_start), datetime.fromisoformat(day_end)
        out = []
        for z in zones:
            vf, vt = z["properties"].get("valid_from"), z["properties"].get("valid_to")
            if (vf is None or datetime.fromisoformat(vf) <= hi) and (
                vt is None or datetime.fromisoformat(vt) >= lo
            ):
                out.append(str(z["id"]))
        return sorted(out)

    for day in (DAY_OF_T0, "2024-03-05", "2000-01-01"):
        expected = in_force(f"{day}T00:00:00+00:00", f"{day}T23:59:59.999+00:00")
        assert _ids(served, "zones", f"datetime={day}&limit=10000") == expected, day
    assert len(expected) > 10


def test_gdal_reads_vessels_with_a_time_filter(served: Service, tmp_path: Path) -> None:
    pyogrio = pytest.importorskip("pyogrio")
    header_file = tmp_path / "headers.txt"
    header_file.write_text(f"Authorization: Bearer {ADMIN_KEY}\n")
    src = f"OAPIF:{served.base}"
    pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": str(header_file)})
    try:
        # the OAPIF driver's DATETIME open option (GDAL 3.10+) is sent as `datetime`
        today = _read(src, "vessels", DATETIME=DAY_OF_T0)
        assert sorted(int(x["mmsi"]) for x in today) == [710_000_001, 710_000_002, 710_000_003]  # type: ignore[call-overload]
        old = _read(src, "vessels", DATETIME=f"../{DAY_BEFORE}")
        assert [int(x["mmsi"]) for x in old] == [710_000_004]  # type: ignore[call-overload]
        assert _read(src, "vessels", DATETIME=DAY_BEFORE) == []
        # an attribute filter on the time property (older GDAL, QGIS' filter box)
        where = _read(src, "vessels", where=f"t < '{DAY_OF_T0}'")
        assert [int(x["mmsi"]) for x in where] == [710_000_004]  # type: ignore[call-overload]
        leads = _read(src, "leads", DATETIME=DAY_BEFORE)
        assert [x["id"] for x in leads] == ["L-old"]
    finally:
        pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": None})


def test_page_links_say_their_media_type(served: Service) -> None:
    for layer in ("leads", "vessels", "zones"):
        r = httpx.get(f"{served.base}/collections/{layer}/items?limit=1&offset=1", headers=BEARER)
        links = {link["rel"]: link for link in r.json()["links"]}
        assert {"self", "next", "prev"} <= set(links), layer
        for rel in ("self", "next", "prev"):
            assert links[rel]["type"] == "application/geo+json", (layer, rel)
            # the link answers with the type it says
            follow = httpx.get(links[rel]["href"], headers=BEARER)
            assert follow.headers["content-type"].startswith(links[rel]["type"])
    plain = httpx.get(f"{served.base}/leads?limit=1&offset=1", headers=BEARER).json()
    # an offset page also links its first page (issue 39: the next link is a cursor)
    assert {x["rel"]: x["type"] for x in plain["links"]} == {
        "self": "application/json",
        "first": "application/json",
        "next": "application/json",
        "prev": "application/json",
    }


def test_owslib_reads_queryables(served: Service) -> None:
    features = pytest.importorskip("owslib.ogcapi.features")
    from jsonschema import Draft202012Validator

    api = features.Features(served.base, headers=BEARER)
    leads = api.collection_queryables("leads")
    Draft202012Validator.check_schema(leads)  # a JSON Schema, by an outside validator
    props = leads["properties"]
    assert "SAR-DISTRESS" in props["rule"]["enum"] and "dismissed" in props["status"]["enum"]
    assert props["geometry"]["x-ogc-role"] == "primary-geometry"
    # what the schema says matches what it filters: a valid value passes, others do not
    schema = Draft202012Validator({**leads, "additionalProperties": True})
    assert schema.is_valid({"rule": "SAR-DISTRESS", "status": "new"})
    assert not schema.is_valid({"rule": "NOPE"})
    vessels = api.collection_queryables("vessels")
    assert vessels["properties"]["t"]["x-ogc-role"] == "primary-instant"
    assert api.collection_queryables("zones")["properties"]["valid_from"]["format"] == ("date-time")


def test_every_queryable_is_usable_in_a_filter(served: Service) -> None:
    for layer in ("zones", "leads", "vessels"):
        meta = httpx.get(f"{served.base}/collections/{layer}", headers=BEARER).json()
        link = next(x for x in meta["links"] if x["rel"].endswith("/rel/ogc/1.0/queryables"))
        assert link["type"] == "application/schema+json"
        r = httpx.get(link["href"], headers=BEARER)
        assert r.headers["content-type"].startswith("application/schema+json")
        doc = r.json()
        assert doc["$id"] == link["href"]
        for name, prop in doc["properties"].items():
            cql = (
                f"S_INTERSECTS({name}, BBOX(-50, -30, -30, -10))"
                if prop.get("x-ogc-role") == "primary-geometry"
                else f"{name} IS NOT NULL"
            )
            items = httpx.get(
                f"{served.base}/collections/{layer}/items", params={"filter": cql}, headers=BEARER
            )
            assert items.status_code == 200, (layer, name, items.text)
        unknown = httpx.get(
            f"{served.base}/collections/{layer}/items",
            params={"filter": "colour = 'red'"},
            headers=BEARER,
        )
        assert unknown.status_code == 400 and "colour" in unknown.json()["detail"]
    missing = httpx.get(f"{served.base}/collections/ships/queryables", headers=BEARER)
    assert missing.status_code == 404


#: between L-old's start (T0 - 86_400) and its end (T0 - 80_000): L-old overlaps it but
#: started before it, so `started_at >= SINCE` is L-campos and L-sar only
SINCE = T0 - 82_000
STARTED_SINCE = {"L-campos", "L-sar"}


def _header_file(tmp_path: Path) -> str:
    """A GDAL_HTTP_HEADER_FILE carrying the admin key as a bearer token."""
    path = tmp_path / "headers.txt"
    path.write_text(f"Authorization: Bearer {ADMIN_KEY}\n")
    return str(path)


def test_gdal_where_on_started_at_runs_on_the_server(served: Service, tmp_path: Path) -> None:
    pyogrio = pytest.importorskip("pyogrio")
    src = f"OAPIF:{served.base}"
    # the driver (3.12) sends these as `filter=...&filter-lang=cql-text`
    pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": _header_file(tmp_path)})
    try:
        since = _read(src, "leads", where=f"started_at >= '{_iso(SINCE)}'")
        assert {x["id"] for x in since} == STARTED_SINCE
        at = _read(src, "leads", where=f"started_at >= '{_iso(T0)}' AND rule = 'SAR-DISTRESS'")
        assert [x["id"] for x in at] == ["L-sar"]
        before = _read(src, "leads", where=f"started_at < '{_iso(T0)}'")
        assert [x["id"] for x in before] == ["L-old"]
    finally:
        pyogrio.set_gdal_config_options({"GDAL_HTTP_HEADER_FILE": None})


def test_ogrinfo_where_on_started_at(served: Service, tmp_path: Path) -> None:
    # a machine prerequisite scripts/setup.sh installs: missing, the test fails loudly
    ogrinfo = shutil.which("ogrinfo")
    assert ogrinfo is not None, "no ogrinfo: bash scripts/setup.sh installs gdal-bin"
    where = f"started_at >= '{_iso(SINCE)}'"
    out = subprocess.run(
        [ogrinfo, "-ro", "-q", f"OAPIF:{served.base}", "leads", "-where", where],
        env={**os.environ, "GDAL_HTTP_HEADER_FILE": _header_file(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = set(re.findall(r"^\s*id \(String\) = (\S+)$", out, re.MULTILINE))
    assert found == STARTED_SINCE, out[-2000:]


def test_owslib_filters_in_cql2_text_and_json(served: Service) -> None:
    features = pytest.importorskip("owslib.ogcapi.features")
    api = features.Features(served.base, headers=BEARER)
    text = api.collection_items("leads", filter=f"started_at >= TIMESTAMP('{_iso(SINCE)}')")
    assert {f["id"] for f in text["features"]} == STARTED_SINCE
    cql = {"op": "and", "args": [
        {"op": "s_intersects", "args": [{"property": "geometry"},
                                        {"bbox": [-44.0, -24.0, -43.0, -22.0]}]},
        {"op": ">=", "args": [{"property": "started_at"}, {"timestamp": _iso(SINCE)}]},
    ]}  # fmt: skip
    as_json = api.collection_items("leads", filter=json.dumps(cql), **{"filter-lang": "cql2-json"})
    assert [f["id"] for f in as_json["features"]] == ["L-sar"]
    named = api.collection_items("vessels", filter="name LIKE 'MARIA%'")
    assert [f["id"] for f in named["features"]] == [710_000_001]


def test_401_names_a_standard_scheme(served: Service) -> None:
    for path in ("/collections/leads/items", "/collections/vessels/queryables", "/api"):
        r = httpx.get(f"{served.base}{path}")
        assert r.status_code == 401
        assert r.headers["www-authenticate"].split()[0] == "Bearer"
        # ...and that scheme is honoured
        assert httpx.get(f"{served.base}{path}", headers=BEARER).status_code == 200
