"""Cursor paging of the lead lists and counts that say whether they are exact (issue 39).

Following ``next`` from the first page to the last returns every lead exactly once in
the list's order, for both orders of ``GET /leads`` and for ``/collections/leads/items``,
while new leads arrive between the fetches (with OFFSET links each arrival shifted the
pages: a lead seen twice, another skipped). A cursor the server did not write is a 400.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import update

from tests.api.conftest import Api
from tests.storage.builders import T0, lead
from vigia.service.db import lead_pages
from vigia.service.db.models import LeadRow

pytestmark = pytest.mark.postgis
N = 40


def _seed(api: Api) -> None:
    """N leads, some sharing a start (ties broken by id), a third with a deadline."""
    api.repo.upsert_leads(
        [
            lead(f"L-{i:03d}", mmsi=710_000_000 + i, started_at=T0 + (i // 3) * 60.0)
            for i in range(N)
        ]
    )
    engine: Any = api.repo.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        for i in range(0, N, 3):
            day = f"2026-01-{1 + (i * 7) % 5:02d}"
            conn.execute(update(LeadRow).where(LeadRow.id == f"L-{i:03d}").values(due_on=day))


def _expected(api: Api, sort: str) -> list[str]:
    """The whole list in one page: the order every paging must keep."""
    r = api.client.get(f"/leads?sort={sort}&limit=1000", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    return [x["id"] for x in r.json()["leads"]]


def _next(body: dict[str, Any]) -> str | None:
    hrefs = [x["href"] for x in body["links"] if x["rel"] == "next"]
    return hrefs[0] if hrefs else None


def _follow(api: Api, first: str, key: str) -> Iterator[list[str]]:
    """Each page's ids, following ``next`` links (a new lead stored before each fetch)."""
    url: str | None = first
    fetched = 0
    while url is not None:
        parts = urlsplit(url)
        if fetched:
            assert "offset" not in parse_qs(parts.query) and "cursor" in parse_qs(parts.query)
            newer = T0 + 10_000.0 + fetched
            api.repo.upsert_leads([lead(f"N-{fetched:03d}", started_at=newer)])
        r = api.client.get(parts.path + "?" + parts.query, headers=api.h("viewer"))
        assert r.status_code == 200, r.text
        fetched += 1
        yield [x["id"] for x in r.json()[key]]
        url = _next(r.json())
        assert fetched < 100


@pytest.mark.parametrize("sort", ["newest", "due"])
def test_next_links_return_every_lead_once_in_order_while_leads_arrive(api: Api, sort: str) -> None:
    _seed(api)
    expected = _expected(api, sort)
    assert len(expected) == N
    pages = list(_follow(api, f"/leads?sort={sort}&limit=7", "leads"))
    seen = [i for page in pages for i in page]
    assert len(seen) == len(set(seen)), "a lead came twice"
    assert [i for i in seen if i.startswith("L-")] == expected
    assert len(pages) >= N // 7


def test_ogc_items_follow_cursors_too(api: Api) -> None:
    _seed(api)
    expected = _expected(api, "newest")
    pages = list(_follow(api, "/collections/leads/items?limit=6", "features"))
    seen = [i for page in pages for i in page]
    assert len(seen) == len(set(seen))
    assert [i for i in seen if i.startswith("L-")] == expected


def _cursor(body: dict[str, Any]) -> str:
    url = _next(body)
    assert url is not None
    return parse_qs(urlsplit(url).query)["cursor"][0]


def _b64(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def test_a_tampered_cursor_is_a_400_problem(api: Api) -> None:
    _seed(api)
    h = api.h("viewer")
    good = _cursor(api.client.get("/leads?limit=5", headers=h).json())
    assert api.client.get(f"/leads?limit=5&cursor={good}", headers=h).status_code == 200
    bad = [
        good[:-3] + "!!!",  # not base64url
        good[: len(good) // 2],  # truncated
        _b64({"s": "newest", "t": "1 OR 1=1", "id": "L-001"}),
        _b64({"s": "newest", "t": 1.0, "id": "L-001", "x": 1}),
        _b64(["newest", 1.0, "L-001"]),
        _b64({"s": "newest", "t": 1.0, "id": ""}),
        _b64({"s": "due", "t": 1.0, "id": "L-001", "d": "tomorrow"}),
    ]
    for cursor in bad:
        r = api.client.get("/leads", params={"limit": 5, "cursor": cursor}, headers=h)
        assert r.status_code == 400, (cursor, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["type"].endswith("invalid-cursor")
    # a cursor of one order is not a place in the other
    r = api.client.get("/leads", params={"sort": "due", "cursor": good}, headers=h)
    assert r.status_code == 400
    r = api.client.get("/collections/leads/items", params={"cursor": bad[2]}, headers=h)
    assert r.status_code == 400


def test_counts_say_whether_they_are_exact(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(api)
    h = api.h("viewer")
    body = api.client.get("/leads?limit=5", headers=h).json()
    assert body["numberMatched"] == N and body["numberMatchedExact"] is True
    items = api.client.get("/collections/leads/items?limit=5", headers=h).json()
    assert items["numberMatched"] == N
    # past what is counted exactly, an estimate marked as one (and no OGC numberMatched)
    monkeypatch.setattr(lead_pages, "EXACT_UP_TO", 10)
    body = api.client.get("/leads?limit=5", headers=h).json()
    assert body["numberMatchedExact"] is False and body["numberMatched"] > 10
    items = api.client.get("/collections/leads/items?limit=5", headers=h).json()
    assert "numberMatched" not in items and items["numberReturned"] == 5
    assert _next(items) is not None
    # a filter under the bound stays exact
    body = api.client.get(f"/leads?mmsi={710_000_003}", headers=h).json()
    assert body["numberMatched"] == 1 and body["numberMatchedExact"] is True


def test_old_clients_offset_still_pages(api: Api) -> None:
    _seed(api)
    h = api.h("viewer")
    expected = _expected(api, "newest")
    body = api.client.get("/leads?limit=5&offset=10", headers=h).json()
    assert [x["id"] for x in body["leads"]] == expected[10:15]
    assert {x["rel"] for x in body["links"]} >= {"self", "next", "prev", "first"}
    after = api.client.get(_next(body) or "", headers=h).json()
    assert [x["id"] for x in after["leads"]] == expected[15:20]
