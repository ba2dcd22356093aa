"""Words, not codes, and the app's own date format (issue 22): in an English chromium the
pt-BR dashboard writes and reads dates day first, names ballast methods in words, names
the field a refused move points at, and a finished lead is neither "em curso" nor
offered silencing or drafts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboard.test_procedure_ui import _move, _offered
from tests.support.dashboard import Service, Watched, platform_pass

pytestmark = pytest.mark.slow


@pytest.fixture
def english_browser(browser: Any) -> Iterator[Watched]:
    """Chromium in en-US: its own date inputs would say mm/dd/yyyy."""
    ctx = browser.new_context(
        viewport={"width": 1400, "height": 900}, locale="en-US", bypass_csp=True
    )
    try:
        yield Watched(ctx.new_page())
    finally:
        ctx.close()


def _lead(service: Service, watched: Watched, mmsi: int, name: str) -> str:
    assert service.feed is not None
    service.feed.send(platform_pass(mmsi, time.time() - 400, name=name))
    service.wait_leads(1, 30, mmsi=mmsi)
    row = watched.page.locator("#lead-list li", has_text=name)
    row.wait_for(timeout=5000)
    row.locator("button").click()
    # this lead's own detail (another's, still on screen, has a #workflow form too)
    watched.page.locator("#lead-detail h3", has_text=name).wait_for(timeout=10_000)
    watched.page.locator("#workflow").wait_for()
    return str(row.get_attribute("data-id"))


def test_dates_methods_and_field_names_follow_the_apps_language(
    service: Service, english_browser: Watched
) -> None:
    watched = english_browser
    watched.sign_in(service, "inspector")
    page = watched.page
    assert page.evaluate("navigator.language") == "en-US"
    # no browser-drawn date field anywhere: they would follow chromium's locale
    assert page.locator("input[type=date], input[type=datetime-local]").count() == 0
    page.click("#tab-ballast")
    start = page.locator("#ballast-form [name=start]")
    assert start.get_attribute("placeholder") == "dd/mm/aaaa hh:mm"
    methods = page.locator("#audit-form [name=method] option").all_inner_texts()
    assert methods == ["sequencial", "fluxo contínuo", "diluição"]
    page.click("#tab-leads")

    lead_id = _lead(service, watched, 710_998_501, "TEST DATAS")
    _move(page, service, lead_id, "triaged", {"seat_state": "RJ"})
    form = page.locator("#workflow")
    form.locator("select[name=status]").select_option("notified")
    date, appear = form.locator("[name='notice.date']"), form.locator("[name='notice.appear_by']")
    assert date.get_attribute("placeholder") == "dd/mm/aaaa"
    # 31 February is no date: the field itself refuses it, nothing is sent
    date.fill("31/02/2026")
    assert date.evaluate("e => e.validity.valid") is False
    # an appearance date before the Notice's: the API names the field, said in Portuguese
    date.fill("02/02/2026")
    appear.fill("01/02/2026")
    form.locator("button[type=submit]").click()
    msg = form.locator(".msg.error")
    msg.wait_for(timeout=10_000)
    said = msg.inner_text()
    assert "Campo: Notificação para comparecimento › Comparecer até." in said
    assert "appear_by" not in said and "notice" not in said
    # typed day first, stored as the day meant: 2 and 5 February 2026
    _move(page, service, lead_id, "notified", {"notice.date": "02/02/2026",
                                               "notice.appear_by": "05/02/2026"})  # fmt: skip
    notice = service.get(f"/leads/{lead_id}")["procedure"]["notice"]
    assert (notice["date"], notice["appear_by"]) == ("2026-02-02", "2026-02-05")
    deadlines = page.locator("#lead-detail table").first.inner_text()
    assert "05/02/2026" in deadlines and "2/5/2026" not in deadlines
    # English keeps the day first, and says the methods in English
    page.select_option("#lang", "en")
    page.locator("#lead-detail table").first.wait_for()
    assert "05/02/2026" in page.locator("#lead-detail table").first.inner_text()
    assert page.locator("#audit-form [name=method] option").first.inner_text() == "sequential"
    page.select_option("#lang", "pt-BR")


def test_a_finished_lead_is_not_ongoing_and_offers_no_silence_or_draft(
    service: Service, english_browser: Watched
) -> None:
    watched = english_browser
    watched.sign_in(service, "inspector")
    page = watched.page
    lead_id = _lead(service, watched, 710_998_502, "TEST FINDA")
    # before: an open lead offers silencing (the service has the route)
    assert page.locator("#lead-detail [name=scope]").count() == 1
    _move(page, service, lead_id, "triaged", {"seat_state": "RJ"})
    assert "dismissed" in _offered(page)
    form = page.locator("#workflow")
    form.locator("select[name=status]").select_option("dismissed")
    form.locator("[name=reason]").fill("embarcação autorizada")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#lead-detail dd:text-is('descartado')", timeout=10_000)
    assert service.get(f"/leads/{lead_id}")["status"] == "dismissed"
    ended = page.locator("#lead-detail dt:text-is('Fim') + dd").inner_text()
    assert ended != "em curso"
    assert page.locator("#lead-detail [name=scope]").count() == 0
    assert page.locator("#lead-detail button", has_text="PDF").count() == 0
    row = page.locator(f"#lead-list li[data-id='{lead_id}']").inner_text()
    assert "em curso" not in row
