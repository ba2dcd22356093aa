"""A vessel's identity history in its panel (issue 34), in Debian's chromium against a
real ``vigia serve`` fed over TCP: a tanker renamed ALFA -> BRAVO at 10:10 UTC whose IMO
then goes from 9074729 to 9074728 (which fails the check digit: 9*7+0*6+7*5+4*4+7*3+2*2
= 139, so the seventh digit must be 9) at 10:20 UTC shows three rows, newest first, in
São Paulo time (UTC-3) with the UTC instant on hover; a vessel that never changed says
so. Expected values by hand, not from Vigia."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched

pytestmark = pytest.mark.slow

T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z
RENAMED, STEADY = 710_000_901, 710_000_902
#: renamed 30 times on 31 Dec and 30 times on 1 Jan: 60 changes, past the panel's 50
MANY = 710_000_903


def _lines() -> list[str]:
    def static(mmsi: int, t: float, name: str, imo: int) -> list[tuple[float, str]]:
        lines = aisgen.static_lines(mmsi, t, name=name, ship_type=80, length_m=180,
                                    callsign="PPTK", imo=imo)  # fmt: skip
        return [(t, s) for s in lines]

    out = [
        *static(RENAMED, T0, "ALFA", 9074729),
        *static(RENAMED, T0 + 600, "BRAVO", 9074729),
        *static(RENAMED, T0 + 1200, "BRAVO", 9074728),
        *static(STEADY, T0, "FIRME", 9074729),
        *static(STEADY, T0 + 600, "FIRME", 9074729),
    ]
    for day in (T0 - 86_400.0, T0):
        out += [
            x for i in range(31) for x in static(MANY, day + 60.0 * i, f"M{day:.0f}-{i}", 9074729)
        ]
    for mmsi, lon, t0 in ((RENAMED, -42.0, T0), (STEADY, -41.9, T0), (MANY, -41.8, T0 - 86_400.0),
                          (MANY, -41.8, T0)):  # fmt: skip
        fixes = aisgen.run(lon, -23.5, course=90, sog_kn=8, t0=t0, dt_s=60, n=30)
        out += list(aisgen.lines_for(mmsi, fixes))
    return [s for _, s in sorted(out, key=lambda x: x[0])]


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("identity")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(_lines())
        deadline = time.monotonic() + 60
        while (svc.get(f"/vessels/{RENAMED}/identity")["history_total"] < 3
               or svc.get(f"/vessels/{MANY}/identity")["history_total"] < 61):  # fmt: skip
            assert time.monotonic() < deadline, "the changes were never stored"
            time.sleep(0.1)
        yield svc
    finally:
        svc.stop()


def _open(watched: Watched, svc: Service, mmsi: int) -> None:
    page = watched.page
    page.click("#tab-vessel")
    page.fill("#vessel-form [name=mmsi]", str(mmsi))
    page.click("#vessel-form button[type=submit]")
    page.locator("#vessel-out .identity").wait_for(timeout=10_000)


def test_the_vessel_panel_shows_its_identity_history(renamed: Service, watched: Watched) -> None:
    watched.sign_in(renamed, "viewer")
    _open(watched, renamed, RENAMED)
    page = watched.page
    box = page.locator("#vessel-out .identity")
    assert box.locator("h4").inner_text() == "Histórico de identidade"
    assert box.locator("th").all_inner_texts() == ["Quando", "Campo", "Antes → depois"]
    rows = [r.locator("td").all_inner_texts() for r in box.locator("tbody tr").all()]
    # 10:20 and 10:10 UTC are 07:20 and 07:10 in São Paulo; one report's two changes
    # (the IMO and its failed check digit) in field order
    assert [(r[1], r[2]) for r in rows] == [
        ("IMO", "9074729 → 9074728"),
        ("IMO", "9074728: dígito verificador inválido"),
        ("nome", "ALFA → BRAVO"),
    ]
    assert all("01/01/2026" in r[0] for r in rows)
    assert ["07:20:00" in rows[0][0], "07:20:00" in rows[1][0], "07:10:00" in rows[2][0]] == [
        True, True, True,
    ]  # fmt: skip
    hover = str(box.locator("tbody tr time").last.get_attribute("title"))
    assert hover.startswith("2026-01-01 10:10:00") and hover.endswith("UTC")  # timeEl's hover
    assert box.locator(".count").count() == 0  # nothing older, nothing past the cap
    assert not watched.errors
    watched.doc_shot("12-identity-history", "#panel-vessel")
    watched.shot("identity-history")


def test_a_vessel_that_never_changed_says_so_in_both_languages(
    renamed: Service, watched: Watched
) -> None:
    watched.sign_in(renamed, "viewer")
    _open(watched, renamed, STEADY)
    box = watched.page.locator("#vessel-out .identity")
    assert box.locator("table").count() == 0
    assert box.locator("p").inner_text() == (
        "Nenhuma alteração de nome, indicativo, IMO, tipo ou dimensões registrada."
    )
    watched.page.select_option("#lang", "en")
    _open(watched, renamed, RENAMED)
    box = watched.page.locator("#vessel-out .identity")
    assert box.locator("h4").inner_text() == "Identity history"
    assert box.locator("tbody tr td:nth-child(2)").all_inner_texts() == ["IMO", "IMO", "name"]
    assert "9074728: check digit fails" in box.inner_text()
    assert not watched.errors


def test_older_changes_come_a_page_at_a_time(renamed: Service, watched: Watched) -> None:
    watched.sign_in(renamed, "viewer")
    _open(watched, renamed, MANY)
    box = watched.page.locator("#vessel-out .identity")
    total = renamed.get(f"/vessels/{MANY}/identity")["history_total"]
    assert box.locator("tbody tr").count() == 50
    assert box.locator(".count").inner_text() == f"e mais {total - 50} alterações anteriores"
    box.locator("button").scroll_into_view_if_needed()
    watched.shot("identity-history-older")
    box.locator("button", has_text="Mostrar alterações anteriores").click()
    watched.page.wait_for_function(
        f"document.querySelectorAll('#vessel-out .identity tbody tr').length === {total}"
    )
    # newest first throughout, the page's join included: the oldest is 31 Dec's first
    times = box.locator("tbody tr time").evaluate_all(
        "ts => ts.map(t => t.getAttribute('datetime'))"
    )
    assert times == sorted(times, reverse=True) and len(set(times)) == total
    assert (
        box.locator("tbody tr")
        .last.locator("td")
        .last.inner_text()
        .startswith(f"M{T0 - 86_400.0:.0f}-0 → ")
    )
    assert box.locator(".count").inner_text() == ""  # nothing older left
    assert not box.locator("button", has_text="Mostrar alterações anteriores").is_visible()
    assert not watched.errors
