"""``GET /leads?assignee=``: a duty officer's own leads at any depth (issue 39).

The officer a lead is assigned to lives in its procedure record
(``procedure.assignment.officer``, PUT /leads/{id}/assignment); the filter runs in SQL
on both stores (a JSON path: SQLite ``json_extract``, PostgreSQL ``#>>``), pages with
cursors like every other filter, and its count is exact or an estimate marked as one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.api.conftest import Api
from tests.storage.builders import T0, lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db import lead_pages
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.http.deps import hash_key

pytestmark = pytest.mark.postgis

ANA, BRUNO = "Ana Lima", "Bruno Reis"
N = 30
#: every third lead is Ana's, every fifth Bruno's (15 and 30 are Bruno's: last wins)
ANAS = [i for i in range(N) if i % 3 == 0 and i % 5 != 0]
BRUNOS = [i for i in range(N) if i % 5 == 0]


def _assign(api: Api, lead_id: str, officer: str | None) -> None:
    at = "2026-01-05T10:00:00Z"
    entry = None if officer is None else {"officer": officer, "by": "chefe", "at": at}
    move = Move(to=None, reason=None, data={"assignment": entry})
    assert api.repo.move_lead(lead_id, move, Actor("chefe", "admin"), scope=EVERY_AUTHORITY)


def _seed(api: Api) -> None:
    """N leads a minute apart, pairs sharing a start (the id breaks the tie), half of
    them BATH-MOTOR, some assigned to Ana, some to Bruno, the rest to nobody."""
    api.repo.upsert_leads(
        [
            lead(
                f"L-{i:03d}",
                mmsi=710_000_000 + i,
                started_at=T0 + (i // 2) * 60.0,
                rule="BATH-MOTOR" if i % 2 else "SEC-PLATFORM",
                authority="CP Macaé" if i < 20 else "CP Santos",
            )
            for i in range(N)
        ]
    )
    for i in ANAS:
        _assign(api, f"L-{i:03d}", ANA)
    for i in BRUNOS:
        _assign(api, f"L-{i:03d}", BRUNO)


def _ids(api: Api, query: str, key: dict[str, str] | None = None) -> dict[str, Any]:
    r = api.client.get("/leads?" + query, headers=key or api.h("viewer"))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _newest(indices: list[int]) -> list[str]:
    """The ids in the list's order: newest start first, then id."""
    return [f"L-{i:03d}" for i in sorted(indices, key=lambda i: (-(i // 2), i))]


def test_the_assignee_filter_lists_an_officers_leads(api: Api) -> None:
    _seed(api)
    body = _ids(api, "assignee=" + ANA)
    assert [x["id"] for x in body["leads"]] == _newest(ANAS)
    assert body["numberMatched"] == len(ANAS) and body["numberMatchedExact"] is True
    assert {x["procedure"]["assignment"]["officer"] for x in body["leads"]} == {ANA}
    # with the other filters, in either order
    motor = [i for i in ANAS if i % 2]
    body = _ids(api, f"assignee={ANA}&rule=BATH-MOTOR&sort=due")
    assert [x["id"] for x in body["leads"]] == _newest(motor)
    assert body["numberMatched"] == len(motor)
    body = _ids(api, f"assignee={BRUNO}&authority=CP Santos")
    assert [x["id"] for x in body["leads"]] == _newest([i for i in BRUNOS if i >= 20])
    # nobody of that name, and a name differing only in case, match nothing
    assert _ids(api, "assignee=Ninguém")["numberMatched"] == 0
    assert _ids(api, "assignee=ana lima")["numberMatched"] == 0
    # an assignment taken off is no longer the officer's
    _assign(api, "L-003", None)
    body = _ids(api, "assignee=" + ANA)
    assert "L-003" not in [x["id"] for x in body["leads"]]
    assert body["numberMatched"] == len(ANAS) - 1
    # and without the filter every lead is listed, assigned or not
    assert _ids(api, "limit=1")["numberMatched"] == N


@pytest.mark.parametrize("sort", ["newest", "due"])
def test_next_links_keep_the_assignee_and_page_without_duplicates(api: Api, sort: str) -> None:
    _seed(api)
    url: str | None = f"/leads?assignee={ANA}&sort={sort}&limit=2"
    seen: list[str] = []
    totals: set[int] = set()
    while url is not None:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        if seen:
            assert query["assignee"] == [ANA] and "cursor" in query
        body = _ids(api, parts.query)
        seen += [x["id"] for x in body["leads"]]
        totals.add(body["numberMatched"])
        url = next((x["href"] for x in body["links"] if x["rel"] == "next"), None)
        assert len(seen) <= N
    assert seen == _newest(ANAS)
    assert totals == {len(ANAS)}


def test_an_officers_count_past_the_exact_bound_is_an_estimate(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The count logic of lead_pages with the filter: the capped count, then SQLite's
    cached count (through a partial index when a rule or a scope names one) or
    PostgreSQL's plan estimate."""
    _seed(api)
    monkeypatch.setattr(lead_pages, "EXACT_UP_TO", 5)
    body = _ids(api, "assignee=" + ANA)
    assert body["numberMatchedExact"] is False and body["numberMatched"] > 5
    assert len(body["leads"]) == len(ANAS)
    # a rule as well: SQLite counts through ix_leads_rule_newest
    motor = [i for i in ANAS if i % 2]
    body = _ids(api, f"assignee={ANA}&rule=BATH-MOTOR")
    assert [x["id"] for x in body["leads"]] == _newest(motor)
    assert body["numberMatched"] == len(motor) and body["numberMatchedExact"] is True
    monkeypatch.setattr(lead_pages, "EXACT_UP_TO", 1)
    body = _ids(api, f"assignee={ANA}&rule=SEC-PLATFORM")
    assert body["numberMatchedExact"] is False and body["numberMatched"] >= 2
    # a key limited to one authority: its scope's partial index
    api.repo.add_api_key("Macaé", "viewer", hash_key("k-macae"), authority="CP Macaé")
    monkeypatch.setattr(lead_pages, "EXACT_UP_TO", 100)
    body = _ids(api, "assignee=" + BRUNO, {"X-API-Key": "k-macae"})
    assert [x["id"] for x in body["leads"]] == _newest([i for i in BRUNOS if i < 20])
    assert body["numberMatchedExact"] is True


def test_the_assignee_parameter_is_bounded_and_documented(api: Api) -> None:
    r = api.client.get("/leads", params={"assignee": "x" * 201}, headers=api.h("viewer"))
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    r = api.client.get("/leads", params={"assignee": "x" * 200}, headers=api.h("viewer"))
    assert r.status_code == 200 and r.json()["numberMatched"] == 0
    doc = api.client.get("/openapi.json").json()
    (param,) = [p for p in doc["paths"]["/leads"]["get"]["parameters"] if p["name"] == "assignee"]
    assert param["schema"]["anyOf"][0]["maxLength"] == 200
    assert "procedure.assignment.officer" in param["description"]
