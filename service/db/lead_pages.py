"""Lead pages in bounded time at any depth (issue 39): keyset paging and cheap counts.

A page starts after the last lead of the one before (its sort key, a ``LeadKey``), so
it is one range read of an index in the list's order (migrations 0013, 0017), never a
walk over the rows before it as ``OFFSET`` is. Both orders are total (the id breaks ties):

- ``newest``: started_at descending, then id;
- ``due``: leads with a pending deadline first, soonest first (due_on ascending, then
  newest first), then those with none, newest first. Read as two ranges, each of its own
  partial index: the deadline range, then, once it is spent, the rest.

A count is exact when it is cheap: up to ``EXACT_UP_TO`` matches, counted with a scan
that stops there. Past that it is an estimate, marked as one: on PostgreSQL the
planner's row estimate; on SQLite (no estimates) an exact count kept for
``COUNT_TTL_S`` seconds, so the table is counted at most once in that time per query.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import ColumnElement, and_, func, literal, or_, select
from sqlalchemy.engine import Connection

from vigia.service.db import zones_leads as zl
from vigia.service.db.codec import row_lead
from vigia.service.db.models import ASSIGNEE_INDEX, LeadRow
from vigia.service.db.protocol import LeadKey, LeadPage, LeadQuery, Scope

_L = LeadRow
#: how many matches are counted exactly on each call (a bounded index scan: about
#: 1-2 ms on SQLite, docs/caseload.md)
EXACT_UP_TO = 10_000
#: leads read along the newest order before a spatial page falls back to its box's index
PROBE = 2_000
#: how long an estimate counted on SQLite is reused
COUNT_TTL_S = 60.0
#: at most this many estimates are kept (one per distinct filter)
_CACHE_SIZE = 256
CountCache = dict[tuple[str, str], tuple[float, int]]


def _after_newest(key: LeadKey) -> ColumnElement[bool]:
    # the redundant first bound makes it a range on the index, not a filter on a scan
    return and_(
        _L.started_at <= key.started_at,
        or_(_L.started_at < key.started_at, _L.id > key.id),
    )


def _rows(conn: Connection, conds: Sequence[Any], order: Sequence[Any], n: int) -> list[Any]:
    stmt = select(*zl._LEAD_COLS).where(*conds).order_by(*order).limit(n)
    return list(conn.execute(stmt).all())


def _keyset(
    conn: Connection, conds: list[ColumnElement[bool]], sort: str, after: LeadKey | None, n: int
) -> list[Any]:
    """Up to ``n`` rows after ``after`` in the ``sort`` order."""
    newest = (_L.started_at.desc(), _L.id)
    if sort != "due":
        more = [] if after is None else [_after_newest(after)]
        return _rows(conn, [*conds, *more], newest, n)
    rows: list[Any] = []
    if after is None or after.due_on is not None:
        due = [*conds, _L.due_on.is_not(None)]
        if after is not None and after.due_on is not None:
            d = after.due_on
            due += [_L.due_on >= d, or_(_L.due_on > d, _after_newest(after))]
        rows = _rows(conn, due, (_L.due_on, *newest), n)
        if len(rows) >= n:
            return rows
        after = None  # the deadline range is spent: the rest from its start
    rest = [*conds, _L.due_on.is_(None)]
    if after is not None:
        rest.append(_after_newest(after))
    return rows + _rows(conn, rest, newest, n - len(rows))


def _probe(
    conn: Connection,
    conds: list[ColumnElement[bool]],
    plain: list[ColumnElement[bool]],
    after: LeadKey | None,
    n: int,
) -> list[Any] | None:
    """The page of a spatial filter read along the newest order: the newest ``PROBE``
    leads meeting the other filters, and of them those in the box. That is the page
    when it fills (they are the newest matches) or when no more leads come after them;
    else None, and the planner's plan (the box's index, then a sort) reads it. A box
    holding a quarter of a million leads costs a few thousand index entries, not a sort
    of all of them; a box holding ten still costs its index range."""
    more = [] if after is None else [_after_newest(after)]
    probe = max(PROBE, 20 * n)
    newest = (_L.started_at.desc(), _L.id)
    ids = select(_L.id).where(*plain, *more).order_by(*newest).limit(probe)
    rows = _rows(conn, [*conds, *more, _L.id.in_(ids.scalar_subquery())], newest, n)
    if len(rows) >= n:
        return rows
    seen = int(conn.execute(select(func.count()).select_from(ids.subquery())).scalar() or 0)
    return rows if seen < probe else None


def _key(row: Any) -> LeadKey:
    return LeadKey(float(row.started_at), str(row.id), row.due_on)


def _plan_rows(conn: Connection, conds: Sequence[Any]) -> int:
    """PostgreSQL's estimate of how many leads meet ``conds`` (no row is read)."""
    compiled = select(_L.id).where(*conds).compile(dialect=conn.dialect)
    out = conn.exec_driver_sql("EXPLAIN (FORMAT JSON) " + str(compiled), compiled.params)
    plan: Any = out.scalar()
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def _cached_count(
    conn: Connection, conds: Sequence[Any], cache: CountCache, index: str | None
) -> int:
    """An exact count of ``conds`` taken at most once per ``COUNT_TTL_S`` (SQLite)."""
    compiled = select(func.count()).select_from(_L).where(*conds).compile(dialect=conn.dialect)
    key = (str(compiled), repr(sorted(compiled.params.items())))
    now = time.monotonic()
    hit = cache.get(key)
    if hit is not None and now - hit[0] < COUNT_TTL_S:
        return hit[1]
    stmt = select(func.count()).select_from(_L).where(*conds)
    n = _count_indexed(conn, stmt, index) if index else int(conn.execute(stmt).scalar() or 0)
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = (now, n)
    return n


