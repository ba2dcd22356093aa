"""A whole procedure from the lead panel in pt-BR (issue 22): every move with the fields
its step needs, only the moves the API allows, errors in Portuguese from the code."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from scripts import aisgen
from tests.dashboard.test_ballast_ui import DAY1, MMSI, _audit, _track
from tests.support.dashboard import Service, Watched, platform_pass

pytestmark = pytest.mark.slow


def _open(service: Service, watched: Watched, mmsi: int, name: str) -> tuple[Any, str]:
    assert service.feed is not None
    service.feed.send(platform_pass(mmsi, time.time() - 400, name=name))
    service.wait_leads(1, 30, mmsi=mmsi)
    watched.sign_in(service, "inspector")
    row = watched.page.locator("#lead-list li", has_text=name)
    row.wait_for(timeout=5000)
    row.locator("button").click()
    # this lead's own detail (another's, still on screen, has a #workflow form too)
    watched.page.locator("#lead-detail h3", has_text=name).wait_for(timeout=10_000)
    watched.page.locator("#workflow").wait_for()
    lead_id = row.get_attribute("data-id")
    assert lead_id
    return row, lead_id


def _offered(page: Any) -> list[str]:
    return [
        str(o.get_attribute("value"))
        for o in page.locator("#workflow select[name=status] option").all()
    ]


def _move(
    page: Any, service: Service, lead_id: str, to: str, fields: dict[str, str], shot: str = ""
) -> None:
    form = page.locator("#workflow")
    form.locator("select[name=status]").select_option(to)
    for name, value in fields.items():
        el = form.locator(f"[name='{name}']")
        if el.evaluate("e => e.tagName") == "SELECT":
            el.select_option(value)
        else:
            el.fill(value)
    if shot:
        page.locator("#lead-detail").evaluate("e => e.scrollTo(0, e.scrollHeight)")
    form.locator("button[type=submit]").click()
    deadline = time.monotonic() + 10
    while service.get(f"/leads/{lead_id}")["status"] != to:
        # all_inner_texts does not wait: the detail is redrawn by the lead's own event,
        # and a closed lead has no form at all, so a waiting read could hang for 30 s
        msg = " ".join(form.locator(".msg").all_inner_texts())
        assert time.monotonic() < deadline, f"no move to {to}: {msg}"
        time.sleep(0.1)
    # the previous move's confirmation stays up for 15 s, so it proves nothing about this
    # one: wait for the detail to show the new status itself, as the inspector reads it
    shown = page.locator("#lead-detail dd", has_text=_WORDS[to]).first
    try:
        shown.wait_for(timeout=10_000)
    except Exception as exc:
        raise AssertionError((watched_errors(page), to)) from exc
    # the move's confirmation: the lead's own event can redraw the status before the
    # PATCH's answer reaches the page (on a loaded machine), so wait for it too
    notice = page.locator("#lead-detail .notice", has_text="Situação alterada")
    notice.wait_for(timeout=10_000)
    assert notice.count() == 1


def watched_errors(page: Any) -> str:
    return str(page.evaluate("window.__vigiaErrors || []"))


_WORDS = {
    "triaged": "triado", "notified": "notificado", "infraction": "auto lavrado",
    "defence": "defesa", "judged": "julgado", "closed": "encerrado",
}  # fmt: skip


def test_a_lesta_lead_goes_from_new_to_closed_from_the_page(
    service: Service, watched: Watched
) -> None:
    page = watched.page
    _, lead_id = _open(service, watched, 710_998_101, "TEST LESTA")
    assert _offered(page) == ["triaged", "dismissed"]
    _move(page, service, lead_id, "triaged", {"seat_state": "RJ"})
    # dates are typed day first, as on the paper (dd/mm/aaaa), whatever the browser's locale
    # 0306 a) I: under LESTA the Notice precedes the Auto, so the Auto is not offered
    assert _offered(page) == ["notified", "dismissed"]
    watched.doc_shot("01-triaged")
    # a Notice whose appearance date is before its own date: refused, said in Portuguese
    form = page.locator("#workflow")
    form.locator("select[name=status]").select_option("notified")
    form.locator("[name='notice.date']").fill("10/02/2026")
    form.locator("[name='notice.appear_by']").fill("02/02/2026")
    form.locator("button[type=submit]").click()
    msg = form.locator(".msg.error")
    msg.wait_for(timeout=10_000)
    said = msg.inner_text()
    assert "anterior" in said and "before" not in said and "appear_by" not in said
    assert service.get(f"/leads/{lead_id}")["status"] == "triaged"
    watched.doc_shot("02-error-in-portuguese")
    _move(
        page, service, lead_id, "notified",
        {"notice.number": "N-7/2026", "notice.date": "02/02/2026",
         "notice.appear_by": "05/02/2026"},
    )  # fmt: skip
    watched.doc_shot("03-notified")
    _move(
        page, service, lead_id, "infraction",
        {"auto.number": "CPRJ-001/2026", "auto.date": "06/02/2026", "auto.signature": "refused",
         "auto.witnesses.0": "Ana Souza", "auto.witnesses.1": "João Lima",
         "responsible.0.role": "comandante", "responsible.0.name": "Carlos Alves"},
    )  # fmt: skip
    stored = service.get(f"/leads/{lead_id}")["procedure"]
    assert stored["auto"]["witnesses"] == ["Ana Souza", "João Lima"]
    assert stored["responsible"][0]["name"] == "Carlos Alves"
    watched.doc_shot("04-infraction")
    _move(page, service, lead_id, "defence", {"defence_received": "20/02/2026"})
    _move(
        page, service, lead_id, "judged",
        {"decision.date": "10/03/2026", "decision.outcome": "improcedente"},
    )  # fmt: skip
    # an unfounded charge has no appeal by the charged party (workflow: appeal needs procedente)
    assert _offered(page) == ["closed"]
    watched.doc_shot("05-judged")
    _move(page, service, lead_id, "closed", {"reason": "arquivado"})
    assert page.locator("#workflow").count() == 0  # nothing more to offer
    watched.doc_shot("06-closed")
    _no_raw_codes(page.locator("#lead-detail").inner_text())
    _no_raw_codes(page.locator("#lead-list").inner_text())


RAW = re.compile(
    r"\b(bather_beach|platform|triaged|notified|infraction|judged|dismissed|lesta|"
    r"comparecimento_|new|closed)\b|platform-BR|beach-|(?<![\d/])\d{4}-\d\d-\d\d(?![\d:T])"
)


def _no_raw_codes(text: str) -> None:
    """No API code on a panel: statuses, zone kinds, zone ids, ISO-only dates."""
    found = sorted({m.group(0) for m in RAW.finditer(text)})
    assert found == [], found


def test_a_pollution_lead_goes_from_new_to_judged_from_the_page(
    service: Service, watched: Watched
) -> None:
    page = watched.page
    # the pollution regime is the ballast rules' (Lei 9.966, NORMAM-07 0401): a ballast
    # audit raises the lead, an exchange about 20 nm off Niterói (BW-EXCH-50)
    assert service.feed is not None
    static = aisgen.static_lines(MMSI, DAY1.timestamp() - 60, name="TEST POLUICAO",
                                 ship_type=80, length_m=180)  # fmt: skip
    service.feed.send([*static, *_track(DAY1)])
    watched.sign_in(service, "inspector")
    page.click("#tab-ballast")
    raised = _audit(page, DAY1)
    lead_id = str(raised.get_attribute("data-lead"))
    raised.locator("button").click()
    page.locator("#lead-detail h3", has_text="TEST POLUICAO").wait_for(timeout=10_000)
    page.locator("#workflow").wait_for()
    _move(page, service, lead_id, "triaged", {"seat_state": "RJ"})
    assert service.get(f"/leads/{lead_id}")["regime"] == "pollution"
    # Lei 9.966 / 0404 a) I: the Auto comes first, so it is offered straight from triage
    assert "infraction" in _offered(page)
    _move(
        page, service, lead_id, "infraction",
        {"auto.number": "CPRJ-POL-3/2026", "auto.date": "06/02/2026", "auto.signature": "signed",
         "auto.signed_by": "Carlos Alves", "report_known_date": "06/02/2026"},
    )  # fmt: skip
    # 0404 b): 20 days from knowledge of the Laudo (Fri 6 Feb 2026) end Thu 26 Feb; no
    # defence came, so a judgment on the 26th is refused and one on 10 March is not
    form = page.locator("#workflow")
    for attempt in range(3):
        # a late event of the move before can redraw the detail while the form is being
        # filled (a loaded machine): the fields then belong to a form no longer shown
        try:
            form.locator("select[name=status]").select_option("judged", timeout=5_000)
            form.locator("[name='decision.date']").fill("26/02/2026", timeout=5_000)
            form.locator("[name='decision.outcome']").select_option("procedente", timeout=5_000)
            form.locator("button[type=submit]").click(timeout=5_000)
            form.locator(".msg.error").wait_for(timeout=10_000)
            break
        except Exception:
            if attempt == 2:
                raise
    assert service.get(f"/leads/{lead_id}")["status"] == "infraction"
    _move(
        page, service, lead_id, "judged",
        {"decision.date": "10/03/2026", "decision.outcome": "procedente",
         "decision.penalty": "multa", "decision.fine_brl": "7000"},
    )  # fmt: skip
    decided = service.get(f"/leads/{lead_id}")["procedure"]["decisions"][-1]
    assert decided["fine_brl"] == 7000 and decided["penalty"] == "multa"
    assert "appeal" in _offered(page)
    watched.doc_shot("07-pollution-judged")
