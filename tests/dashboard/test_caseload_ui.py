"""A year of leads on the page (issue 39): the lead panel asks the server for its list.

A real ``vigia serve`` holds 700 leads stored through the repository, two a day back
over 350 days (each pair shares a start, so the id breaks the tie); the oldest 150 have a
rule and an authority no newer lead has, and one of them, far past the first page, is
assigned to the officer signed in. In Debian's chromium the list is the server's pages
of 100: "Carregar mais" walks to the end in the server's order with no lead twice, the
filters reach the old leads (the rule from the service's catalogue, the authority by a
shared link), "meus indícios" finds the old assignment, the count is the server's (an
estimate said as one), and a lead from the stream comes on top."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from sqlalchemy import update

from tests.storage.builders import lead
from tests.support.dashboard import P52_ID, Service, Watched, platform_pass
from vigia.alerts.lead import EvidencePoint
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.models import LeadRow
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.store import open_repository

pytestmark = pytest.mark.slow

ANA = "Ana Lima"
N, OLD = 700, 150  # the oldest OLD leads: a rule and an authority of their own
RIO = "Capitania dos Portos do Rio de Janeiro"
AMAPA = "Capitania dos Portos do Amapá"
MINE = 620  # assigned to Ana: older than the first 500
DUE_EVERY = 37  # every 37th lead has a pending deadline (sort=due)
ROWS = "#lead-list li"


def _id(i: int) -> str:
    return hashlib.sha256(f"caseload-{i}".encode()).hexdigest()[:32]


def _leads(now: float) -> list[Any]:
    out = []
    for i in range(N):
        start = now - 3_600.0 - (i // 2) * 86_400.0
        old = i >= N - OLD
        ev = [EvidencePoint(start, -40.01, -22.5, 8.5, 90.0, 0, 300.0),
              EvidencePoint(start + 60, -40.0, -22.5, 8.0, 91.0, 0, 120.0)]  # fmt: skip
        out.append(
            lead(
                _id(i),
                mmsi=710_100_000 + i,
                rule="ATON-DAMAGE" if old else "SEC-PLATFORM",
                zone_id=P52_ID,
                started_at=start,
                ended_at=start + 600.0,
                closest_t=start + 60.0,
                evidence=ev,
                vessel={"name": f"CASO {i:03d}", "ship_type": 30},
                authority=AMAPA if old else RIO,
            )
        )
    return out


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("caseload")).start(names={"inspector": ANA})
    repo = open_repository(f"sqlite:///{svc.workdir / 'vigia.sqlite'}")
    try:
        repo.upsert_leads(_leads(time.time()))
        entry = {"officer": ANA, "by": "chefe", "at": "2026-01-05T10:00:00Z"}
        move = Move(to=None, reason=None, data={"assignment": entry})
        assert repo.move_lead(_id(MINE), move, Actor("chefe", "admin"), scope=EVERY_AUTHORITY)
        engine: Any = repo.engine  # type: ignore[attr-defined]
        with engine.begin() as conn:
            for i in range(0, N, DUE_EVERY):
                due = f"2026-03-{1 + i % 28:02d}"
                conn.execute(update(LeadRow).where(LeadRow.id == _id(i)).values(due_on=due))
    finally:
        repo.close()
    try:
        yield svc
    finally:
        svc.stop()


def _server(svc: Service, query: str) -> list[str]:
    """Every lead of a query in the server's order, walked by its next links."""
    url: str | None = "/leads?limit=500&" + query
    ids: list[str] = []
    while url is not None:
        parts = urlsplit(url)
        body = svc.get(parts.path + "?" + parts.query)
        ids += [x["id"] for x in body["leads"]]
        url = next((x["href"] for x in body["links"] if x["rel"] == "next"), None)
    return ids


def _sign_in(w: Watched, svc: Service, hash_part: str = "") -> None:
    w.page.goto(svc.base + "/" + hash_part)
    w.page.fill("#key", svc.keys["inspector"])
    w.page.click("#signin-form button[type=submit]")
    w.page.wait_for_selector("body[data-loaded=true]", state="attached", timeout=60_000)


def _rows(page: Any, n: int) -> list[str]:
    page.wait_for_function("(n) => document.querySelectorAll('#lead-list li').length === n", arg=n)
    return [str(x) for x in page.eval_on_selector_all(ROWS, "els => els.map((e) => e.dataset.id)")]


def _count(page: Any) -> str:
    return str(page.locator("#lead-count").inner_text())


def _asked(w: Watched) -> list[dict[str, list[str]]]:
    """The query of each /leads list the page asked for, in order."""
    return [parse_qs(urlsplit(u).query) for u in w.requests if urlsplit(u).path == "/leads"]


def test_load_more_walks_the_servers_list_to_the_end(year: Service, watched: Watched) -> None:
    _sign_in(watched, year)
    page = watched.page
    expected = _server(year, "sort=newest")
    total = len(expected)
    first = _rows(page, 100)
    assert first == expected[:100]
    assert _count(page) == f"{total} indícios (100 exibidos)"
    watched.shot("caseload-first")
    # one page of 100 was asked for, never the old 500, and beside it the newest
    # distress beacons (none here), which stay on top of any list
    asked = _asked(watched)
    assert sorted(asked, key=str) == [
        {"sort": ["newest"], "limit": ["100"]},
        {"sort": ["newest"], "limit": ["20"], "rule": ["SAR-DISTRESS"]},
    ]
    more = page.locator("#lead-list + button.more")
    assert more.inner_text() == "Carregar mais"
    shown = 100
    while more.is_visible():
        more.click()
        shown = min(total, shown + 100)
        _rows(page, shown)
    seen = _rows(page, total)
    assert len(set(seen)) == len(seen) == total, "a lead came twice"
    assert seen == expected
    assert _count(page) == f"{total} indícios ({total} exibidos)"
    # each page followed the server's next link: a cursor, no offset
    pages = [q for q in _asked(watched) if "cursor" in q]
    assert len(pages) == (total - 1) // 100 and not any("offset" in q for q in pages)
    # the oldest lead is there, a year back, and opens like any other
    last = page.locator(ROWS).last
    name = last.locator(".who").inner_text()
    assert name in (f"CASO {N - 1}", f"CASO {N - 2}")  # a pair: the id breaks the tie
    last.scroll_into_view_if_needed()
    last.locator("button").click()
    page.locator("#lead-detail h3", has_text=name).wait_for()
    watched.shot("caseload-end")
    assert not watched.errors


