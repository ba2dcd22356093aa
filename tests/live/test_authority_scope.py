"""One authority sees and changes only its own data, on every route of the API (issue 21).

Every operation of the served OpenAPI document must be classified in ``ROUTES`` (a new
route makes this test fail until someone says what it exposes). Two Capitanias then each
get a viewer and an inspector key, leads with a party's CPF entered by their own
inspector, a silence, a watch-list entry and a ballast audit; every route is called
with one authority's keys and the other's ids, and neither may see or change the
other's data: not in lists, not one by one, not in the OGC collection or its extent,
not in the event stream (replayed and live), not through a silence or the watch-list.

It runs the real ``vigia serve`` (the event stream never ends, so it needs a socket) on
each store.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.live.service import ADMIN_KEY, Service, SseClient
from tests.storage.builders import T0, lead
from vigia.alerts.lead import EvidencePoint
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

pytestmark = [pytest.mark.slow, pytest.mark.postgis]

RJ, SP = "CP-TESTE-Macaé", "CP-TESTE-Santos"
#: each jurisdiction zone is a square of this half-side (degrees) around its centre;
#: real waters off Macaé and Santos
CENTRE = {RJ: (-40.05, -22.37), SP: (-46.30, -24.05)}
HALF = 0.2
SHARED_MMSI = 710_000_021  # one vessel with leads in both jurisdictions
ALONE_MMSI = {RJ: 710_000_031, SP: 710_000_032}

# What each operation shows a key limited to one authority:
PUBLIC = "public"  # no authority's data (zones, vessels, ballast lines, counters...)
ADMIN = "admin"  # admin only; an admin key is never limited to one authority
ONE_LEAD = "one-lead"  # one lead by id: another authority's is 404
LEAD_LIST = "lead-list"  # leads of the caller's authority only
SILENCES = "silences"  # the caller's authority's silences only
WATCHLIST = "watchlist"  # the caller's authority's entries only
EXTENT = "extent"  # OGC collection metadata: the leads' extent covers only its own
AUDIT = "audit"  # a ballast audit by id: another authority's is 404
STREAM = "stream"  # the event stream: its own leads' events only
WRITE = "write"  # a change: checked one by one in _writes

ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/healthz"): PUBLIC,
    ("GET", "/readyz"): PUBLIC,
    ("GET", "/metrics"): PUBLIC,  # counts by rule, never a lead's data
    ("GET", "/collections/zones/items"): PUBLIC,
    ("POST", "/collections/zones/items"): ADMIN,
    ("GET", "/collections/zones/items/{zone_id}"): PUBLIC,
    ("PUT", "/collections/zones/items/{zone_id}"): ADMIN,
    ("DELETE", "/collections/zones/items/{zone_id}"): ADMIN,
    ("POST", "/zones/imports"): ADMIN,  # zones are no authority's (issue 40)
    # draft zones and their backtests (issue 36): admin only, like the zones
    ("POST", "/drafts"): ADMIN,
    ("GET", "/drafts"): ADMIN,
    ("GET", "/drafts/{draft_id}"): ADMIN,
    ("PUT", "/drafts/{draft_id}"): ADMIN,
    ("DELETE", "/drafts/{draft_id}"): ADMIN,
    ("GET", "/drafts/{draft_id}/map"): ADMIN,
    ("POST", "/drafts/{draft_id}/publish"): ADMIN,
    ("POST", "/drafts/{draft_id}/backtests"): ADMIN,
    ("GET", "/drafts/zones/{zone_id}/history"): ADMIN,
    ("PUT", "/zone-budgets/{zone_id}"): ADMIN,
    ("GET", "/backtests/{job_id}"): ADMIN,
    ("GET", "/backtests/{job_id}/events"): ADMIN,
    ("GET", "/backtests/{job_id}/leads.geojson"): ADMIN,
    ("GET", "/backtests/{job_id}/leads.csv"): ADMIN,
    ("GET", "/vessels"): PUBLIC,
    ("GET", "/vessels/{mmsi}"): PUBLIC,
    ("GET", "/vessels/{mmsi}/track"): PUBLIC,
    ("GET", "/vessels/{mmsi}/port-visits"): PUBLIC,  # from the vessel's AIS (issue 33)
    # the MMSI's form and static data are public; its ID-* lead history is read in the
    # caller's scope (issue 34)
    ("GET", "/vessels/{mmsi}/identity"): PUBLIC,
    # the officers a lead can be assigned to: the caller's authority's keys only (issue 35)
    ("GET", "/officers"): PUBLIC,
    ("PUT", "/leads/{lead_id}/assignment"): WRITE,
    ("GET", "/ingest/counters"): PUBLIC,
    ("GET", "/leads/stream"): STREAM,
    # a token for the caller's own stream, which it opens scoped as the key that asked
    ("POST", "/leads/stream/token"): PUBLIC,
    ("GET", "/leads"): LEAD_LIST,
    ("GET", "/leads/{lead_id}"): ONE_LEAD,
    ("PATCH", "/leads/{lead_id}"): WRITE,
    ("GET", "/leads/{lead_id}/evidence"): ONE_LEAD,
    ("POST", "/silences"): WRITE,
    ("GET", "/silences"): SILENCES,
    ("POST", "/watchlist"): WRITE,
    ("GET", "/watchlist"): WATCHLIST,
    ("DELETE", "/watchlist/{entry_id}"): WRITE,
    ("GET", "/"): PUBLIC,
    ("GET", "/api"): PUBLIC,
    ("GET", "/conformance"): PUBLIC,
    ("GET", "/collections"): EXTENT,
    ("GET", "/collections/{layer}"): EXTENT,
    ("GET", "/collections/leads/items"): LEAD_LIST,
    ("GET", "/collections/leads/items/{lead_id}"): ONE_LEAD,
    ("GET", "/collections/vessels/items"): PUBLIC,
    ("GET", "/collections/{layer}/queryables"): PUBLIC,  # a JSON Schema, no data
    ("GET", "/collections/vessels/items/{mmsi}"): PUBLIC,
    ("GET", "/apikeys"): ADMIN,
    ("POST", "/apikeys"): ADMIN,
    ("DELETE", "/apikeys/{key_id}"): ADMIN,
    ("GET", "/authorised-vessels"): PUBLIC,  # the national register (0212 f))
    ("POST", "/authorised-vessels"): ADMIN,
    ("POST", "/authorised-vessels/import"): ADMIN,
    ("DELETE", "/authorised-vessels/{entry_id}"): ADMIN,
    ("GET", "/state-vessels"): PUBLIC,  # the national register of state vessels (issue 34)
    ("POST", "/state-vessels"): ADMIN,
    ("POST", "/state-vessels/import"): ADMIN,
    ("DELETE", "/state-vessels/{entry_id}"): ADMIN,
    ("GET", "/ballast/lines"): PUBLIC,
    ("POST", "/ballast/assess"): PUBLIC,
    ("POST", "/ballast/audits"): WRITE,
    ("GET", "/ballast/audits/{audit_id}"): AUDIT,
    ("GET", "/ballast/screening/{mmsi}"): PUBLIC,  # from the vessel's AIS track
    ("GET", "/ballast/arrivals"): PUBLIC,
    ("GET", "/leads/{lead_id}/documents/{kind}.pdf"): ONE_LEAD,
    ("GET", "/map/land"): PUBLIC,
    ("GET", "/map/zones"): PUBLIC,
    ("GET", "/map/labels"): PUBLIC,
    ("GET", "/map/vessels"): PUBLIC,
    ("GET", "/me"): PUBLIC,
    ("POST", "/webhooks"): ADMIN,
    ("GET", "/webhooks"): ADMIN,
    ("GET", "/webhooks/{webhook_id}"): ADMIN,
    ("PATCH", "/webhooks/{webhook_id}"): ADMIN,
    ("DELETE", "/webhooks/{webhook_id}"): ADMIN,
    ("POST", "/webhooks/{webhook_id}/replay"): ADMIN,
    ("GET", "/webhooks/{webhook_id}/deliveries"): ADMIN,
}
#: a body for the public POST routes (each answers from its body alone)
PUBLIC_BODIES = {"/ballast/assess": {"points": [{"lat": -24.05, "lon": -46.3}]}}


@dataclass
class Side:
    """One authority's keys and data, and the strings that must never reach the other."""

    name: str
    tag: str
    viewer: dict[str, str] = field(default_factory=dict)
    inspector: dict[str, str] = field(default_factory=dict)
    leads: list[str] = field(default_factory=list)
    cpf: str = ""
    watch_id: int = 0
    audit_id: str = ""

    @property
    def secrets(self) -> list[str]:
        """What only this authority's keys may read."""
        return [
            *self.leads,
            self.cpf,
            f"silence-secret-{self.tag}",
            f"watch-secret-{self.tag}",
            f"CERT-SECRET-{self.tag}",
            self.audit_id,
        ]

    def both_keys(self) -> list[dict[str, str]]:
        return [self.viewer, self.inspector]


