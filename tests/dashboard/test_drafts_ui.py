"""What-if on the page (issue 36): an admin uploads a draft, sees it on the map beside the
zones in force, tries it on yesterday's traffic with the progress on the job's SSE stream
(and again with the stream refused, by polling), reads the report and the new, kept and
gone leads on the map, is refused publication in Portuguese because the new zone's
busiest day is over its budget, gives a reason, and the zones are in force; a polygon
drawn on the map is a draft too, which is dropped. Debian's chromium against a real
``vigia serve`` fed over TCP.

The draft restates platform P-52 with its ring narrowed from 500 m to 250 m and adds a
new platform, a small polygon 4 km north of it that three tankers steam through:

- KEPT starts 150 m east of P-52, inside both rings: its P-52 lead opens on the same fix
  either way (a lead's id is its vessel, rule, zone and first position), so it is kept;
- GONE passes 400 m east of P-52: a lead of the 500 m ring, none of the 250 m one;
- all three cross the new polygon: 3 new leads, on one day, against a budget of 2.

By hand: 4 leads of the draft (3 new, 1 kept), 1 gone, 3 vessels, all SEC-PLATFORM,
all on yesterday (UTC); P-Nova 3 in its busiest day, P-52 1.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from scripts import aisgen
from tests.support.dashboard import P52_ID, Service, Watched

pytestmark = pytest.mark.slow

KEPT, GONE, NEW = 710_360_001, 710_360_002, 710_360_003
NOVA = "platform-p-nova-ui"
NOVA_NAME = "P-Nova (teste)"
YESTERDAY = (datetime.now(UTC) - timedelta(days=1)).replace(hour=12, minute=0, second=0)
T0 = YESTERDAY.timestamp()
DAY = YESTERDAY.strftime("%Y-%m-%d")
N_FIXES = 150  # 10 s apart at 12 kn: 9.3 km, past P-52 and through P-Nova
REASON = "FPSO nova em operação: tráfego de apoio esperado nas primeiras semanas"
OVER_PT = (
    "No dia mais movimentado do teste, a zona P-Nova (teste) teria 3 indícios, acima do "
    "limite de 2 por dia. Informe um motivo para publicar mesmo assim."
)
OVER_EN = (
    "On the backtest's busiest day, zone P-Nova (teste) would raise 3 leads, over its "
    "budget of 2 a day. Give a reason to publish it anyway."
)


def _p52() -> tuple[float, float]:
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    g = next(z for z in load_zones([bundled_zones_dir()]) if z.id == P52_ID).geometry
    return float(g.x), float(g.y)


def _traffic() -> list[str]:
    x, y = _p52()
    starts = {
        KEPT: aisgen.fwd(*aisgen.fwd(x, y, 90, 150), 180, 100),  # inside 250 m from its first fix
        GONE: aisgen.fwd(*aisgen.fwd(x, y, 90, 400), 180, 2_000),
        NEW: aisgen.fwd(*aisgen.fwd(x, y, 90, 900), 180, 2_000),
    }
    out: list[str] = []
    timed: list[tuple[float, str]] = []
    for k, (mmsi, start) in enumerate(starts.items()):
        t0 = T0 + 600 * k
        out += aisgen.static_lines(mmsi, t0 - 30, name=f"TANQUE {k + 1}", ship_type=80,
                                   length_m=200)  # fmt: skip
        fixes = aisgen.run(*start, course=0, sog_kn=12.0, t0=t0, dt_s=10, n=N_FIXES)
        timed += aisgen.lines_for(mmsi, fixes)
    return out + [s for _, s in sorted(timed)]


def _draft(svc: Service) -> dict[str, Any]:
    """P-52 as in force with a 250 m ring, and P-Nova: a 1.4 km by 300 m polygon 4 km
    north of P-52, from 200 m west of it to 1,200 m east."""
    item = svc.get(f"/collections/zones/items/{P52_ID}", "admin")
    p52 = {"type": "Feature", "geometry": item["geometry"],
           "properties": {"id": P52_ID, "kind": "platform", "name": item["properties"]["name"],
                          "distance_m": 250}}  # fmt: skip
    x, y = _p52()
    c = aisgen.fwd(x, y, 0, 4_000)
    w, e = aisgen.fwd(*c, 270, 200), aisgen.fwd(*c, 90, 1_200)
    s, n = aisgen.fwd(*c, 180, 150)[1], aisgen.fwd(*c, 0, 150)[1]
    ring = [[w[0], s], [e[0], s], [e[0], n], [w[0], n], [w[0], s]]
    nova = {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]},
            "properties": {"id": NOVA, "kind": "platform", "name": NOVA_NAME}}  # fmt: skip
    return {"type": "FeatureCollection", "features": [p52, nova]}


@pytest.fixture(scope="module")
def yard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("drafts")).start()
    try:
        svc.keys["admin"] = svc.add_key("admin", "admin-ui")
        assert svc.feed is not None
        svc.feed.send(_traffic())
        svc.wait_leads(1, timeout=90, mmsi=GONE)  # the zones in force saw it live
        # every fix of the last vessel is stored before anything is tried
        end = YESTERDAY + timedelta(hours=2)
        span = f"start={quote(YESTERDAY.isoformat())}&end={quote(end.isoformat())}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            track = svc.get(f"/vessels/{NEW}/track?{span}")
            if sum(f["geometry"]["type"] == "Point" for f in track["features"]) == N_FIXES:
                break
            time.sleep(0.2)
        else:
            raise TimeoutError("the last vessel's fixes were not all stored")
        yield svc
    finally:
        svc.stop()


def _marks(page: Any) -> Counter[str]:
    """The backtest's points the map draws, by their mark."""
    feats = page.evaluate(
        "() => window.__vigia.map.map.queryRenderedFeatures({layers: ['draft-lead']})"
        ".map((f) => f.properties.change)"
    )
    return Counter(str(x) for x in feats)


