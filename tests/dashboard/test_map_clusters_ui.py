"""The map of a busy coast, zoomed out (issue 39): with more than 2,000 vessels in view
the page draws the service's clusters, each with its count, instead of every vessel; a
click on one zooms onto its vessels until they are drawn one by one. The open leads far
out are counted in clusters too, but a distress beacon is always drawn on its own."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched, demo_lines

pytestmark = pytest.mark.slow

FLEET = 2_600
BEACON = 970_123_457  # an AIS-SART off Copacabana, among the demo's leads


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Any:
    svc = Service(tmp_path_factory.mktemp("clusters")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(demo_lines())
        svc.wait_leads(5)
        rng, now = random.Random(39), time.time()
        # a busy stretch of sea from Santos to Vitória
        fleet = [
            aisgen.fast_type1(720_000_000 + k, now - 60, rng.uniform(-46.5, -40.0),
                              rng.uniform(-25.5, -21.0), 9.0, 45.0)
            for k in range(FLEET)
        ]  # fmt: skip
        svc.feed.send(fleet)
        beacon = aisgen.hold(-43.18, -22.99, t0=now - 120, dt_s=10, n=6, nav_status=14)
        svc.feed.send([s for _, s in aisgen.lines_for(BEACON, beacon)])
        svc.wait_leads(1, 60, mmsi=BEACON)
        end = time.monotonic() + 60
        while len(svc.get("/map/vessels")["vessels"]) < FLEET:
            assert time.monotonic() < end, "the fleet was never stored"
            time.sleep(0.3)
        yield svc
    finally:
        svc.stop()


def _click_at(page: Any, lon: float, lat: float) -> None:
    """A click on the map where (lon, lat) is drawn."""
    x, y = page.evaluate("(p) => Object.values(window.__vigia.map.map.project(p))", [lon, lat])
    box = page.locator("#map canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)


def test_a_busy_coast_zoomed_out_is_drawn_in_clusters(service: Service, watched: Watched) -> None:
    page = watched.page
    answers: list[tuple[str, dict[str, Any], int]] = []

    def seen(resp: Any) -> None:
        if "/map/vessels" in resp.url and resp.ok:
            answers.append((resp.url, resp.json(), resp.request.sizes()["responseBodySize"]))

    page.on("response", seen)
    watched.sign_in(service, "viewer")
    everyone = len(service.get("/map/vessels")["vessels"])
    assert everyone > FLEET
    page.wait_for_function(f"window.__vigia.map.clusterTotal === {everyone}", timeout=20_000)
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    url, doc, sent = next(a for a in answers if a[1].get("clustered"))
    assert "zoom=" in url and doc["total"] == everyone and doc["vessels"] == []
    # what a refresh of the national view costs on the wire (the goal: 100 kB)
    assert sent < 100_000, sent
    # no vessel is drawn one by one; the clusters are, each with its count written on it
    assert page.evaluate("window.__vigia.map.vesselCount") == 0
    assert watched.rendered(["vessel-all", "vessel-dot", "vessel-arrow"]) == 0
    assert watched.rendered(["vessel-cluster"]) >= 1
    counts = page.locator(".vessel-count").all_inner_texts()
    want = [f"{round(c[2] / 100) / 10:g}k" if c[2] >= 1000 else str(c[2]) for c in doc["clusters"]]
    assert sorted(counts) == sorted(want)
    # the leads off Rio are counted in a cluster; the beacon among them is drawn alone
    assert watched.rendered(["lead-cluster"]) >= 1
    assert watched.rendered(["lead-sar"]) >= 1
    # every open lead is on the map once: alone, or in a cluster's written count
    others = [x for x in service.get("/leads?limit=100")["leads"] if x["rule"] != "SAR-DISTRESS"]
    alone = page.evaluate("new Set(window.__vigia.map.map.queryRenderedFeatures("
                          "{layers: ['lead-ring']}).map(f => f.properties.id)).size")  # fmt: skip
    page.wait_for_function("document.querySelectorAll('.lead-count').length > 0", timeout=10_000)
    in_clusters = [int(x) for x in page.locator(".lead-count").all_inner_texts()]
    assert sum(in_clusters) + alone == len(others) and min(in_clusters) >= 2, (in_clusters, alone)
    sar = page.evaluate("window.__vigia.map.map.queryRenderedFeatures({layers: ['lead-sar']})"
                        ".map(f => f.properties.label)")  # fmt: skip
    assert any(f"MMSI {BEACON}" in label for label in sar), sar
    watched.shot("map-clusters")
    # a click on the largest cluster zooms onto its vessels, and again, until they are
    # drawn one by one (from zoom 9, the vessels around the view)
    for _ in range(4):
        if page.evaluate("window.__vigia.map.vesselCount") > 0:
            break
        zoom = page.evaluate("window.__vigia.map.map.getZoom()")
        # the largest cluster in view (below zoom 9 the answer holds the whole coast's)
        shown = page.evaluate(
            "(cs) => { const b = window.__vigia.map.map.getBounds();"
            " return cs.filter(c => b.contains([c[0], c[1]])); }",
            answers[-1][1]["clusters"],
        )
        big = max(shown, key=lambda c: c[2])
        _click_at(page, big[0], big[1])
        page.wait_for_function(f"window.__vigia.map.map.getZoom() > {zoom}", timeout=10_000)
        page.wait_for_function(
            f"window.__vigia.map.vesselCount > 0 || window.__vigia.clusterZoom !== {int(zoom)}",
            timeout=15_000,
        )
        page.wait_for_timeout(500)
    page.wait_for_function("window.__vigia.map.vesselCount > 0", timeout=15_000)
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    assert page.evaluate("window.__vigia.map.map.getZoom()") >= 9
    assert page.locator(".vessel-count").count() == 0
    assert watched.rendered(["vessel-all", "vessel-dot", "vessel-arrow"]) >= 1
    last_url, last, _ = answers[-1]
    assert "bbox=" in last_url and not last["clustered"]
    watched.shot("map-clusters-zoomed")
    assert not watched.errors, watched.errors