def _zone(side: Side) -> dict[str, Any]:
    lon, lat = CENTRE[side.name]
    ring = [[lon - HALF, lat - HALF], [lon + HALF, lat - HALF], [lon + HALF, lat + HALF],
            [lon - HALF, lat + HALF], [lon - HALF, lat - HALF]]  # fmt: skip
    return {
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [ring]},
        "properties": {"id": f"jur-test-{side.tag}", "kind": "jurisdiction",
                       "authority": side.name, "seat_state": "RJ" if side.name == RJ else "SP"},
    }  # fmt: skip


def _lead(side: Side, suffix: str, mmsi: int, offset_s: float) -> Any:
    lon, lat = CENTRE[side.name]
    t = T0 + offset_s
    return lead(
        f"L-{side.tag}-{suffix}",
        mmsi=mmsi,
        started_at=t,
        ended_at=t + 60,
        closest_lon=lon,
        closest_lat=lat,
        closest_t=t + 60,
        evidence=[
            EvidencePoint(t, lon - 0.01, lat, 8.5, 90.0, 0, 300.0),
            EvidencePoint(t + 60, lon, lat, 8.0, 91.0, 0, 120.0),
        ],
        authority=None,  # routed by the jurisdiction zone it lies in
    )


def _key(c: httpx.Client, role: str, side: Side) -> dict[str, str]:
    body = {"role": role, "name": f"{role}-{side.tag}", "authority": side.name}
    r = c.post("/apikeys", json=body, headers={"X-API-Key": ADMIN_KEY})
    assert r.status_code == 201, r.text
    return {"X-API-Key": r.json()["key"]}


