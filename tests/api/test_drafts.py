"""Draft zones over the API (issue 36), on both stores: a draft is not live; its
backtest runs as a job whose progress streams as SSE; a lead budget exceeded by the
backtest holds publication back until a reason is given, kept in the history."""

from __future__ import annotations

import json
from typing import Any

from scripts.aisgen import fwd, run
from tests.api.conftest import Api
from vigia.ingest.records import Position

T = 1_764_028_800.0  # 2025-11-25 00:00 UTC
PLAT = (-40.0, -22.5)
DRAFT = {
    "type": "FeatureCollection",
    "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": list(PLAT)},
                  "properties": {"id": "plat-draft", "kind": "platform", "name": "P-D"}}],
}  # fmt: skip


def _crossing(mmsi: int, t0: float, offset_m: float) -> list[Position]:
    """An hour at 10 kn northwards, passing ``offset_m`` east of the platform."""
    lon, lat = fwd(*PLAT, 90.0, offset_m)
    lon, lat = fwd(lon, lat, 180.0, 5 * 1852.0)
    fixes = run(lon, lat, course=0.0, sog_kn=10.0, t0=t0, dt_s=60.0, n=60)
    return [Position(mmsi, f.t, 1, f.lon, f.lat, f.sog, f.cog, 0, 0, True) for f in fixes]


def _events(api: Api, job: int) -> list[tuple[str, dict[str, Any]]]:
    out = []
    with api.client.stream("GET", f"/backtests/{job}/events", headers=api.h("admin")) as r:
        assert r.status_code == 200
        event = ""
        for line in r.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                out.append((event, json.loads(line.split(":", 1)[1])))
    return out


def test_a_draft_is_tried_then_published_with_a_reason_over_its_budget(api: Api) -> None:
    admin = api.h("admin")
    # two vessels inside 500 m on the same day, a third at 800 m (outside)
    api.repo.add_positions(
        _crossing(710_200_001, T + 3600, 200.0)
        + _crossing(710_200_002, T + 7200, 450.0)
        + _crossing(710_200_003, T + 9000, 800.0)
    )
    assert api.client.get("/drafts", headers=api.h("viewer")).status_code == 403
    r = api.client.put("/zone-budgets/plat-draft", json={"leads_per_day": 1}, headers=admin)
    assert r.status_code == 200
    r = api.client.post("/drafts?name=new%20platform", json=DRAFT, headers=admin)
    assert r.status_code == 201, r.text
    draft = r.json()
    assert draft["state"] == "draft" and draft["history"][0]["action"] == "created"
    # not live
    assert api.client.get("/collections/zones/items/plat-draft", headers=admin).status_code == 404
    publish = f"/drafts/{draft['id']}/publish"
    r = api.client.post(publish, json={}, headers=admin)
    assert r.status_code == 409 and r.json()["reason"] == "draft-untried"  # untried
    # drawn as the map draws the zones in force: the platform and its 500 m ring
    drawn = api.client.get(f"/drafts/{draft['id']}/map", headers=admin)
    assert drawn.headers["content-type"].startswith("application/geo+json")
    roles = {(f["properties"]["role"], f["geometry"]["type"]) for f in drawn.json()["features"]}
    assert roles == {("reference", "Point"), ("band", "Polygon")}
    assert {f["properties"]["width_m"] for f in drawn.json()["features"]} == {500.0}
    period = {"since": "2025-11-25T00:00:00Z", "until": "2025-11-26T00:00:00Z"}
    r = api.client.post(f"/drafts/{draft['id']}/backtests", json=period, headers=admin)
    assert r.status_code == 202
    job = r.json()["id"]
    events = _events(api, job)
    assert events[-1][0] == "done"
    assert all(e == "progress" for e, _ in events[:-1])
    report = events[-1][1]["report"]
    assert report["leads"] == 2 and report["per_day"] == {"2025-11-25": 2}
    assert report["difference"] == {"new": 2, "kept": 0, "gone": 0}
    assert report["most_in_a_day"] == {"plat-draft": 2}
    polled = api.client.get(f"/backtests/{job}", headers=admin).json()
    assert polled["state"] == "done" and polled["progress"] == 1.0
    geo = api.client.get(f"/backtests/{job}/leads.geojson", headers=admin).json()
    assert sorted(f["properties"]["mmsi"] for f in geo["features"]) == [710_200_001, 710_200_002]
    assert {f["properties"]["change"] for f in geo["features"]} == {"new"}
    csv = api.client.get(f"/backtests/{job}/leads.csv", headers=admin).text.splitlines()
    assert len(csv) == 3 and csv[0].startswith("id,change,mmsi")
    # 2 leads on its busiest day against a budget of 1: a reason is needed
    r = api.client.post(publish, json={}, headers=admin)
    assert r.status_code == 409 and "budget" in r.json()["detail"]
    # the refusal as a code with its figures, for the dashboard's own words
    assert r.json()["reason"] == "lead-budget-exceeded"
    assert r.json()["facts"] == {"zone": "plat-draft", "name": "P-D", "most_in_a_day": "2",
                                 "budget": "1", "count": "1", "zones": "P-D (2 > 1)"}  # fmt: skip
    r = api.client.post(publish, json={"reason": "new FPSO, traffic expected"}, headers=admin)
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "published"
    assert api.client.get("/collections/zones/items/plat-draft", headers=admin).status_code == 200
    hist = api.client.get("/drafts/zones/plat-draft/history", headers=admin).json()["history"]
    done = [h for h in hist if h["action"] == "published"]
    assert done[0]["reason"] == "new FPSO, traffic expected"
    assert done[0]["detail"]["over_budget"] == {"plat-draft": {"most_in_a_day": 2, "budget": 1}}
    # published: it can no longer change
    assert api.client.put(f"/drafts/{draft['id']}", json=DRAFT, headers=admin).status_code == 409


def test_at_the_budget_publication_needs_no_reason_and_an_edit_clears_the_backtest(
    api: Api,
) -> None:
    admin = api.h("admin")
    api.repo.add_positions(
        _crossing(710_200_001, T + 3600, 200.0) + _crossing(710_200_002, T + 7200, 450.0)
    )
    api.client.put("/zone-budgets/plat-draft", json={"leads_per_day": 2}, headers=admin)
    draft = api.client.post("/drafts", json=DRAFT, headers=admin).json()
    period = {"since": "2025-11-25T00:00:00Z", "until": "2025-11-26T00:00:00Z"}
    job = api.client.post(f"/drafts/{draft['id']}/backtests", json=period, headers=admin).json()
    assert _events(api, job["id"])[-1][0] == "done"
    # an edit: what was tried is no longer what would be published
    r = api.client.put(f"/drafts/{draft['id']}", json=DRAFT, headers=admin)
    assert r.status_code == 200 and r.json()["backtest"] is None
    assert api.client.post(f"/drafts/{draft['id']}/publish", headers=admin).status_code == 409
    job = api.client.post(f"/drafts/{draft['id']}/backtests", json=period, headers=admin).json()
    assert _events(api, job["id"])[-1][0] == "done"
    r = api.client.post(f"/drafts/{draft['id']}/publish", headers=admin)  # 2 a day, at 2
    assert r.status_code == 200 and r.json()["history"][-1]["reason"] is None
    r = api.client.put("/zone-budgets/x", json={"leads_per_day": -1}, headers=admin)
    assert r.status_code == 422
