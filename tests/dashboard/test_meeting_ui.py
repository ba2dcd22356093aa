"""A meeting at sea on the page (issue 37): two tankers drifting together for 3 h about
30 km off the coast are one ``STS-ENCOUNTER`` lead; selecting it draws both ships'
tracks in two colours (the lead's own evidence and ``details.partner_evidence``), marks
where they came closest, and the panel names both ships, the closest approach and the
duration, in Debian's chromium against a real ``vigia serve`` fed over TCP."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from scripts import aisgen, encounter_scenarios
from tests.support.dashboard import DOC_SHOTS, Service, Watched

A, B = 710_370_000, 710_370_001
T0 = encounter_scenarios.T0


def _lines() -> list[str]:
    sc = encounter_scenarios.meeting(A, B, T0, random.Random(37))
    # a meeting settles 3 h 10 min after it ends (the 2 h lateness bound, 1 h 10 min):
    # a ship far offshore steams on, reporting each minute until then, the stream's
    # clock as later traffic moves it (under way: no loitering of its own)
    far = aisgen.fwd(*encounter_scenarios.FAR, 180, 20_000)
    clock = aisgen.run(*far, course=90, sog_kn=10.0, t0=T0 + 3 * 3_600, dt_s=60, n=4 * 60)
    return aisgen.merge(sc.lines, aisgen.lines_for(710_370_099, clock))


def _closed(svc: Service, timeout: float = 180) -> dict[str, Any]:
    """The settled meeting (the open provisional lead shows first, then is closed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        leads = svc.get(f"/leads?mmsi={A}")["leads"]
        done = [x for x in leads if x["rule"] == "STS-ENCOUNTER" and x["ended_at"]]
        if done:
            return done[0]
        time.sleep(0.5)
    raise TimeoutError(f"no closed meeting after {timeout} s: {leads}")


@pytest.fixture(scope="module")
def meeting_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("meeting")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(_lines())
        _closed(svc)
        yield svc
    finally:
        svc.stop()


def test_a_meeting_draws_both_tracks_and_names_both_ships(
    meeting_service: Service, watched: Watched
) -> None:
    leads = meeting_service.get(f"/leads?mmsi={A}")["leads"]
    (lead,) = [x for x in leads if x["rule"] == "STS-ENCOUNTER"]  # one meeting, one lead
    assert lead["ended_at"] and lead["details"]["partner_mmsi"] == B
    assert len(lead["details"]["partner_evidence"]) >= 2
    watched.sign_in(meeting_service, "viewer")
    page = watched.page
    row = page.locator("#lead-list li[data-rule='STS-ENCOUNTER']", has_text="SYNTH TANKER A")
    row.locator("button").click()
    page.wait_for_selector("#lead-detail .meeting")
    page.wait_for_function("window.__vigia.map.map.loaded()")
    assert watched.rendered(["sel-path"]) >= 1  # the lead's own track
    assert watched.rendered(["sel-partner"]) >= 1  # the partner's, its own layer
    assert watched.rendered(["sel-meeting"]) >= 1  # where they came closest
    colours = page.evaluate(
        "() => ['sel-path', 'sel-partner'].map((l) => "
        "String(window.__vigia.map.map.getPaintProperty(l, 'line-color')))"
    )
    assert colours[0] != colours[1]
    text = page.locator("#lead-detail").inner_text()
    assert "Encontro entre navios: SYNTH TANKER A e SYNTH TANKER B" in text
    metres = round(lead["details"]["closest_approach_m"])
    assert f"Aproximação máxima: {metres:,}".replace(",", ".") + " m" in text
    hours, rest = divmod(round(lead["details"]["duration_s"] / 60), 60)
    assert f"Duração: {hours} h {rest:02d} min" in text
    assert page.locator("#lead-detail h3").get_attribute("title") == "STS-ENCOUNTER"
    assert not watched.errors
    watched.shot("meeting-selected")
    DOC_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOC_SHOTS / "11-meeting.png"), animations="disabled")