def _seed(c: httpx.Client, store: SqlRepository, side: Side, silenced_mmsi: int) -> None:
    """Keys, two leads, a party's CPF, a silence, a watch-list entry and an audit."""
    side.viewer, side.inspector = _key(c, "viewer", side), _key(c, "inspector", side)
    news = [_lead(side, "a", SHARED_MMSI, 0.0), _lead(side, "b", ALONE_MMSI[side.name], 600.0)]
    store.upsert_leads(news)
    side.leads = [x.id for x in news]
    side.cpf = "111.444.777-35" if side.name == RJ else "529.982.247-25"
    party = {"role": "proprietario", "name": f"Dono {side.tag}", "document": side.cpf}
    body = {"status": "triaged", "responsible": [party]}
    r = c.patch(f"/leads/{side.leads[0]}", json=body, headers=side.inspector)
    assert r.status_code == 200 and r.json()["authority"] == side.name, r.text
    silence = {"mmsi": silenced_mmsi, "until": "2099-01-01T00:00:00Z",
               "reason": f"silence-secret-{side.tag}"}  # fmt: skip
    r = c.post("/silences", json=silence, headers=side.inspector)
    assert r.status_code == 201 and r.json()["authority"] == side.name, r.text
    lon, lat = CENTRE[side.name]
    watch = {"mmsi": ALONE_MMSI[side.name], "lon": lon, "lat": lat,
             "reason": f"watch-secret-{side.tag}"}  # fmt: skip
    r = c.post("/watchlist", json=watch, headers=side.inspector)
    assert r.status_code == 201 and r.json()["authority"] == side.name, r.text
    side.watch_id = r.json()["id"]
    audit = {
        "mmsi": 636_012_345,
        "exchanges": [{"start": {"time": "2025-05-01T02:00:00Z", "lat": -27.2, "lon": -37.6},
                       "end": {"time": "2025-05-01T08:00:00Z", "lat": -26.9, "lon": -38.4}}],
        "track": [{"t": "2025-05-01T02:00:00Z", "lat": -27.2, "lon": -37.6, "sog": 10.0},
                  {"t": "2025-05-01T08:00:00Z", "lat": -26.9, "lon": -38.4, "sog": 10.0}],
        "certificate_number": f"CERT-SECRET-{side.tag}",
    }  # fmt: skip
    r = c.post("/ballast/audits", json=audit, headers=side.inspector, timeout=120)
    assert r.status_code == 201, r.text
    side.audit_id = r.json()["id"]


def _url(template: str, me: Side, of: Side) -> str:
    """``template`` with ``of``'s ids (``me`` only matters for ids that are not data)."""
    ids = {
        "lead_id": of.leads[0],
        "entry_id": str(of.watch_id),
        "audit_id": of.audit_id,
        "mmsi": str(SHARED_MMSI),
        "zone_id": f"jur-test-{of.tag}",
        "layer": "leads",
        "kind": "notice",
        "key_id": "1",
        "webhook_id": "1",
        "draft_id": "1",  # drafts and backtests are admin-only: no authority's data
        "job_id": "1",
    }
    return re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], template)