def _table(page: Any, key: str) -> dict[str, list[str]]:
    rows = page.locator(f"#draft-result [data-report={key}] tbody tr")
    return {
        str(r.get_attribute("data-key")): [str(x) for x in r.locator("td").all_inner_texts()]
        for r in rows.all()
    }


def _run(page: Any) -> None:
    page.select_option("#draft-try [name=period]", "7d")
    page.click("#draft-try button[name=run]")
    page.wait_for_selector("#draft-progress[data-state=done]", timeout=120_000)
    page.wait_for_selector("#draft-result .report")
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)


def test_an_admin_tries_a_draft_and_publishes_it_with_a_reason(
    yard: Service, watched: Watched, tmp_path: Path
) -> None:
    page = watched.page
    # not offered to an inspector
    watched.sign_in(yard, "inspector")
    assert page.locator("#tab-drafts").is_hidden()
    page.click("#signout")
    page.wait_for_selector("#key", state="visible")
    watched.sign_in(yard, "admin")
    page.click("#tab-drafts")
    assert page.locator("#panel-drafts").is_visible()
    page.locator("#draft-list li", has_text="Nenhum rascunho ainda.").wait_for()  # asked on opening

    # 1. upload, 2. drawn beside the zones in force
    path = tmp_path / "p-nova.geojson"
    path.write_text(json.dumps(_draft(yard)), encoding="utf-8")
    page.fill("#draft-form [name=name]", "FPSO P-Nova")
    page.set_input_files("#draft-form [name=file]", str(path))
    page.click("#draft-form button[type=submit]")
    page.wait_for_selector("#draft-detail:not([hidden])")
    (draft,) = yard.get("/drafts", "admin")["drafts"]
    assert draft["name"] == "FPSO P-Nova" and draft["state"] == "draft"
    assert page.locator("#draft-msg").inner_text() == (
        f"Rascunho #{draft['id']} criado: ainda não está em vigor."
    )
    assert page.locator("#draft-title").inner_text() == f"#{draft['id']} FPSO P-Nova · rascunho"
    zones = page.locator("#draft-zones li").all_inner_texts()
    assert any(z.startswith(f"{NOVA_NAME} · plataforma") for z in zones), zones
    assert any("· 250 m ·" in z and P52_ID in z for z in zones), zones
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    assert watched.rendered(["draft-fill"]) >= 2  # both zones' rule bands
    assert watched.rendered(["draft-line"]) >= 2
    assert watched.rendered(["zone-fill"]) >= 1  # P-52's ring in force, beside them
    assert page.locator("#draft-result").inner_text() == (
        "Ainda não testado como está: teste antes de publicar."
    )
    watched.shot("drafts-1-uploaded")

    # the new zone's budget: 2 leads a day
    page.select_option("#draft-budget [name=zone]", NOVA)
    page.fill("#draft-budget [name=n]", "2")
    page.click("#draft-budget button[type=submit]")
    said = "Limite de P-Nova (teste): 2 indícios por dia."
    page.wait_for_selector(f"#draft-budget-msg:text-is('{said}')")

    # 3. the backtest, its progress on the job's event stream
    _run(page)
    events = [u for u in watched.requests if re.search(r"/backtests/\d+/events$", u)]
    assert len(events) == 1
    assert page.locator("#draft-progress").get_attribute("data-via") == "stream"
    assert page.locator("#draft-progress span").inner_text() == "100 % · concluído"
    job = int(events[0].split("/")[-2])
    report = yard.get(f"/drafts/{draft['id']}", "admin")["backtest"]
    assert report == yard.get(f"/backtests/{job}", "admin")["report"]

    # 4. the numbers on the page are the report's, and the hand count's
    assert report["leads"] == 4 and report["vessels"] == 3
    assert report["difference"] == {"new": 3, "kept": 1, "gone": 1}
    assert report["per_day"] == {DAY: 4}
    assert report["by_zone"] == {P52_ID: 1, NOVA: 3}
    assert report["most_in_a_day"] == {P52_ID: 1, NOVA: 3}
    assert report["by_rule"] == {"SEC-PLATFORM": 4}
    summary = page.locator("#draft-result .summary").inner_text()
    assert summary.startswith(f"{report['leads']} indícios · {report['vessels']} embarcações · de ")
    marks = {c: page.locator(f"#draft-result [data-mark={c}] strong").inner_text()
             for c in ("new", "kept", "gone")}  # fmt: skip
    assert marks == {c: str(n) for c, n in report["difference"].items()}
    assert page.locator("#draft-result [data-mark=gone]").inner_text().startswith("sumidos: 1")
    day = f"{DAY[8:10]}/{DAY[5:7]}/{DAY[:4]}"
    assert _table(page, "per_day") == {d: [day, str(n)] for d, n in report["per_day"].items()}
    assert _table(page, "by_rule") == {"SEC-PLATFORM": ["plataforma", "4"]}
    by_zone = _table(page, "by_zone")
    assert by_zone[NOVA] == [NOVA_NAME, "3", "3"]
    assert by_zone[P52_ID][1:] == ["1", "1"]
    by_auth = _table(page, "by_authority")
    assert {k: v[1] for k, v in by_auth.items()} == {
        k: str(n) for k, n in report["by_authority"].items()
    }

    # the difference on the map: a point a lead, by its mark, as the export marks them
    geo = yard.get(f"/backtests/{job}/leads.geojson", "admin")
    exported = Counter(f["properties"]["change"] for f in geo["features"])
    assert exported == Counter({"new": 3, "kept": 1, "gone": 1})
    assert _marks(page) == exported
    # and the same leads as CSV, saved from the page
    with page.expect_download() as saved:
        page.click("#draft-result button[name=csv]")
    rows = Path(saved.value.path()).read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("id,change,mmsi")
    assert Counter(r.split(",")[1] for r in rows[1:]) == exported
    assert not watched.errors
    watched.shot("drafts-2-tried")
    watched.doc_shot("13-draft-backtest", "#app")

    # the same job polled when the stream is refused
    page.route(re.compile(r".*/backtests/\d+/events$"), lambda route: route.abort())
    _run(page)
    page.unroute(re.compile(r".*/backtests/\d+/events$"))
    assert page.locator("#draft-progress").get_attribute("data-via") == "poll"
    assert page.locator("#draft-result [data-mark=new] strong").inner_text() == "3"
    assert _marks(page) == exported

    # 5. over the budget without a reason: refused, said in Portuguese, the field asked for
    page.click("#draft-publish button[type=submit]")
    msg = page.locator("#draft-publish-msg")
    msg.wait_for(state="visible")
    page.wait_for_function("document.querySelector('#draft-publish-msg').textContent !== ''")
    assert msg.inner_text() == OVER_PT
    reason = page.locator("#draft-publish [name=reason]")
    assert reason.get_attribute("aria-invalid") == "true"
    assert page.evaluate("document.activeElement.name") == "reason"
    assert yard.get(f"/drafts/{draft['id']}", "admin")["state"] == "draft"
    with pytest.raises(Exception, match="404"):
        yard.get(f"/collections/zones/items/{NOVA}", "admin")
    # 6. and in English when switched
    page.select_option("#lang", "en")
    assert msg.inner_text() == OVER_EN
    assert page.locator("#tab-drafts").inner_text() == "Drafts"
    assert page.locator("#draft-result [data-mark=gone]").inner_text().startswith("gone: 1")
    watched.shot("drafts-3-over-budget-en")
    page.select_option("#lang", "pt-BR")
    assert msg.inner_text() == OVER_PT
    watched.shot("drafts-3-over-budget")

    # with a reason it is published, and the zones are in force
    reason.fill(REASON)
    page.click("#draft-publish button[type=submit]")
    state = page.locator("#draft-state-msg")
    state.wait_for(state="visible")
    page.wait_for_function("document.querySelector('#draft-state-msg').textContent !== ''")
    assert state.inner_text() == "Publicado: as zonas do rascunho estão em vigor."
    assert page.locator("#draft-title").inner_text().endswith("· publicado")
    assert page.locator("#draft-publish").is_hidden()
    nova = yard.get(f"/collections/zones/items/{NOVA}", "admin")
    assert nova["properties"]["name"] == NOVA_NAME
    p52 = yard.get(f"/collections/zones/items/{P52_ID}", "admin")["properties"]
    assert p52["distance_m"] == 250
    history = yard.get(f"/drafts/zones/{NOVA}/history", "admin")["history"]
    published = [h for h in history if h["action"] == "published"]
    assert published[0]["reason"] == REASON
    assert published[0]["detail"]["over_budget"] == {NOVA: {"most_in_a_day": 3, "budget": 2}}
    # the map's zones were loaded again: the new one is in force there
    page.wait_for_function(f"window.__vigia.map.zoneNames.get('{NOVA}') === '{NOVA_NAME}'")
    rows = page.locator("#draft-history tbody tr").all_inner_texts()
    assert [r.split("\t")[2] for r in rows] == ["criado", "testado", "testado", "publicado"]
    assert rows[-1].split("\t")[3] == REASON
    assert not watched.errors
    # the browser's own lines for the stream refused on purpose and the 409, nothing else
    refused = "Failed to load resource: the server responded with a status of 409 (Conflict)"
    expected = {"Failed to load resource: net::ERR_FAILED", refused}
    assert {text for kind, text in watched.console if kind == "error"} == expected
    watched.shot("drafts-4-published")


