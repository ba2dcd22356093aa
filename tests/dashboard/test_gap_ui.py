"""Going dark on the page (issue 33): a fishing boat that goes silent for 45 minutes
passing platform P-52, while the platform's standby vessel is heard around it, is an
``AIS-GAP`` lead on the list; selecting it draws the silence as a dashed line between
its two fixes and shades the area it could have reached, in Debian's chromium against a
real ``vigia serve`` fed over TCP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scripts import aisgen
from tests.support.dashboard import P52_ID, Service, Watched

T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z
DARK, STANDBY = 710_000_601, 710_000_602


def _lines() -> list[str]:
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    p52 = next(z for z in load_zones([bundled_zones_dir()]) if z.id == P52_ID).geometry
    west = aisgen.fwd(p52.x, p52.y, 270, 1_500)
    start = aisgen.fwd(*west, 180, 6 * aisgen.KN * 3_590)
    before = aisgen.run(*start, course=0, sog_kn=6.0, t0=T0, dt_s=10, n=360)
    after = aisgen.run(*aisgen.fwd(p52.x, p52.y, 90, 1_500), course=0, sog_kn=6.0,
                       t0=T0 + 3_590 + 2_700, dt_s=10, n=60)  # fmt: skip
    standby = aisgen.run(*aisgen.fwd(p52.x, p52.y, 180, 600), course=0, sog_kn=0.0,
                         t0=T0, dt_s=180, n=45, nav_status=5)  # fmt: skip
    out = [*aisgen.static_lines(DARK, T0 - 30, name="PESQUEIRO SEM SINAL", ship_type=30,
                                length_m=18)]  # fmt: skip
    # then a ship far offshore reports each minute until the 2 h lateness bound and the
    # hold have passed the silence: the stream's clock, as later traffic moves it
    far = aisgen.fwd(p52.x, p52.y, 180, 60_000)
    clock = [aisgen.Fix(T0 + 3_590 + 2_700 + 60.0 * k, *far, 0.0, 0.0) for k in range(160)]
    out += [s for _, s in sorted(
        [*aisgen.lines_for(DARK, [*before, *after]), *aisgen.lines_for(STANDBY, standby),
         *aisgen.lines_for(710_000_603, clock)]
    )]  # fmt: skip
    return out


@pytest.fixture(scope="module")
def dark_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("gap")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(_lines())
        svc.wait_leads(1, timeout=90, mmsi=DARK)
        yield svc
    finally:
        svc.stop()


def test_a_silence_by_a_platform_is_drawn_dashed_with_its_reach(
    dark_service: Service, watched: Watched
) -> None:
    (lead,) = [x for x in dark_service.get(f"/leads?mmsi={DARK}")["leads"]]
    assert lead["rule"] == "AIS-GAP" and lead["zone_id"] == P52_ID
    watched.sign_in(dark_service, "viewer")
    page = watched.page
    page.locator("#lead-list li", has_text="PESQUEIRO SEM SINAL").locator("button").click()
    page.wait_for_selector("#lead-detail:not([hidden])")
    page.wait_for_function("window.__vigia.map.map.loaded()")
    assert watched.rendered(["sel-silence"]) >= 1  # the dashed line between the ends
    assert watched.rendered(["sel-path"]) == 0  # not drawn as a track sailed
    assert watched.rendered(["sel-reach"]) >= 1  # the area it could reach, shaded
    # the rule in words, its code the heading's hover hint (issue 35); the list's rule
    # filter offers it as "sinal perdido" (issue 33)
    assert "sinal perdido" in page.locator("#lead-detail").inner_text()
    options = page.locator("#lead-filters select[name=rule] option").all_inner_texts()
    assert "sinal perdido" in options
    assert page.locator("#lead-detail h3").get_attribute("title") == "AIS-GAP"
    assert not watched.errors
    watched.shot("gap-selected")


def test_a_ship_dark_inside_the_ballast_lines_far_from_any_area(
    tmp_path_factory: pytest.TempPathFactory, watched: Watched
) -> None:
    """A cargo ship going dark for 45 minutes 40 km east of P-52, nowhere near a closed
    area, while a ship 2 km off it is heard: inside the ballast lines (RULES.md), so an
    AIS-GAP with no zone, which the page says in words, not as a zone 0 m away."""
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    p52 = next(z for z in load_zones([bundled_zones_dir()]) if z.id == P52_ID).geometry
    at = aisgen.fwd(p52.x, p52.y, 90, 40_000)
    before = aisgen.run(*aisgen.fwd(*at, 180, 6 * aisgen.KN * 3_590), course=0, sog_kn=6.0,
                        t0=T0, dt_s=10, n=360)  # fmt: skip
    after = aisgen.run(*aisgen.fwd(*at, 0, 6 * aisgen.KN * 2_700), course=0, sog_kn=6.0,
                       t0=T0 + 3_590 + 2_700, dt_s=10, n=60)  # fmt: skip
    near = aisgen.run(*aisgen.fwd(*at, 90, 2_000), course=0, sog_kn=0.0, t0=T0, dt_s=180,
                      n=45, nav_status=5)  # fmt: skip
    far = aisgen.fwd(*at, 180, 60_000)
    clock = [aisgen.Fix(T0 + 3_590 + 2_700 + 60.0 * k, *far, 0.0, 0.0) for k in range(160)]
    lines = [*aisgen.static_lines(DARK, T0 - 30, name="GRANELEIRO MUDO", ship_type=70,
                                  length_m=190)]  # fmt: skip
    lines += [s for _, s in sorted(
        [*aisgen.lines_for(DARK, [*before, *after]), *aisgen.lines_for(STANDBY, near),
         *aisgen.lines_for(710_000_603, clock)]
    )]  # fmt: skip
    svc = Service(tmp_path_factory.mktemp("lines")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(lines)
        svc.wait_leads(1, timeout=90, mmsi=DARK)
        (gap,) = svc.get(f"/leads?mmsi={DARK}")["leads"]
        assert gap["rule"] == "AIS-GAP" and gap["zone_id"] is None
        nm = min(
            gap["details"]["ballast_lines"]["start_nm"], gap["details"]["ballast_lines"]["end_nm"]
        )
        page = watched.page
        watched.sign_in(svc, "inspector")
        row = page.locator(f"#lead-list li[data-id='{gap['id']}']").inner_text()
        words = f"dentro das linhas de lastro (200 mn): a {round(nm)} mn da costa"
        assert words in row and " m ·" not in row, row
        page.locator(f"#lead-list li[data-id='{gap['id']}'] button").first.click()
        page.locator("#lead-detail h3", has_text="GRANELEIRO MUDO").wait_for(timeout=10_000)
        zone = page.locator("#lead-detail dt:text('Zona') + dd").inner_text()
        assert zone == words, zone
        labels = page.locator("#lead-detail dl").first.locator("dt").all_inner_texts()
        assert "Distância mínima" not in labels, labels
        # nor on the map, by the ship's fix: a "0 m" to no area said nothing true
        page.wait_for_timeout(300)
        assert page.locator(".maplibregl-popup.dist").count() == 0
        watched.shot("gap-ballast-lines")
        assert not watched.errors, watched.errors
    finally:
        svc.stop()