def _leaks(text: str, other: Side, sent: str = "") -> list[str]:
    """``other``'s secrets in ``text``, but for those the caller itself sent (a 404 may
    echo the id asked for)."""
    return [s for s in other.secrets if s and s in text and s not in sent]


def _reads(c: httpx.Client, method: str, template: str, kind: str, me: Side, other: Side) -> None:
    """A read with ``me``'s keys: never ``other``'s data; ``me``'s own where it belongs."""
    for key in me.both_keys():
        url = _url(template, me, other)
        theirs = c.request(method, url, headers=key, json=PUBLIC_BODIES.get(template))
        where = (method, template, me.tag, theirs.status_code)
        assert theirs.status_code < 500, (*where, theirs.text)
        assert not _leaks(theirs.text, other, url), (*where, _leaks(theirs.text, other, url))
        if kind == ADMIN:
            assert theirs.status_code == 403, where
        elif kind in (ONE_LEAD, AUDIT):
            assert theirs.status_code == (403 if key is me.viewer and
                                          template.endswith(".pdf") else 404), where  # fmt: skip
        if kind not in (ONE_LEAD, AUDIT, LEAD_LIST, SILENCES, WATCHLIST, EXTENT):
            continue
        mine = c.request(method, _url(template, me, me), headers=key)
        if template.endswith(".pdf") and key is me.viewer:
            assert mine.status_code == 403  # an inspector's route
            continue
        assert mine.status_code == 200, (method, template, me.tag, mine.text)
        if kind == EXTENT:
            _check_extent(mine.json(), me)
        elif template.endswith(".pdf"):
            assert mine.content.startswith(b"%PDF")
        else:
            expected = {
                ONE_LEAD: me.leads[0], AUDIT: me.audit_id, LEAD_LIST: me.leads[1],
                SILENCES: f"silence-secret-{me.tag}", WATCHLIST: f"watch-secret-{me.tag}",
            }[kind]  # fmt: skip
            assert expected in mine.text, (method, template, me.tag)


def _check_extent(body: dict[str, Any], me: Side) -> None:
    """The leads collection's extent lies inside ``me``'s jurisdiction: the other's
    leads, hundreds of kilometres away, are not in it."""
    found = body.get("collections", [body])
    leads = next(x for x in found if x["id"] == "leads")
    lon0, lat0, lon1, lat1 = leads["extent"]["spatial"]["bbox"][0]
    lon, lat = CENTRE[me.name]
    assert lon - HALF <= lon0 <= lon1 <= lon + HALF, (me.tag, leads["extent"])
    assert lat - HALF <= lat0 <= lat1 <= lat + HALF, (me.tag, leads["extent"])


def _writes(c: httpx.Client, me: Side, other: Side) -> None:
    """Every write route: ``me``'s inspector cannot change ``other``'s data."""
    admin = {"X-API-Key": ADMIN_KEY}
    before = c.get(f"/leads/{other.leads[0]}", headers=admin).json()
    r = c.patch(f"/leads/{other.leads[0]}", json={"seat_municipality": "X"}, headers=me.inspector)
    assert r.status_code == 404
    r = c.patch(f"/leads/{other.leads[1]}", json={"status": "dismissed", "reason": "x"},
                headers=me.inspector)  # fmt: skip
    assert r.status_code == 404
    r = c.put(f"/leads/{other.leads[0]}/assignment", json={"officer": None},
              headers=me.inspector)  # fmt: skip
    assert r.status_code == 404  # another authority's lead cannot be assigned
    after = c.get(f"/leads/{other.leads[0]}", headers=admin).json()
    assert after["procedure"] == before["procedure"] and after["history"] == before["history"]

    r = c.delete(f"/watchlist/{other.watch_id}", headers=me.inspector)
    assert r.status_code == 404
    entries = c.get("/watchlist", headers=admin).json()["watchlist"]
    assert next(w for w in entries if w["id"] == other.watch_id)["active"] is True
    lon, lat = CENTRE[other.name]
    body = {"mmsi": 710_000_041, "lon": lon, "lat": lat, "reason": "for the other",
            "authority": other.name}  # fmt: skip
    assert c.post("/watchlist", json=body, headers=me.inspector).status_code == 403
    # the audit route writes only as its caller: checked by reading it back (AUDIT)
    assert c.get(f"/ballast/audits/{me.audit_id}", headers=me.viewer).status_code == 200


