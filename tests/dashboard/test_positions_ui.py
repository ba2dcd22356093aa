"""Positions an officer can pass on (issue 22): degrees and decimal minutes checked
against hand computation, and a distress lead that shows its beacon's latest fix."""

from __future__ import annotations

import time

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched

pytestmark = pytest.mark.slow

# hand-computed: 0.99° = 59.4', 0.18° = 10.8'; 0.5° = 30'; 0.25° = 15'
CASES = [
    (-22.99, -43.18, "22°59,400'S 043°10,800'W"),
    (1.5, 10.25, "01°30,000'N 010°15,000'E"),
    # 59.9994' rounds down to 59,999'; 59.9996' rounds up and carries into the degree
    (22 + 59.9994 / 60, -(43 + 59.9994 / 60), "22°59,999'N 043°59,999'W"),
    (22 + 59.9996 / 60, -(43 + 59.9996 / 60), "23°00,000'N 044°00,000'W"),
    (-(0 + 0.0004 / 60), 0.0, "00°00,000'S 000°00,000'E"),
]


def test_degrees_and_decimal_minutes_match_hand_computation(
    service: Service, watched: Watched
) -> None:
    watched.sign_in(service, "viewer")
    got = watched.page.evaluate(
        """async (cases) => {
            const m = await import('/ui/js/position.js');
            return cases.map(([lat, lon]) => m.ddm(lat, lon, ','));
        }""",
        [[lat, lon] for lat, lon, _ in CASES],
    )
    assert got == [want for _, _, want in CASES]


def test_a_distress_lead_shows_its_beacons_position(service: Service, watched: Watched) -> None:
    assert service.feed is not None
    mmsi = 970_123_456  # an AIS-SART
    fixes = aisgen.hold(-43.18, -22.99, t0=time.time() - 120, dt_s=10, n=6, nav_status=14)
    service.feed.send(list(s for _, s in aisgen.lines_for(mmsi, fixes)))
    service.wait_leads(1, 30, mmsi=mmsi)
    watched.sign_in(service, "viewer")
    page = watched.page
    row = page.locator("#lead-list li.sar").first
    row.wait_for(timeout=5000)
    row.locator("button").click()
    page.wait_for_selector("#lead-detail .pos")
    text = page.locator("#lead-detail").inner_text()
    assert "22°59,400'S 043°10,800'W" in text and "-22.990000, -43.180000" in text
    assert "Zona" not in text  # a beacon has no zone: no "Zona — (—)"
    assert "há " in text  # the fix's age
    copy = page.locator("#lead-detail .pos button.copy").first
    assert "22°59,400'S" in str(copy.get_attribute("data-copy"))
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    # the distress map opens wide enough to show the coast, not at street scale
    assert page.evaluate("window.__vigia.map.map.getZoom()") <= 9.01
    watched.doc_shot("08-distress-position")
    page.screenshot(
        path="docs/screenshots/09-distress-map.png",
        clip={"x": 150, "y": 150, "width": 800, "height": 560},
    )