#: a box's leads, unsilenced (migration 0020)
BOX_INDEX = "ix_leads_closest_open"


def count_index(q: LeadQuery, scope: Scope) -> str | None:
    """The partial index (migrations 0013, 0017, 0020) a SQLite count of ``q`` should
    read (a box: its two coordinates, when no rule, status or authority narrows it).
    Given the choice, SQLite reads the single-column index of a rule, status or
    authority and fetches each row to check ``silence_id``: 10,001 row reads, 9 ms warm
    at 300,000 leads and 350 ms at the p99 cold at 1,000,000; the partial index answers
    from its own entries (0.6 ms). An officer's index comes first: an officer's leads
    are a caseload, fewer than any rule's, status's or authority's, and through another
    index each row's JSON would be read. None where another filter (an MMSI, a zone) is
    likelier the narrower, or silenced leads are asked for (no partial index holds
    them)."""
    if q.include_silenced:
        return None
    if q.assignee is not None:
        return ASSIGNEE_INDEX
    if q.mmsi is not None or q.zone_id is not None:
        return None
    if q.rule is not None:
        return "ix_leads_rule_newest"
    if q.status is not None:
        return "ix_leads_status_newest"
    if q.authority is not None or scope.authority is not None:
        return "ix_leads_authority_newest"
    if q.bbox is not None:
        return BOX_INDEX
    return None


def _count_indexed(conn: Connection, stmt: Any, index: str) -> int:
    """``stmt`` (a count over ``leads``) read through ``index`` on SQLite. SQLAlchemy
    renders no SQLite ``INDEXED BY`` hint, so it is put after the one ``FROM leads`` of
    the compiled text; the index name comes from :func:`count_index`, never a request.
    SQLite refuses the statement if the index cannot serve it: a loud error, not a
    slow plan."""
    # expanding parameters (a filter's ``IN``) rendered as plain placeholders
    compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    sql = str(compiled)
    assert sql.count("FROM leads \n") == 1, sql
    sql = sql.replace("FROM leads \n", f"FROM leads INDEXED BY {index} \n")
    params = tuple(compiled.params[k] for k in compiled.positiontup or ())
    return int(conn.exec_driver_sql(sql, params).scalar() or 0)


def count_leads(
    conn: Connection, pg: bool, conds: Sequence[Any], cache: CountCache, index: str | None = None
) -> tuple[int, bool]:
    """How many leads meet ``conds`` and whether that is exact (see the module); on
    SQLite through ``index`` when given (:func:`count_index`)."""
    capped = select(literal(1)).select_from(_L).where(*conds).limit(EXACT_UP_TO + 1)
    stmt = select(func.count()).select_from(capped.subquery())
    if index is not None and not pg:
        n = _count_indexed(conn, stmt, index)
    else:
        n = int(conn.execute(stmt).scalar() or 0)
    if n <= EXACT_UP_TO:
        return n, True
    estimate = _plan_rows(conn, conds) if pg else _cached_count(conn, conds, cache, index)
    return max(estimate, EXACT_UP_TO + 1), False


def page_leads(
    conn: Connection,
    pg: bool,
    q: LeadQuery,
    limit: int,
    scope: Scope,
    *,
    after: LeadKey | None = None,
    offset: int = 0,
    extra: Sequence[ColumnElement[bool]] = (),
    cache: CountCache,
) -> LeadPage:
    """A page of the leads in ``scope`` meeting ``q`` and ``extra``: after ``after``,
    or (an old client's ``offset`` with no key) ``offset`` leads in."""
    conds = [*zl._lead_conds(pg, q, scope), *extra]
    total, exact = count_leads(conn, pg, conds, cache, count_index(q, scope))
    if after is None and offset > 0:
        rows = _legacy(conn, conds, q.sort, offset, limit + 1)
    else:
        got = None
        if q.bbox is not None and q.sort != "due":
            plain = [*zl._lead_conds(pg, replace(q, bbox=None), scope), *extra]
            got = _probe(conn, conds, plain, after, limit + 1)
        rows = got if got is not None else _keyset(conn, conds, q.sort, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return LeadPage(
        [row_lead(r._mapping) for r in rows], total, exact, _key(rows[-1]) if more else None
    )


def _legacy(conn: Connection, conds: Sequence[Any], sort: str, offset: int, n: int) -> list[Any]:
    """``n`` rows ``offset`` rows in (old clients): reads every row before them."""
    order: tuple[Any, ...] = (_L.started_at.desc(), _L.id)
    if sort == "due":
        order = (_L.due_on.is_(None), _L.due_on, *order)
    stmt = select(*zl._LEAD_COLS).where(*conds).order_by(*order).limit(n).offset(offset)
    return list(conn.execute(stmt).all())
