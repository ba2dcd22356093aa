"""``GET /leads?assignee=``: a duty officer's own leads at any depth (issue 39).

The officer a lead is assigned to lives in its procedure record
(``procedure.assignment.officer``, PUT /leads/{id}/assignment); the filter runs in SQL
on both stores (a JSON path: SQLite ``json_extract``, PostgreSQL ``->``/``->>``), pages
with cursors like every other filter, and its count is exact or an estimate marked as
one. Page and count read ``ix_leads_assignee_newest`` (migration 0017), whose expression
is the filter's; the OGC leads' items take the same filter, as a parameter and as the
CQL2 queryable ``assignee``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateIndex

from tests.api.conftest import Api
from tests.storage.builders import T0, lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db import lead_pages
from vigia.service.db.models import LeadRow
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
    # a rule as well: SQLite counts through the officer's index, not the rule's
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


INDEX = "ix_leads_assignee_newest"


def _engine(api: Api) -> Engine:
    engine: Engine = api.repo.engine  # type: ignore[attr-defined]
    return engine


@contextmanager
def _officer_queries(api: Api) -> Iterator[list[tuple[str, Any]]]:
    """The statements on leads naming the officer's JSON path that the app runs inside
    the block, as sent to the driver (with their parameters), plan estimates left out."""
    seen: list[tuple[str, Any]] = []

    def grab(_c: Any, _cur: Any, statement: str, params: Any, _ctx: Any, _many: bool) -> None:
        if "assignment" in statement and not statement.startswith("EXPLAIN"):
            seen.append((statement, params))

    event.listen(_engine(api), "before_cursor_execute", grab)
    try:
        yield seen
    finally:
        event.remove(_engine(api), "before_cursor_execute", grab)


def _plan(api: Api, statement: str, params: Any) -> str:
    """The store's plan of one statement, as text. On PostgreSQL sequential scans are
    turned off for it: over 30 leads a scan of the table is cheaper than any index, and
    the question is whether the index matches the query's expression at all (with a
    differently written expression the plan is a scan of another index, filtered)."""
    with _engine(api).connect() as conn, conn.begin():
        if api.repo.dialect == "postgresql":  # type: ignore[attr-defined]
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            rows = conn.exec_driver_sql("EXPLAIN " + statement, params).all()
        else:
            rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params).all()
    return "\n".join(" ".join(str(c) for c in row) for row in rows)


@pytest.mark.parametrize(
    "path",
    [
        f"/leads?assignee={ANA}",
        f"/leads?assignee={ANA}&rule=BATH-MOTOR",
        f"/leads?assignee={ANA}&limit=2",  # and the next page, by its cursor, below
        f"/collections/leads/items?assignee={ANA}",
        f"/collections/leads/items?filter=assignee='{ANA}'",
    ],
)
def test_the_page_and_the_count_read_the_officers_index(api: Api, path: str) -> None:
    _seed(api)
    with _officer_queries(api) as seen:
        r = api.client.get(path, headers=api.h("viewer"))
        assert r.status_code == 200, r.text
        nxt = next((x["href"] for x in r.json()["links"] if x["rel"] == "next"), None)
        if nxt is not None:
            assert api.client.get(nxt, headers=api.h("viewer")).status_code == 200
    # the capped count and the page (and the next page's), each through the index
    assert len(seen) >= (3 if nxt else 2)
    for statement, params in seen:
        plan = _plan(api, statement, params)
        assert INDEX in plan, f"{statement}\n{plan}"


def test_the_models_declare_the_index_the_migration_made(api: Api) -> None:
    """The index from the models (SQLite's and PostgreSQL's DDL of the same metadata) is
    the one migration 0017 made, predicate included: Alembic's comparison of models and
    schema cannot reflect an expression index on SQLite, nor compares the predicate of
    a partial index on PostgreSQL. Built under another name in a transaction undone."""
    (declared,) = [i for i in LeadRow.__table__.indexes if i.name == INDEX]
    engine = _engine(api)
    pg = engine.dialect.name == "postgresql"
    ddl = str(CreateIndex(declared).compile(dialect=engine.dialect))
    read = (
        "SELECT pg_get_indexdef(to_regclass(%s)::oid)"
        if pg
        else "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"
    )
    with engine.connect() as conn, conn.begin() as tx:
        conn.exec_driver_sql(ddl.replace(INDEX, "ix_declared", 1))
        migrated = conn.exec_driver_sql(read, (INDEX,)).scalar()
        built = conn.exec_driver_sql(read, ("ix_declared",)).scalar()
        tx.rollback()
    assert migrated is not None and built is not None
    assert built.replace("ix_declared", INDEX, 1) == migrated


def _items(api: Api, **params: Any) -> dict[str, Any]:
    r = api.client.get("/collections/leads/items", params=params, headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _feature_ids(body: dict[str, Any]) -> list[str]:
    return [str(f["id"]) for f in body["features"]]


def test_the_ogc_items_filter_by_assignee(api: Api) -> None:
    _seed(api)
    assigned = set(ANAS) | set(BRUNOS)
    # as a parameter, as GET /leads takes it
    body = _items(api, assignee=ANA)
    assert _feature_ids(body) == _newest(ANAS)
    assert body["numberMatched"] == body["numberReturned"] == len(ANAS)
    # as the CQL2 queryable, alone, with another property, with the parameter
    assert _feature_ids(_items(api, filter=f"assignee = '{ANA}'")) == _newest(ANAS)
    body = _items(api, filter=f"assignee = '{BRUNO}' AND rule = 'BATH-MOTOR'")
    assert _feature_ids(body) == _newest([i for i in BRUNOS if i % 2])
    body = _items(api, assignee=ANA, filter="rule = 'SEC-PLATFORM'")
    assert _feature_ids(body) == _newest([i for i in ANAS if i % 2 == 0])
    body = _items(api, filter=f"assignee IN ('{ANA}', '{BRUNO}')", limit=100)
    assert _feature_ids(body) == _newest(sorted(assigned))
    assert _feature_ids(_items(api, filter="assignee LIKE 'Bruno%'")) == _newest(BRUNOS)
    body = _items(api, filter="assignee IS NULL", limit=100)
    assert _feature_ids(body) == _newest([i for i in range(N) if i not in assigned])
    # the parameter and the filter disagreeing: nothing, not either one
    assert _items(api, assignee=ANA, filter=f"assignee = '{BRUNO}'")["features"] == []
    assert _items(api, assignee="ana lima")["numberMatched"] == 0
    # paged by cursors, the next links keep the officer
    seen: list[str] = []
    url: str | None = f"/collections/leads/items?assignee={ANA}&limit=3"
    while url is not None:
        r = api.client.get(url, headers=api.h("viewer"))
        assert r.status_code == 200, r.text
        seen += _feature_ids(r.json())
        url = next((x["href"] for x in r.json()["links"] if x["rel"] == "next"), None)
        if url is not None:
            assert parse_qs(urlsplit(url).query)["assignee"] == [ANA]
        assert len(seen) <= N
    assert seen == _newest(ANAS)


def test_the_ogc_assignee_is_a_documented_bounded_queryable(api: Api) -> None:
    h = api.h("viewer")
    props = api.client.get("/collections/leads/queryables", headers=h).json()["properties"]
    assert props["assignee"]["type"] == "string"
    r = api.client.get("/collections/leads/items", params={"assignee": "x" * 201}, headers=h)
    assert r.status_code == 400  # OGC API Part 1: an invalid parameter is a 400
    assert r.headers["content-type"].startswith("application/problem+json")
    doc = api.client.get("/openapi.json").json()
    params = doc["paths"]["/collections/leads/items"]["get"]["parameters"]
    (param,) = [p for p in params if p["name"] == "assignee"]
    assert "procedure.assignment.officer" in param["description"]
