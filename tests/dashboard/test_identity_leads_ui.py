"""Identity leads on the page (issue 34): an inspector opening a GNSS interference lead
reads where the ships were put, how spread they were and every ship that jumped (each
opens its vessel panel), not a zone and a distance that mean nothing here; a track in
circles gives its centre, radius and laps; a transponder reporting from Brasília where it
first was on land, for how long and how many fixes."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched, demo_lines

pytestmark = pytest.mark.slow

SHIPS = [710_390_000, 710_390_001, 710_390_002]
CIRCLER = 710_390_009
SPOT = (-38.0, -25.0)
#: three more ships, spoofed onto a platform's 500 m (bundled: DHN ENC BR322900) an hour
#: before the first three, from 4 degrees of longitude and 3.7 of latitude away
VICTIMS = [710_390_020, 710_390_021, 710_390_022]
PLATFORM = (-40.0566667, -21.3383334)  # FPSO CIDADE DE ANCHIETA
LANDER = 710_390_030
BRASILIA = (-47.88, -15.79)


Lines = list[tuple[float, str]]


def _spoofed(ships: list[int], start: tuple[float, float], to: tuple[float, float],
             t_jump: float, t0: float, stay_s: float, step: float) -> Lines:  # fmt: skip
    """Ships steaming east from ``start`` (0.3 degrees apart), each reporting ``to``
    (``step`` degrees of longitude apart) for ``stay_s`` from ``t_jump`` (20 s apart)."""
    out: Lines = []
    for k, m in enumerate(ships):
        t = t_jump + 20.0 * k
        track = aisgen.run(
            start[0] + 0.3 * k, start[1], course=90.0, sog_kn=10.0, t0=t0, dt_s=60.0, n=120
        )
        for f in track:
            lon, lat = (to[0] + step * k, to[1]) if t <= f.t < t + stay_s else (f.lon, f.lat)
            out.append((f.t, aisgen.fast_type1(m, f.t, lon, lat, f.sog, f.cog)))
    return out


def _lines(now: float) -> list[str]:
    """Three ships spoofed to SPOT 20 s apart four hours ago, three onto a platform an hour
    before, a ship drawing 3.5 laps of an 800 m circle before that, and a ship steaming
    until now (the stream's clock)."""
    t0 = now - 6 * 3600.0
    out = _spoofed(SHIPS, (-41.0, -23.0), SPOT, t0 + 3_600.0, t0, 180.0, 0.001)
    out += _spoofed(VICTIMS, (-36.0, -25.0), PLATFORM, t0 + 2_400.0, t0, 600.0, 0.0005)
    for i in range(212):
        a = math.radians(6.0 * i)
        lon = -40.0 + 800.0 * math.sin(a) / (111_320.0 * math.cos(math.radians(-23.5)))
        lat = -23.5 + 800.0 * math.cos(a) / 111_320.0
        t = t0 + 1_800.0 + 10.0 * i
        out.append((t, aisgen.fast_type1(CIRCLER, t, lon, lat, 9.0, 0.0)))
    for i in range(21):  # 20 minutes a fix a minute, from Brasília
        t = t0 + 1_200.0 + 60.0 * i
        out.append((t, aisgen.fast_type1(LANDER, t, BRASILIA[0], BRASILIA[1], 0.0, 0.0)))
    far = aisgen.run(-36.0, -20.0, course=90.0, sog_kn=10.0, t0=t0, dt_s=120.0, n=180)
    out += [(f.t, aisgen.fast_type1(710_399_999, f.t, f.lon, f.lat, f.sog, f.cog)) for f in far]
    return [line for _, line in sorted(out)]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Any:
    svc = Service(tmp_path_factory.mktemp("idleads")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(demo_lines())
        svc.wait_leads(5)
        svc.feed.send(_lines(time.time()))
        end = time.monotonic() + 90
        while not (len(svc.get("/leads?rule=ID-INTERFERENCE")["leads"]) == 2
                   and svc.get("/leads?rule=ID-CIRCLE")["leads"]
                   and svc.get("/leads?rule=ID-ON-LAND")["leads"]):  # fmt: skip
            assert time.monotonic() < end, "no identity leads were raised"
            time.sleep(0.3)
        yield svc
    finally:
        svc.stop()


def _open(page: Any, rule_words: str) -> Any:
    page.locator("#lead-list li", has_text=rule_words).first.locator("button").first.click()
    page.locator("#lead-detail h3", has_text=rule_words).wait_for(timeout=10_000)
    page.wait_for_selector("#lead-detail .identity-lead")
    return page.locator("#lead-detail")


def test_an_inspector_reads_an_interference_lead_and_a_track_in_circles(
    service: Service, watched: Watched
) -> None:
    page = watched.page
    watched.sign_in(service, "inspector")
    # the list says what each is about, not a zone and a distance to it
    row = page.locator("#lead-list li", has_text="interferência GNSS").first.inner_text()
    assert "Embarcações deslocadas (3)" in row and " m ·" not in row, row
    row = page.locator("#lead-list li", has_text="trajetória em círculos").first.inner_text()
    assert "Raio 799 m · 3,5 voltas" in row, row
    detail = _open(page, "interferência GNSS")
    text = detail.inner_text()
    assert "Ponto para onde saltaram" in text and "Dispersão em torno dele" in text
    assert "Embarcações deslocadas (3)" in text
    for m in SHIPS:
        assert f"MMSI {m}" in text
    # no zone and no distance to one: they mean nothing for this lead
    labels = detail.locator("dl").first.locator("dt").all_inner_texts()
    assert "Zona" not in labels and "Distância mínima" not in labels, labels
    # the jumps: hundreds of km at thousands of knots, worked from the tracks by hand
    # (the nearest ship, 3 degrees of longitude and 2 of latitude away: over 300 km)
    jumps = detail.locator("table tbody tr td:nth-child(4)").all_inner_texts()
    assert len(jumps) == 3 and all(
        float(j.split()[0].replace(".", "").replace(",", ".")) > 300 for j in jumps
    )
    watched.shot("identity-interference")
    # a ship of the event opens its vessel panel
    detail.locator("table button", has_text=f"MMSI {SHIPS[1]}").click()
    page.wait_for_selector(f"#vessel-out :text('{SHIPS[1]}')", timeout=10_000)
    page.locator("#tab-leads").click()
    detail = _open(page, "trajetória em círculos")
    text = detail.inner_text()
    assert "Centro do círculo" in text and "Raio" in text
    radius = detail.locator("dt:text('Raio') + dd").inner_text()
    # drawn at 800 m with 111,320 m a degree; on the 6,371,008.8 m sphere a degree is
    # 111,194.9 m: 800 x 111,194.9 / 111,320 = 799.1 m, by hand
    assert radius == "799 m", radius
    laps = detail.locator("dt:text('Voltas') + dd").inner_text()
    assert laps.startswith("3,5") and "horário" in laps, laps
    watched.shot("identity-circle")
    assert not watched.errors, watched.errors


def test_a_lead_where_interference_put_a_ship_says_so_and_opens_the_event(
    service: Service, watched: Watched
) -> None:
    page = watched.page
    watched.sign_in(service, "inspector")
    victim = {m: [x["id"] for x in service.get(f"/leads?mmsi={m}")["leads"]
                  if x["rule"] == "SEC-PLATFORM"] for m in VICTIMS}  # fmt: skip
    assert all(len(ids) == 1 for ids in victim.values()), victim
    first, *others = (ids[0] for ids in victim.values())
    # the list says it of each of them before any is opened
    for lead_id in (first, *others):
        row = page.locator(f"#lead-list li[data-id='{lead_id}']").inner_text()
        assert "⚠ posição possivelmente falsa (interferência GNSS)" in row, row
    page.locator(f"#lead-list li[data-id='{first}'] button").first.click()
    note = page.locator("#lead-detail .doubt")
    note.wait_for(timeout=10_000)
    text = note.inner_text()
    assert "Posição possivelmente falsa: interferência GNSS" in text, text
    assert "com outras 2 embarcações ao mesmo tempo" in text, text
    # said before any fact of the lead: above its definition list
    assert page.locator("#lead-detail > .doubt + dl").count() == 1
    watched.shot("identity-doubt")
    note.locator("button", has_text="Ver a interferência").click()
    page.locator("#lead-detail h3", has_text="interferência GNSS").wait_for(timeout=10_000)
    rows = page.locator("#lead-detail .victims li")
    rows.first.wait_for(timeout=10_000)
    assert (
        "Indícios que esta interferência explica (3)"
        in page.locator("#lead-detail .victims h4").inner_text()
    )
    assert sorted(rows.evaluate_all("ls => ls.map(l => l.dataset.id)")) == sorted([first, *others])
    assert all("plataforma" in r for r in rows.all_inner_texts()), rows.all_inner_texts()
    page.locator("#lead-detail .victims").scroll_into_view_if_needed()
    watched.shot("identity-victims")
    # each opens that lead, doubted too
    page.locator(f"#lead-detail .victims li[data-id='{others[0]}'] button").click()
    page.wait_for_url(f"**#/lead/{others[0]}*", timeout=10_000)
    page.locator("#lead-detail .doubt").wait_for(timeout=10_000)
    # a lead of a ship nobody moved carries no such note
    honest = next(x for x in service.get("/leads?rule=SEC-PLATFORM")["leads"]
                  if x["mmsi"] not in VICTIMS)  # fmt: skip
    page.locator(f"#lead-list li[data-id='{honest['id']}'] button").first.click()
    assert "⚠" not in page.locator(f"#lead-list li[data-id='{honest['id']}']").inner_text()
    page.wait_for_url(f"**#/lead/{honest['id']}*", timeout=10_000)
    page.locator("#lead-detail dl").wait_for(timeout=10_000)
    page.wait_for_timeout(500)  # the detail's own read, had it brought a note
    assert page.locator("#lead-detail .doubt").count() == 0
    assert not watched.errors, watched.errors


def test_an_inspector_reads_a_position_on_land(service: Service, watched: Watched) -> None:
    page = watched.page
    watched.sign_in(service, "inspector")
    (lead,) = service.get("/leads?rule=ID-ON-LAND")["leads"]
    assert lead["mmsi"] == LANDER
    row = page.locator(f"#lead-list li[data-id='{lead['id']}']").inner_text()
    # 21 fixes a minute apart: 20 minutes, counted by hand
    assert "posição em terra" in row and "21 posições em terra durante 20 min" in row, row
    detail = _open(page, "posição em terra")
    text = detail.inner_text()
    assert "Primeira posição em terra" in text and "15°47" in text and "47°52" in text, text
    assert page.locator("#lead-detail dt:text('Posições em terra') + dd").inner_text() == "21"
    assert page.locator("#lead-detail dt:text('Durante') + dd").inner_text() == "20 min"
    beyond = page.locator("#lead-detail dt:text('Além das faixas') + dd").inner_text()
    assert beyond.endswith(" km") and float(beyond.split()[0].replace(",", ".")) > 1, beyond
    labels = detail.locator("dl").first.locator("dt").all_inner_texts()
    assert "Zona" not in labels and "Distância mínima" not in labels, labels
    watched.shot("identity-on-land")
    assert not watched.errors, watched.errors


def test_rows_on_screen_learn_their_doubt_when_the_event_settles_live(
    tmp_path: Any, watched: Watched
) -> None:
    """The zone leads go out as the ships are put on the platform; the interference
    event only settles two hours of stream time later. A duty officer with the page open
    sees the rows already on screen take the warning when the event arrives, unreloaded."""
    svc = Service(tmp_path).start()
    try:
        assert svc.feed is not None
        t0 = time.time() - 6 * 3600.0
        lines = _spoofed(VICTIMS, (-36.0, -25.0), PLATFORM, t0 + 2_400.0, t0, 600.0, 0.0005)
        far = aisgen.run(-36.0, -20.0, course=90.0, sog_kn=10.0, t0=t0, dt_s=120.0, n=180)
        lines += [(f.t, aisgen.fast_type1(710_399_999, f.t, f.lon, f.lat, f.sog, f.cog))
                  for f in far]  # fmt: skip
        lines.sort()
        cut = t0 + 3_100.0  # the platform's leads raised; the event 2 h from settling
        page = watched.page
        watched.sign_in(svc, "inspector")
        svc.feed.send([line for t, line in lines if t < cut])
        rows = page.locator("#lead-list li", has_text="plataforma")
        end = time.monotonic() + 60
        while rows.count() < 3:
            assert time.monotonic() < end, "the platform's leads did not come"
            time.sleep(0.3)
        assert svc.get("/leads?rule=ID-INTERFERENCE")["leads"] == []
        assert all("⚠" not in r for r in rows.all_inner_texts()), rows.all_inner_texts()
        svc.feed.send([line for t, line in lines if t >= cut])
        # (the event's own row: the victims' rows say "interferência GNSS" too, once marked)
        page.locator("#lead-list li[data-rule='ID-INTERFERENCE']").wait_for(timeout=60_000)
        page.wait_for_function(
            """() => [...document.querySelectorAll('#lead-list li')]
                 .filter((li) => li.textContent.includes('plataforma'))
                 .every((li) => li.textContent.includes('posição possivelmente falsa'))""",
            timeout=15_000,
        )
        assert rows.count() == 3
        watched.shot("identity-doubt-live")
        assert not watched.errors, watched.errors
    finally:
        svc.stop()