def _check_silences(c: httpx.Client, store: SqlRepository, sides: list[Side]) -> None:
    """RJ silenced the shared vessel, SP another: a new episode of the shared vessel is
    silenced in RJ and raised in SP (before issue 21, RJ's silence hid SP's lead)."""
    admin = {"X-API-Key": ADMIN_KEY}
    late = [_lead(s, "late", SHARED_MMSI, 7200.0) for s in sides]
    store.upsert_leads(late)
    silenced = {x.id: c.get(f"/leads/{x.id}", headers=admin).json()["silenced"] for x in late}
    assert silenced == {"L-rj-late": True, "L-sp-late": False}


def _check_stream(base: str, store: SqlRepository, sides: list[Side]) -> None:
    """Replayed from the first event and live: each key gets exactly the events of its
    own authority's leads, as the unlimited stream shows them."""
    everything = SseClient(f"{base}/leads/stream", last_id="0")
    clients = {s.tag: SseClient(f"{base}/leads/stream", s.viewer["X-API-Key"], "0") for s in sides}
    try:
        for client in (everything, *clients.values()):
            assert client.connected.wait(20) and client.error is None
        head = store.last_event_id()
        deadline = time.monotonic() + 30
        while (not everything.events or int(everything.events[-1][0]) < head) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.05)
        live = [_lead(s, "live", ALONE_MMSI[s.name], 9000.0) for s in sides]
        store.upsert_leads(live)
        all_events = everything.wait_for(len(everything.events) + len(live))
        assert {d["id"] for _, _, d in all_events} >= {x.id for x in live}
        for side in sides:
            # the oracle: the unlimited stream's events, filtered here by the lead JSON
            expected = [(i, k) for i, k, d in all_events if d["authority"] == side.name]
            assert len(expected) >= 4  # opened x3, status (with the CPF), live
            got = clients[side.tag].wait_for(len(expected))
            time.sleep(0.5)  # anything more would be a leak
            got = list(clients[side.tag].events)
            assert [(i, k) for i, k, _ in got] == expected, side.tag
            other = next(s for s in sides if s is not side)
            text = repr([d for _, _, d in got])
            assert not _leaks(text, other), _leaks(text, other)
            assert side.cpf in text  # the lead.status event carries its own party
    finally:
        for client in (everything, *clients.values()):
            client.close()
    for side in sides:
        other = next(s for s in sides if s is not side)
        r = httpx.get(f"{base}/leads/stream", params={"authority": other.name},
                      headers=side.viewer, timeout=10)  # fmt: skip
        assert r.status_code == 403, r.text


def test_one_authority_sees_and_changes_only_its_own_on_every_route(
    store_url: str, tmp_path: Path
) -> None:
    store = open_repository(store_url)
    assert isinstance(store, SqlRepository)
    store.migrate()
    svc = Service(tmp_path, store_url).start()
    rj, sp = Side(RJ, "rj"), Side(SP, "sp")
    try:
        with httpx.Client(base_url=svc.base, timeout=30) as c:
            admin = {"X-API-Key": ADMIN_KEY}
            zones = {"type": "FeatureCollection", "features": [_zone(rj), _zone(sp)]}
            assert c.post("/collections/zones/items", json=zones, headers=admin).is_success
            _seed(c, store, rj, SHARED_MMSI)
            _seed(c, store, sp, 710_000_099)

            doc = c.get("/openapi.json", headers=admin).json()
            ops = {
                (method.upper(), template)
                for template, item in doc["paths"].items()
                for method in item
                if method in ("get", "post", "put", "patch", "delete")
            }
            assert not ops - ROUTES.keys(), f"classify these routes: {sorted(ops - ROUTES.keys())}"
            assert not ROUTES.keys() - ops, f"gone: {sorted(ROUTES.keys() - ops)}"
            for me, other in ((rj, sp), (sp, rj)):
                for (method, template), kind in sorted(ROUTES.items()):
                    if kind in (STREAM, WRITE):
                        continue
                    if method != "GET" and kind == PUBLIC and template not in PUBLIC_BODIES:
                        continue
                    _reads(c, method, template, kind, me, other)
                _writes(c, me, other)
            for side in (rj, sp):
                other = sp if side is rj else rj
                r = c.get("/leads", params={"authority": other.name}, headers=side.viewer)
                assert r.status_code == 403
            _check_silences(c, store, [rj, sp])
        _check_stream(svc.base, store, [rj, sp])
    finally:
        svc.stop()
        store.close()
