"""GET /ballast/arrivals on the real app and both stores: who arrived from beyond 200 nm.

A ship that never left the coast is not listed at all: the list is the analyst's queue of
arrivals that must declare a ballast exchange, and screening a coastal hop would only
add noise (its own figures stay available at /ballast/screening/{mmsi}).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyproj import Geod

from tests.api.conftest import Api, make_settings, start
from vigia.ingest.records import Position, VesselInfo, iso_utc

T0 = 1714521600.0  # 2024-05-01T00:00:00Z
H = 3600.0
FOREIGN, LATE, COASTAL = 636012345, 538000111, 710000123
SANTOS = (-46.30, -24.05)  # the anchorage "anch-santos" of the test zone folder
_GEOD = Geod(ellps="WGS84")


def route(mmsi: int, t0: float, waypoints: list[tuple[float, float]]) -> list[Position]:
    """A ship at 14 kn between waypoints, a fix every 10 min, then 2 h at the last one."""
    out: list[Position] = []
    t = t0
    for (x0, y0), (x1, y1) in itertools.pairwise(waypoints):
        _, _, metres = _GEOD.inv(x0, y0, x1, y1)
        n = max(1, int(metres / (14 * 1852 / 3600) / 600))
        for i in range(n):
            f = i / n
            out.append(Position(mmsi, t, 1, x0 + f * (x1 - x0), y0 + f * (y1 - y0), 14.0, 270.0))
            t += 600
    for _ in range(12):
        out.append(Position(mmsi, t, 1, waypoints[-1][0], waypoints[-1][1], 0.0, 270.0))
        t += 600
    return out


# from 600 nm off Rio Grande do Sul, deep water all the way, to the Santos anchorage
OCEAN = [(-34.0, -30.0), SANTOS]
# Ilha Grande to Santos hugging the coast: never 50 nm from land
COAST = [(-44.2, -23.2), (-45.0, -23.65), SANTOS]


def arrival_time(track: list[Position]) -> float:
    """The first fix inside the anchorage square."""
    return next(
        p.t
        for p in track
        if p.lon is not None
        and p.lat is not None
        and abs(p.lon - SANTOS[0]) <= 0.03
        and abs(p.lat - SANTOS[1]) <= 0.03
    )


@pytest.fixture
def api(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app on each store with two ocean arrivals and a coastal one stored."""
    for a in start(make_settings(store_url, tmp_path)):
        a.repo.add_positions(route(FOREIGN, T0, OCEAN))
        a.repo.add_positions(route(LATE, T0 + 6 * H, OCEAN))
        a.repo.add_positions(route(COASTAL, T0 + 40 * H, COAST))
        a.repo.upsert_vessels([VesselInfo(FOREIGN, name="OCEAN TRADER", ship_type=70)])
        yield a


def window(lo: float, hi: float, **extra: object) -> dict[str, object]:
    """Query parameters for a time window."""
    return {"start": iso_utc(lo), "end": iso_utc(hi), **extra}


