"""The ballast panel on a 1366x768 screen (issue 22): every control inside the panel, and
a repeat offender shown from the lead's repeat_offence after an audit raises its lead."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from scripts import aisgen
from tests.support.dashboard import Service, Watched

pytestmark = pytest.mark.slow

MMSI = 636_998_301  # Liberian flag: no Brazilian-flag exemption to claim
# about 20 nm south of Niterói: open water, well inside 50 nm of land (BW-EXCH-50)
START = (-43.05, -23.25)
DAY1 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
# after the first fine is final (see the test): a repeat only counts one final by then
DAY2 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def small(browser: Any) -> Iterator[Watched]:
    """A 1366x768 screen, the smallest laptop screen the duty room has."""
    ctx = browser.new_context(
        viewport={"width": 1366, "height": 768}, locale="pt-BR", bypass_csp=True
    )
    try:
        yield Watched(ctx.new_page())
    finally:
        ctx.close()


def _patch(service: Service, lead_id: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        f"{service.base}/leads/{lead_id}",
        data=json.dumps(body).encode(),
        method="PATCH",
        headers={"X-API-Key": service.keys["inspector"], "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _outside(page: Any) -> list[str]:
    """The ballast panel's controls that stick out of the panel or of the screen, sideways
    always, and downwards too unless the panel was scrolled."""
    return list(
        page.evaluate(
            """(vertical) => {
            const panel = document.getElementById('panel-ballast');
            const box = panel.getBoundingClientRect();
            const out = [];
            if (panel.scrollWidth > panel.clientWidth) out.push('panel scrolls sideways');
            for (const el of panel.querySelectorAll('input, select, button, textarea')) {
                if (el.offsetParent === null) continue;  // not shown (e.g. a viewer's form)
                const r = el.getBoundingClientRect();
                const side = r.left < box.left || r.right > box.right
                    || r.right > window.innerWidth;
                const down = vertical && (r.bottom > box.bottom || r.bottom > window.innerHeight);
                if (side || down) out.push(`${el.form?.id}/${el.name || el.textContent}`);
            }
            return out;
        }""",
            True,
        )
    )


def _track(day: datetime) -> list[str]:
    fixes = aisgen.run(*START, course=90, sog_kn=10.0, t0=day.timestamp(), dt_s=60, n=30)
    return [s for _, s in aisgen.lines_for(MMSI, fixes)]


def _local(t: float) -> str:
    """São Paulo time (UTC-3) to the minute, typed day first as the officer would."""
    return (datetime.fromtimestamp(t, UTC) - timedelta(hours=3)).strftime("%d/%m/%Y %H:%M")


def _audit(page: Any, day: datetime) -> Any:
    """Declare an exchange from the 6th to the 26th fix of that day's track."""
    fixes = aisgen.run(*START, course=90, sog_kn=10.0, t0=day.timestamp(), dt_s=60, n=30)
    a, b = fixes[5], fixes[25]
    form = page.locator("#audit-form")
    for name, value in {
        "mmsi": str(MMSI), "st": _local(a.t), "slat": f"{a.lat:.5f}", "slon": f"{a.lon:.5f}",
        "et": _local(b.t), "elat": f"{b.lat:.5f}", "elon": f"{b.lon:.5f}", "volume": "9000",
    }.items():  # fmt: skip
        form.locator(f"[name={name}]").fill(value)
    form.locator("button[type=submit]").click()
    raised = page.locator("#audit-out .raised li").first
    raised.wait_for(timeout=30_000)
    return raised


def test_the_ballast_panel_fits_1366x768_and_shows_a_repeat_offender(
    service: Service, small: Watched
) -> None:
    assert service.feed is not None
    t0 = DAY1.timestamp() - 60
    static = aisgen.static_lines(MMSI, t0, name="TEST LASTRO", ship_type=80, length_m=180)
    service.feed.send([*static, *_track(DAY1), *_track(DAY2)])
    small.sign_in(service, "inspector")
    page = small.page
    page.click("#tab-ballast")
    # every field of the three forms, "De" and "Classificar" included, on screen at once
    assert _outside(page) == []
    # first audit: an exchange inside 50 nm raises a lead, the vessel's first
    first = _audit(page, DAY1)
    assert first.get_attribute("data-repeat") == "false"
    assert "Reincidência: não" in first.inner_text()
    lead_a = str(first.get_attribute("data-lead"))
    # that lead becomes an infraction: an Auto dated 6 January 2026
    _patch(service, lead_a, {"status": "triaged", "seat_state": "RJ"})
    _patch(
        service,
        lead_a,
        {
            "status": "infraction",
            "auto": {"number": "CPRJ-BW-1/2026", "date": "2026-01-06", "signature": "signed",
                     "signed_by": "Carlos Alves"},
            "report_known_date": "2026-01-06",
        },
    )  # fmt: skip
    # only a final, upheld fine counts (NORMAM-20 1.5.3 b)): judged after the 20-day
    # defence term from the Laudo (6 Jan + 20 = 26 Jan), then closed
    decision = {"date": "2026-01-27", "outcome": "procedente", "penalty": "multa",
                "fine_brl": 7000}  # fmt: skip
    _patch(service, lead_a, {"status": "judged", "decision": decision})
    _patch(service, lead_a, {"status": "closed", "reason": "multa paga"})
    # that fine is irrecorrível from 19 Feb (appeal 20 days from 27 Jan end on Carnival
    # Monday 16 Feb, rolled to Wed 18, art. 66 §1º); the second voyage, 2 March, is a
    # repeat offence inside 36 months, so the fine is tripled (NORMAM-20/DPC 1.5.3 b),
    # Decreto 4.136/2002)
    second = _audit(page, DAY2)
    assert second.get_attribute("data-lead") != lead_a
    assert second.get_attribute("data-repeat") == "true"
    said = second.inner_text()
    assert "Reincidência: sim, 1 infração anterior" in said
    assert "06/01/2026" in said and "multiplicada por 3" in said
    # the audit's reason in Portuguese, its figures in the app's number format
    reason = page.locator("#audit-out td:nth-child(3)").first.inner_text()
    assert (
        reason == "nem sequer além de 50 mn da terra e com 200 m de profundidade em todo o trecho"
    )
    # with the results shown the panel scrolls down, never sideways
    assert page.evaluate(
        "(() => { const p = document.getElementById('panel-ballast');"
        " return p.scrollWidth <= p.clientWidth })()"
    )
    page.locator("#audit-out .raised").scroll_into_view_if_needed()
    small.doc_shot("10-ballast", "aside.side")  # the whole side panel at 1366x768
    # the lead opens from the panel
    second.locator("button").click()
    page.wait_for_selector("#lead-detail:not([hidden])")
    assert "lastro: 50 mn" in page.locator("#lead-detail h3").inner_text()