def test_a_polygon_drawn_on_the_map_is_a_draft_and_can_be_dropped(
    yard: Service, watched: Watched
) -> None:
    page = watched.page
    watched.sign_in(yard, "admin")
    page.click("#tab-drafts")
    page.locator("details.draw summary").click()
    page.fill("#draft-draw [name=name]", "Fundeadouro desenhado")
    page.select_option("#draft-draw [name=kind]", "anchorage")
    # zoomed in at sea east of P-52: the polygon is a few km across
    page.evaluate(
        "window.__vigia.map.map.fitBounds([[-39.65, -22.0], [-39.45, -21.85]], {duration: 0})"
    )
    page.click("#draft-draw button[name=start]")
    box = page.locator("#map canvas").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for dx, dy in [(-60, -40), (60, -40), (60, 40), (-60, 40)]:
        page.mouse.click(cx + dx, cy + dy)
    page.wait_for_selector("#draft-draw-count:text-is('4 vértices marcados')")
    assert page.locator("#tab-vessel").get_attribute("aria-selected") == "false"
    page.click("#draft-draw button[type=submit]")
    page.wait_for_selector("#draft-title:has-text('Fundeadouro desenhado')")
    drafts = yard.get("/drafts", "admin")["drafts"]
    drawn = yard.get(f"/drafts/{drafts[0]['id']}", "admin")
    (feature,) = drawn["features"]["features"]
    assert feature["properties"]["kind"] == "anchorage"
    assert feature["properties"]["name"] == "Fundeadouro desenhado"
    ring = feature["geometry"]["coordinates"][0]
    assert len(ring) == 5 and ring[0] == ring[-1]
    page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)
    assert watched.rendered(["draft-line"]) >= 1
    watched.shot("drafts-5-drawn")
    page.fill("#draft-publish [name=reason]", "desenhado só para ver")
    page.click("#draft-publish button[name=drop]")
    page.wait_for_selector("#draft-state-msg:text-is('Rascunho descartado.')")
    after = yard.get(f"/drafts/{drawn['id']}", "admin")
    assert after["state"] == "dropped"
    assert after["history"][-1]["reason"] == "desenhado só para ver"
    assert page.locator(f"#draft-list li[data-id='{drawn['id']}']").get_attribute("data-state") == (
        "dropped"
    )
    assert not watched.errors