def test_ocean_arrivals_listed_newest_first_with_screening(api: Api) -> None:
    """Both ocean arrivals are listed (the later one first) with their a)/b)-water hours;
    the coastal ship that arrived at the same anchorage in the window is not."""
    first = arrival_time(route(FOREIGN, T0, OCEAN))
    second = arrival_time(route(LATE, T0 + 6 * H, OCEAN))
    assert arrival_time(route(COASTAL, T0 + 40 * H, COAST)) < second + 12 * H
    r = api.client.get(
        "/ballast/arrivals", params=window(T0 + 24 * H, T0 + 96 * H), headers=api.h("viewer")
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["candidates"] == 3  # the coastal ship was in the zone, screened, dropped
    assert body["numberMatched"] == body["numberReturned"] == 2
    late, foreign = body["arrivals"]
    assert (late["mmsi"], foreign["mmsi"]) == (LATE, FOREIGN)
    assert (late["arrived_at"], foreign["arrived_at"]) == (iso_utc(second), iso_utc(first))
    assert foreign["port_zone_id"] == "anch-santos"
    assert foreign["vessel"] == {"name": "OCEAN TRADER", "ship_type": 70, "flag_mid": 636}
    assert late["vessel"] == {"name": None, "ship_type": None, "flag_mid": 538}
    s = foreign["screening"]
    voyage_h = (first - T0) / H
    # out of ~50 h at sea, roughly the first 20-35 h are 200 nm out; b) water starts later
    assert 15 < s["a_water"]["total_hours"] < 40 < voyage_h
    assert s["a_water"]["total_hours"] + 3 < s["b_water"]["total_hours"] < voyage_h
    assert s["a_water"]["windows"][0]["start"] == iso_utc(T0)
    assert s["came_from_beyond_200nm"] and s["last_a_water"] is not None
    assert late["screening"]["a_water"]["total_hours"] == pytest.approx(
        s["a_water"]["total_hours"], abs=0.2
    )


def test_window_limit_and_lookback(api: Api) -> None:
    """limit keeps the newest; an arrival outside the window is not listed; the lookback
    bounds the track screened before the window."""
    first = arrival_time(route(FOREIGN, T0, OCEAN))
    v = api.h("viewer")
    r = api.client.get("/ballast/arrivals", params=window(T0, T0 + 96 * H, limit=1), headers=v)
    assert r.status_code == 200, r.text
    assert (r.json()["numberMatched"], r.json()["numberReturned"]) == (2, 1)
    assert r.json()["arrivals"][0]["mmsi"] == LATE
    r = api.client.get("/ballast/arrivals", params=window(T0, first + 60), headers=v)
    assert [a["mmsi"] for a in r.json()["arrivals"]] == [FOREIGN]
    r = api.client.get("/ballast/arrivals", params=window(first + 60, T0 + 96 * H), headers=v)
    assert [a["mmsi"] for a in r.json()["arrivals"]] == [LATE]
    # the last 200 nm fix is ~20 h before arrival: a 1-day lookback still sees the ship
    # come from beyond 200 nm, but screens only the ~3.5 h of a)-water inside that day
    lo = first - 60
    r = api.client.get(
        "/ballast/arrivals", params=window(lo, first + 60, lookback_days=1), headers=v
    )
    (only,) = r.json()["arrivals"]
    assert only["screening"]["from"] == iso_utc(first - 24 * H)  # first fix in the lookback
    assert 1 < only["screening"]["a_water"]["total_hours"] < 6


@pytest.mark.parametrize(
    "params",
    [
        window(T0 + 10 * H, T0),  # end before start
        window(T0, T0 + H, limit=0),
        window(T0, T0 + H, limit=501),
        window(T0, T0 + H, lookback_days=0),
        window(T0, T0 + H, lookback_days=91),
        window(T0, T0 + 40 * 24 * H),  # longer than 31 days
        {"start": "yesterday"},
    ],
)
def test_bad_params_are_problems(api: Api, params: dict[str, object]) -> None:
    """Impossible windows and out-of-range paging are 422 problem documents."""
    r = api.client.get("/ballast/arrivals", params=params, headers=api.h("viewer"))
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")


def test_needs_a_key(api: Api) -> None:
    """No key is a 401 problem document."""
    r = api.client.get("/ballast/arrivals", params=window(T0, T0 + 96 * H))
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")


def test_vessels_in_bbox(api: Api) -> None:
    """The store's candidate query: inclusive bbox and times, distinct, ascending, limited."""
    box = (SANTOS[0] - 0.03, SANTOS[1] - 0.03, SANTOS[0] + 0.03, SANTOS[1] + 0.03)
    assert api.repo.vessels_in_bbox(box, T0, T0 + 96 * H, 10) == [LATE, FOREIGN, COASTAL]
    assert api.repo.vessels_in_bbox(box, T0, T0 + 96 * H, 2) == [LATE, FOREIGN]
    first = arrival_time(route(FOREIGN, T0, OCEAN))
    assert api.repo.vessels_in_bbox(box, first, first, 10) == [FOREIGN]
    assert api.repo.vessels_in_bbox(box, T0, T0 + 10 * H, 10) == []
    assert api.repo.vessels_in_bbox((-34.0, -30.0, -34.0, -30.0), T0, T0, 10) == [FOREIGN]
