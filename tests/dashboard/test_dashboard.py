"""The dashboard in the Debian chromium against a real ``vigia serve`` fed over TCP."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.support.dashboard import Service, Watched, platform_pass

pytestmark = pytest.mark.slow


def _rendered(page: Any, layers: list[str]) -> int:
    return int(
        page.evaluate(
            "(ls) => window.__vigia.map.map.queryRenderedFeatures({layers: ls}).length", layers
        )
    )


def _fit(page: Any, bounds: list[list[float]]) -> None:
    page.evaluate("(b) => window.__vigia.map.map.fitBounds(b, {duration: 0})", bounds)
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)


RIO = [[-43.32, -23.05], [-43.08, -22.85]]


def test_page_loads_offline_with_no_console_errors(service: Service, watched: Watched) -> None:
    watched.sign_in(service)
    watched.page.wait_for_timeout(500)
    watched.shot("coast")
    errors = [text for kind, text in watched.console if kind == "error"]
    assert errors == [] and watched.errors == []
    hosts = {urlparse(u).hostname for u in watched.requests if not u.startswith(("data:", "blob:"))}
    assert hosts == {"127.0.0.1"}, watched.requests
    # the map library is the vendored copy, served by the app
    assert any(u.endswith("/ui/vendor/maplibre-gl/maplibre-gl.mjs") for u in watched.requests)


def test_json_clients_still_get_the_ogc_landing(service: Service) -> None:
    req = urllib.request.Request(service.base + "/", headers={"Accept": "text/html"})
    with urllib.request.urlopen(req, timeout=30) as r:
        csp = r.headers["Content-Security-Policy"]
        assert r.headers["Content-Type"].startswith("text/html") and b"maplibre" in r.read()
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    landing = service.get("/")
    assert landing["title"] == "Vigia" and any(
        ln["rel"] == "conformance" for ln in landing["links"]
    )


def test_zones_vessels_and_ballast_lines_are_drawn(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    assert _rendered(page, ["line-200"]) > 0 and _rendered(page, ["line-50"]) > 0
    assert _rendered(page, ["line-iso"]) > 0 and _rendered(page, ["land-fill"]) > 0
    _fit(page, RIO)
    assert _rendered(page, ["zone-fill"]) >= 2  # Copacabana and Ipanema bands at least
    assert _rendered(page, ["vessel-all", "vessel-arrow", "vessel-dot"]) >= 3
    watched.shot("rio")
    # a layer switch hides what it names
    page.uncheck("[data-layer=vessels]")
    # the switch takes effect on the map's next frame, which a loaded machine delays
    page.wait_for_function(
        "(ls) => window.__vigia.map.map.queryRenderedFeatures({layers: ls}).length === 0",
        arg=["vessel-all", "vessel-arrow", "vessel-dot"],
        timeout=10_000,
    )
    page.check("[data-layer=vessels]")


def test_places_and_zones_are_named_on_the_map(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    label = "#map .map-label-{}:text-is('{}')"
    # the lead list, drawn before the zones arrived, names the zone once they have
    page.wait_for_selector("body[data-loaded=true]", timeout=30_000)
    row = page.locator("#lead-list li", has_text="DEMO LANCHA RAPIDA")
    assert "Praia de Copacabana" in row.inner_text() and "beach-copacabana" not in row.inner_text()
    # and the filters above it fit the panel (a long authority or zone name in a select
    # pushed "Zona" and "Situação" past the screen's edge)
    right = page.evaluate("document.querySelector('aside.side').getBoundingClientRect().right")
    edges = page.evaluate(
        "[...document.querySelectorAll('#lead-filters select')]"
        ".map((e) => e.getBoundingClientRect().right)"
    )
    assert edges and max(edges) <= right, (edges, right)
    # the whole coast: no names (the register's towns would overlap)
    _fit(page, [[-54.5, -34.5], [-28.5, 5.5]])
    assert page.locator("#map .map-label:visible").count() == 0
    # the south-east: the Capitanias' towns, not yet the Delegacias' or the zones'
    _fit(page, [[-48.0, -25.5], [-40.0, -21.0]])
    page.locator(label.format("place", "Rio de Janeiro")).wait_for(timeout=5_000)
    assert page.locator(label.format("place", "Santos")).is_visible()
    assert not page.locator(label.format("place", "Angra dos Reis")).is_visible()
    assert not page.locator(label.format("zone", "Praia de Copacabana")).is_visible()
    # at the beaches the zones are named too
    _fit(page, RIO)
    page.locator(label.format("zone", "Praia de Copacabana")).wait_for(timeout=5_000)
    assert page.locator(label.format("place", "Rio de Janeiro")).is_visible()
    watched.shot("rio-names")
    page.uncheck("[data-layer=labels]")
    assert not page.locator(label.format("zone", "Praia de Copacabana")).is_visible()
    page.check("[data-layer=labels]")


def test_a_new_lead_appears_without_a_reload(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    assert page.evaluate("window.__vigia.features.stream")  # the panel is fed by SSE
    before = page.locator("#lead-list li").count()
    assert service.feed is not None
    mmsi = 710_998_001
    sent = service.feed.send(platform_pass(mmsi, time.time() - 400, name="TEST AO VIVO"))
    # when the lead is in the store (polled here, not in the page), the page must show it
    service.wait_leads(1, 30, mmsi=mmsi)
    stored = time.time()
    row = page.locator("#lead-list li", has_text="TEST AO VIVO")
    row.wait_for(timeout=1000)  # within a second of the store, without a reload
    shown = time.time()
    assert page.locator("#lead-list li").count() == before + 1
    print(f"sent->stored {stored - sent:.2f} s, stored->row {shown - stored:.2f} s")


def test_selecting_a_lead_draws_its_track(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    page.locator("#lead-list li", has_text="DEMO TANKER").locator("button").click()
    page.wait_for_selector("#lead-detail:not([hidden])")
    page.wait_for_function("window.__vigia.map.map.loaded()")
    assert _rendered(page, ["sel-path"]) == 1
    assert _rendered(page, ["sel-closest"]) == 1
    detail = page.locator("#lead-detail").inner_text()
    # the rule in words, its code the heading's hover hint (issue 35: no raw code shown)
    assert "NORMAM-07/DPC 0212 f)" in detail and "plataforma" in detail
    assert page.locator("#lead-detail h3").get_attribute("title") == "SEC-PLATFORM"
    assert page.locator(".maplibregl-popup-content", has_text=" m").count() >= 1
    watched.shot("lead-selected")


def test_a_viewer_is_not_offered_workflow_and_cannot_change_a_lead(
    service: Service, watched: Watched
) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    page.locator("#lead-list li", has_text="DEMO JET").locator("button").click()
    page.wait_for_selector("#lead-detail:not([hidden])")
    assert page.locator("#workflow").count() == 0
    assert page.locator("#audit-form").is_hidden()
    lead_id = page.locator("#lead-list li", has_text="DEMO JET").get_attribute("data-id")
    status = page.evaluate(
        """async (id) => (await fetch('/leads/' + encodeURIComponent(id), {method: 'PATCH',
            headers: {'X-API-Key': sessionStorage.getItem('vigia.key'),
                      'Content-Type': 'application/json'},
            body: JSON.stringify({status: 'dismissed'})})).status""",
        lead_id,
    )
    assert status == 403
    assert service.get(f"/leads/{lead_id}")["status"] == "new"


def test_an_inspector_moves_a_lead_from_the_panel(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "inspector")
    page = watched.page
    row = page.locator("#lead-list li", has_text="DEMO VELEIRO AFOITO")
    row.locator("button").click()
    form = page.locator("#workflow")
    form.wait_for()
    option = form.locator("select[name=status] option").nth(0)
    target, label = option.get_attribute("value"), option.inner_text()
    form.locator("select[name=status]").select_option(target)
    form.locator("button[type=submit]").click()
    lead_id = row.get_attribute("data-id")
    deadline = time.monotonic() + 5
    while service.get(f"/leads/{lead_id}")["status"] != target:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    page.wait_for_selector("#lead-detail .notice:text-matches('Situação alterada')")
    assert row.locator(".st").inner_text() == label


def test_portuguese_by_default_and_english_on_request(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    assert page.locator("html").get_attribute("lang") == "pt-BR"
    assert page.locator("#tab-leads").inner_text() == "Indícios"
    first_time = page.locator("#lead-list time").first
    assert first_time.get_attribute("title").endswith("UTC")
    page.select_option("#lang", "en")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("#tab-leads").inner_text() == "Leads"
    assert page.locator("#tab-ballast").inner_text() == "Ballast water"
    assert "leads" in page.locator("#lead-count").inner_text()
    watched.shot("english")
    page.select_option("#lang", "pt-BR")
    assert page.locator("#tab-ballast").inner_text() == "Água de lastro"


def test_keyboard_reaches_the_leads(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    page.locator("#lead-list li button").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#lead-detail:not([hidden])")
    # every lead row says its rule in text, not only in colour
    for text in page.locator("#lead-list .badge").all_inner_texts():
        assert any(c.isalpha() for c in text)


def test_ballast_panel_classifies_a_vessel_route(service: Service, watched: Watched) -> None:
    watched.sign_in(service, "inspector")
    page = watched.page
    page.click("#tab-ballast")
    form = page.locator("#ballast-form")
    form.locator("input[name=mmsi]").fill("710999007")
    form.locator("input[name=start]").fill("2026-01-10T10:00")
    form.locator("input[name=end]").fill("2026-01-10T13:00")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#ballast-out table")
    out = page.locator("#ballast-out").inner_text()
    assert "pontos classificados" in out and "50 e 200 mn" in out
    assert _rendered(page, ["ballast-seg"]) > 0
    assert page.locator("#audit-form").is_visible()


def test_an_inspector_works_a_lead_to_a_drafted_auto(
    service: Service, watched: Watched, tmp_path: Path
) -> None:
    # a lead of its own, so no other test's moves decide where it starts
    assert service.feed is not None
    mmsi = 710_998_002
    service.feed.send(platform_pass(mmsi, time.time() - 400, name="TEST AUTO"))
    service.wait_leads(1, 30, mmsi=mmsi)
    watched.sign_in(service, "inspector")
    page = watched.page
    row = page.locator("#lead-list li", has_text="TEST AUTO")
    row.wait_for(timeout=5000)
    row.locator("button").click()
    form = page.locator("#workflow")
    form.wait_for()
    form.locator("select[name=status]").select_option("triaged")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#lead-detail .notice:text-matches('Situação alterada')")
    lead_id = row.get_attribute("data-id")
    assert service.get(f"/leads/{lead_id}")["status"] == "triaged"
    # the drafted Auto de Infração arrives as a file the officer can print
    with page.expect_download(timeout=30_000) as caught:
        page.locator("#lead-detail button", has_text="Auto de Infração").click()
    pdf = tmp_path / caught.value.suggested_filename
    caught.value.save_as(pdf)
    assert pdf.name.endswith(".pdf") and pdf.read_bytes().startswith(b"%PDF-")
    text = " ".join(
        subprocess.run(
            ["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True
        ).stdout.split()
    )
    assert "AUTO DE INFRAÇÃO" in text.upper() and str(mmsi) in text
    assert "NORMAM-07/DPC 0212 f)" in text


def test_an_inspector_audits_an_exchange_from_the_form(service: Service, watched: Watched) -> None:
    # the declared exchange runs between two of the tanker's own reported positions
    track = service.get(
        "/vessels/710999007/track?start=2026-01-10T13:00:00Z&end=2026-01-10T16:00:00Z"
    )
    points = [f for f in track["features"] if f["geometry"]["type"] == "Point"]
    assert len(points) >= 2
    first, last = points[0], points[-1]

    def local(feature: dict[str, Any]) -> str:
        # the form takes São Paulo time (UTC-3), to the minute
        t = datetime.fromisoformat(feature["properties"]["t"]) - timedelta(hours=3)
        return t.strftime("%Y-%m-%dT%H:%M")

    watched.sign_in(service, "inspector")
    page = watched.page
    page.click("#tab-ballast")
    form = page.locator("#audit-form")
    lon0, lat0 = first["geometry"]["coordinates"]
    lon1, lat1 = last["geometry"]["coordinates"]
    for name, value in {
        "mmsi": "710999007", "st": local(first), "slat": f"{lat0:.5f}", "slon": f"{lon0:.5f}",
        "et": local(last), "elat": f"{lat1:.5f}", "elon": f"{lon1:.5f}", "volume": "12000",
    }.items():  # fmt: skip
        form.locator(f"[name={name}]").fill(value)
    form.locator("button[type=submit]").click()
    out = page.locator("#audit-out")
    out.locator("table").wait_for(timeout=30_000)
    cell = out.locator("td:nth-child(2)").first
    verdict, said = cell.get_attribute("data-verdict"), cell.inner_text()
    summary = out.locator("p").inner_text()
    assert "indícios gerados" in summary
    audit_id = summary.rsplit("·", 1)[1].strip()
    # what the page showed is what the store keeps for the five years BW-RECORD asks
    stored = service.get(f"/ballast/audits/{audit_id}")
    assert stored["mmsi"] == 710999007
    assert [x["verdict"] for x in stored["exchanges"]] == [verdict]
    words = {"compliant": "conforme", "compliant_fallback": "conforme (troca em águas b))",
             "noncompliant": "não conforme", "unverified": "não verificável"}  # fmt: skip
    assert said == words[verdict]  # in the officer's language, not the API's code
    # and why, in the officer's language too: from the reasons' codes and figures, never
    # the API's English sentences
    why = out.locator("td:nth-child(3)").first.inner_text()
    pt = {"no_fix": "nenhuma posição AIS dentro da tolerância de horário",
          "off_declared": "mn da posição declarada",
          "meets_200": "início, fim e cada posição AIS entre eles além de 200 mn",
          "fallback": "a viagem não ofereceu", "not_50": "nem sequer além de 50 mn da terra",
          "a_water_available": "havia águas a) por"}  # fmt: skip
    codes = [c["code"] for c in stored["exchanges"][0]["reason_codes"]]
    assert codes and all(pt[c] in why for c in codes), (codes, why)
    assert not any(en in why for en in stored["exchanges"][0]["reasons"])
    watched.shot("audit")


def test_a_zone_says_where_it_came_from(service: Service, watched: Watched) -> None:
    # issue 40: hovering a zone shows its source (here the bundled Ilha Fiscal point's,
    # data/geojson/military_guanabara.geojson) beside its name and kind
    watched.sign_in(service, "viewer")
    page = watched.page
    fiscal = [-43.166447, -22.896981]
    _fit(page, [[fiscal[0] - 0.01, fiscal[1] - 0.01], [fiscal[0] + 0.01, fiscal[1] + 0.01]])
    box = page.locator("#map canvas").bounding_box()
    x, y = page.evaluate(
        "(p) => { const q = window.__vigia.map.map.project(p); return [q.x, q.y]; }", fiscal
    )
    page.mouse.move(box["x"] + x, box["y"] + y)
    popup = page.locator(".maplibregl-popup-content", has_text="Ilha Fiscal")
    popup.wait_for(timeout=5_000)
    assert "Fonte: named_points.csv row 3: Wikipedia 'Ilha Fiscal'" in popup.inner_text()


def test_an_admin_imports_a_register_from_the_page(
    service: Service, watched: Watched, tmp_path: Path
) -> None:
    # issue 40: the page sends the file to POST /zones/imports and redraws the zones; a
    # viewer is not offered the form
    watched.sign_in(service, "viewer")
    assert watched.page.locator("#zone-import-form").is_hidden()
    service.keys.setdefault("admin", service.add_key("admin", "admin-ui"))
    watched.page.click("#signout")
    watched.page.wait_for_selector("#key", state="visible")
    watched.sign_in(service, "admin")
    page = watched.page
    register = tmp_path / "pier.csv"
    register.write_text(
        "kind,name,lat,lon,source,date\n"
        "military,Base Naval do Rio (ui test),-22.8745,-43.1342,test register,2026-12-04\n",
        encoding="utf-8",
    )
    page.locator("details.zone-import summary").click()
    page.set_input_files("#zone-import-file", str(register))
    page.click("#zone-import-form button[type=submit]")
    out = page.locator("#zone-import-out", has_text="1 novas")
    out.wait_for(timeout=15_000)
    # the map's zones were loaded again: the new zone is among the named ones
    page.wait_for_function(
        "() => window.__vigia.map.zoneNames.has('military-base-naval-do-rio-ui-test')",
        timeout=15_000,
    )