def test_filters_reach_leads_older_than_the_first_pages(year: Service, watched: Watched) -> None:
    _sign_in(watched, year)
    page = watched.page
    _rows(page, 100)
    # the rule filter offers the service's rules, not only the loaded leads' ones
    rules = page.locator("[name=rule] option").all_inner_texts()
    assert "dano a sinal náutico" in rules, rules
    page.locator("[name=rule]").select_option("ATON-DAMAGE")
    expected = _server(year, "rule=ATON-DAMAGE")
    assert len(expected) == OLD
    page.wait_for_function("document.querySelector('#lead-count').innerText.startsWith('150 ')")
    assert _rows(page, 100) == expected[:100]
    assert _count(page) == "150 indícios (100 exibidos)"
    assert "rule=ATON-DAMAGE" in page.url
    assert set(page.eval_on_selector_all(ROWS, "els => els.map((e) => e.dataset.rule)")) == {
        "ATON-DAMAGE"
    }
    page.locator("#lead-list + button.more").click()
    assert _rows(page, OLD) == expected
    assert page.locator("#lead-list + button.more").is_hidden()
    # the newer leads' authority only, now that the old ones are loaded too
    authorities = page.locator("[name=authority] option").all_inner_texts()
    assert AMAPA in authorities and RIO in authorities

    # "meus indícios": the one lead assigned to Ana, 620 leads back
    page.locator("[name=rule]").select_option("")
    page.locator("[name=mine]").check()
    page.wait_for_function("document.querySelector('#lead-count').innerText.startsWith('1 ')")
    assert _rows(page, 1) == [_id(MINE)]
    assert _count(page) == "1 indício (1 exibido)"
    assert any(q.get("assignee") == [ANA] for q in _asked(watched))
    assert "mine=1" in page.url
    watched.shot("caseload-mine")
    page.locator("[name=mine]").uncheck()

    # the deadline order is the server's too
    page.locator("[name=sort]").select_option("due")
    due = _server(year, "sort=due")
    page.wait_for_function(
        "(id) => document.querySelector('#lead-list li')?.dataset.id === id", arg=due[0]
    )
    assert _rows(page, 100) == due[:100]
    assert "vence 01/03/2026" in page.locator(ROWS).first.inner_text()  # its deadline
    assert not watched.errors


def test_a_shared_link_with_filters_opens_that_list(year: Service, watched: Watched) -> None:
    # an authority no lead of the first pages has: the link's value is offered as set
    _sign_in(watched, year, "#/?authority=" + quote(AMAPA))
    page = watched.page
    expected = _server(year, "authority=" + quote(AMAPA))
    assert _rows(page, 100) == expected[:100]
    assert _count(page) == "150 indícios (100 exibidos)"
    assert page.locator("[name=authority]").input_value() == AMAPA
    # the page asked for that list first, not the whole list and then a filter
    first = _asked(watched)[0]
    assert first["authority"] == [AMAPA] and first["limit"] == ["100"]
    assert not watched.errors


ESTIMATE = re.compile(r"/leads\?")


def test_an_estimated_count_is_said_as_one(year: Service, watched: Watched) -> None:
    """Past 10,000 matches the server estimates (numberMatchedExact false): the page says
    "cerca de", never a number as if counted (the answer is rewritten in the browser)."""

    def estimate(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body.update(numberMatched=25_000, numberMatchedExact=False)
        route.fulfill(response=answer, body=json.dumps(body))

    watched.page.route(ESTIMATE, estimate)
    _sign_in(watched, year)
    page = watched.page
    _rows(page, 100)
    assert _count(page) == "cerca de 25.000 indícios (100 exibidos)"
    page.select_option("#lang", "en")
    assert _count(page) == "about 25,000 leads (100 shown)"
    assert page.locator("#lead-list + button.more").inner_text() == "Load more"
    page.select_option("#lang", "pt-BR")
    assert not watched.errors


def test_a_lead_from_the_stream_comes_on_top(year: Service, watched: Watched) -> None:
    _sign_in(watched, year)
    page = watched.page
    page.wait_for_selector("#live[data-state=live]", timeout=10_000)
    before = len(_server(year, "sort=newest"))
    _rows(page, 100)
    assert _count(page) == f"{before} indícios (100 exibidos)"
    assert year.feed is not None
    year.feed.send(platform_pass(710_998_701, time.time() - 400, name="CASO AO VIVO"))
    top = page.locator(f"{ROWS}:first-child", has_text="CASO AO VIVO")
    top.wait_for(timeout=30_000)
    assert _count(page) == f"{before + 1} indícios (101 exibidos)"
    # with a filter it does not meet, it stays out of the list
    page.locator("[name=rule]").select_option("ATON-DAMAGE")
    page.wait_for_function("document.querySelector('#lead-count').innerText.startsWith('150 ')")
    assert page.locator(ROWS, has_text="CASO AO VIVO").count() == 0
    assert not watched.errors
