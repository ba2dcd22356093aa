"""The map's vessel layer refreshes by deltas (issue 39): after the whole layer, each
refresh asks for the vessels that moved since its last answer, gets only those, and the
map draws them where they now are, the others where they were."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import unquote

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched

pytestmark = pytest.mark.slow

FLEET = [710_400_000 + k for k in range(40)]
MOVER = FLEET[7]
FAR = 710_499_999


def _lines(mmsi: int, lon: float, lat: float, t: float) -> list[str]:
    fixes = aisgen.hold(lon, lat, t0=t, dt_s=10, n=1)
    return [s for _, s in aisgen.lines_for(mmsi, fixes)]


def _drawn_at(page: Any, mmsi: int) -> list[list[float]]:
    """Where MapLibre's source holds the vessel (what the map draws, once per tile that
    holds it), not the page's own row."""
    got = page.evaluate(
        """(m) => window.__vigia.map.map.querySourceFeatures('vessels',
               {filter: ['==', ['get', 'mmsi'], m]}).map(f => f.geometry.coordinates)""",
        mmsi,
    )
    return [[float(x) for x in c] for c in got]


def _at(points: list[list[float]], lon: float) -> bool:
    # zoom 10 tiles hold coordinates to about 4e-5 degree
    return bool(points) and all(abs(p[0] - lon) < 2e-4 for p in points)


def test_the_map_refreshes_by_deltas_and_draws_the_moved_vessel(
    service: Service, watched: Watched
) -> None:
    assert service.feed is not None
    # the demo traffic's rows changed more than a delta's 5 s overlap before the fleet's
    time.sleep(6)
    t0 = time.time() - 60
    # a second apart, as a real fleet's fixes mostly are
    lines = [ln for k, m in enumerate(FLEET) for ln in _lines(m, -43.3 + k * 0.01, -23.2, t0 + k)]
    # and one off Fortaleza, 2,000 km away: never around a view of Rio
    service.feed.send([*lines, *_lines(FAR, -38.4, -3.6, t0)])
    end = time.monotonic() + 30
    while not {*FLEET, FAR} <= {r[0] for r in service.get("/map/vessels")["vessels"]}:
        assert time.monotonic() < end, "the fleet was never stored"
        time.sleep(0.2)
    page = watched.page
    answers: list[tuple[str, list[int], str | None]] = []

    def seen(resp: Any) -> None:
        if "/map/vessels" in resp.url:
            doc = resp.json()
            got = [int(r[0]) for r in doc["vessels"]]
            answers.append((resp.url, got, resp.headers.get("content-encoding")))

    page.on("response", seen)
    watched.sign_in(service, "viewer")
    page.evaluate("window.__vigia.vesselRefreshMs = 500")
    # the service's other vessels (the demo traffic) are drawn too
    everyone = len(service.get("/map/vessels")["vessels"])
    page.wait_for_function(f"window.__vigia.map.vesselCount === {everyone}", timeout=20_000)
    # zoom 10 over the fleet: every vessel of it in view, coordinates to 4e-5 degree
    page.evaluate("window.__vigia.map.map.jumpTo({center: [-43.1, -23.2], zoom: 10})")
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    was = -43.3 + 7 * 0.01
    assert _at(_drawn_at(page, MOVER), was)
    # the whole layer first, compressed; then deltas: nothing of the demo traffic, only
    # the fleet's rows still within the 5 s overlap of the newest change
    page.wait_for_timeout(5000)
    assert "since=" not in answers[0][0] and len(answers[0][1]) == everyone
    assert answers[0][2] == "gzip"
    quiet = [got for url, got, _ in answers[1:] if "since=" in url]
    assert quiet and all(set(got) <= {*FLEET, FAR} for got in quiet), answers
    # one vessel moves 0.1 degree east, its fix OLDER than the fleet's newest (heard
    # late): its row changed, so a delta holds it and the map draws it there
    service.feed.send(_lines(MOVER, was + 0.1, -23.2, t0 + 30))
    page.wait_for_function(f"window.__vigia.map.vesselRows.get({MOVER})[1] > -43.2", timeout=20_000)
    end = time.monotonic() + 10
    while not _at(now := _drawn_at(page, MOVER), was + 0.1):  # and nowhere else
        assert time.monotonic() < end, now
        page.wait_for_timeout(200)  # not time.sleep: Playwright delivers events meanwhile
    # once the overlap has passed, a delta is that one vessel and nothing else
    end = time.monotonic() + 15
    while [MOVER] not in [got for url, got, _ in answers if "since=" in url]:
        assert time.monotonic() < end, answers[-5:]
        page.wait_for_timeout(200)
    # the others stay drawn where they were
    assert _at(_drawn_at(page, FLEET[3]), -43.3 + 3 * 0.01)
    # zoomed in to 10, the page asks for the vessels around the view only: its layer
    # is what the API answers for that box, each vessel once
    boxed = [url for url, _, _ in answers if "bbox=" in url and "since=" not in url]
    assert boxed, [u for u, _, _ in answers]
    box = [float(x) for x in unquote(boxed[-1].split("bbox=")[1].split("&")[0]).split(",")]
    view = page.evaluate("window.__vigia.map.map.getBounds().toArray().flat()")
    assert box[0] < view[0] < view[2] < box[2] and box[1] < view[1] < view[3] < box[3]
    inside = service.get("/map/vessels?bbox=" + ",".join(map(str, box)))["vessels"]
    assert page.evaluate("window.__vigia.map.vesselCount") == len(inside) < everyone
    assert FAR not in {r[0] for r in inside} and set(FLEET) <= {r[0] for r in inside}
    # zoomed out again, the whole coast comes back
    page.evaluate("window.__vigia.map.map.jumpTo({center: [-43.1, -23.2], zoom: 5})")
    page.wait_for_function(f"window.__vigia.map.vesselCount === {everyone}", timeout=20_000)
    assert not watched.errors
