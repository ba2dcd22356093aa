"""Zone-version and lead queries, shared by both dialects (run inside the caller's
transaction)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import shapely
from sqlalchemy import (
    ColumnElement,
    LargeBinary,
    and_,
    case,
    delete,
    false,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.service.db import events as ev
from vigia.service.db.codec import (
    geometry_wkb,
    lead_row,
    row_lead,
    row_zone,
    zone_properties,
    zone_row,
)
from vigia.service.db.models import LeadRow, ZoneVersion, assigned_officer
from vigia.service.db.protocol import EVERY_AUTHORITY, BBox, LeadQuery, Scope
from vigia.zones.model import Zone

_Z = ZoneVersion
_ZONE_COLS = (
    _Z.zone_id,
    _Z.version,
    _Z.kind,
    _Z.properties,
    _Z.valid_from,
    _Z.valid_to,
)
# every column but the PostGIS-only generated point (absent on SQLite)
_LEAD_COLS = tuple(c for c in LeadRow.__table__.columns if c.name != "closest_geom")


def _wkb_col(pg: bool) -> ColumnElement[Any]:
    if pg:
        return func.ST_AsBinary(_Z.geom, type_=LargeBinary).label("wkb")
    return _Z.geom.label("wkb")


def _envelope(bbox: BBox) -> ColumnElement[Any]:
    return func.ST_MakeEnvelope(*bbox, 4326)


def _json_norm(value: Any) -> Any:
    return json.loads(json.dumps(value))


#: PostgreSQL advisory-lock key serialising zone writers (any 64-bit number unique here)
_ZONE_LOCK_KEY = 0x7A6F6E6573


def lock_zones(conn: Connection, pg: bool) -> None:
    """Serialise zone writers until this transaction ends.

    Without it two writers of one new zone (two ``vigia evaluate`` seeding an empty store
    at once, two admins uploading the same zone) both read "no version yet" and both
    insert version 1: the second dies on the primary key. On PostgreSQL an advisory lock
    (as the migrations take); on SQLite a write that changes nothing, which makes the
    transaction a writer first, so the second waits (busy_timeout) and then reads what
    the first committed.
    """
    if pg:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ZONE_LOCK_KEY})
    else:
        conn.execute(update(_Z).where(false()).values(current=_Z.current))


def put_zones(conn: Connection, pg: bool, zones: Sequence[Zone], now: float) -> list[Zone]:
    """Add a version for each changed zone; an unchanged zone keeps its version."""
    lock_zones(conn, pg)
    out: list[Zone] = []
    for z in zones:
        current = conn.execute(
            select(*_ZONE_COLS, _wkb_col(pg)).where(_Z.zone_id == z.id, _Z.current)
        ).first()
        if current is not None:
            same = (
                current.kind == str(z.kind)
                and current.properties == _json_norm(zone_properties(z))
                and shapely.equals_exact(shapely.from_wkb(bytes(current.wkb)), z.geometry, 0.0)
            )
            if same:
                out.append(dataclasses.replace(z, version=int(current.version)))
                continue
        top = conn.execute(select(func.max(_Z.version)).where(_Z.zone_id == z.id)).scalar()
        version = int(top or 0) + 1
        conn.execute(update(_Z).where(_Z.zone_id == z.id).values(current=False))
        wkb = geometry_wkb(z.geometry)
        geom: Any = func.ST_GeomFromWKB(literal(wkb, LargeBinary), 4326) if pg else wkb
        conn.execute(insert(_Z).values(**zone_row(z, version, now), geom=geom))
        out.append(dataclasses.replace(z, version=version))
    return out


def delete_zone(conn: Connection, zone_id: str) -> bool:
    """Retire every version of a zone; True if it was current."""
    was = conn.execute(select(_Z.version).where(_Z.zone_id == zone_id, _Z.current)).first()
    conn.execute(update(_Z).where(_Z.zone_id == zone_id).values(current=False, retired=True))
    return was is not None


def get_zone(conn: Connection, pg: bool, zone_id: str, version: int | None) -> Zone | None:
    """The current or a given version of a zone."""
    cond = _Z.current if version is None else _Z.version == version
    row = conn.execute(select(*_ZONE_COLS, _wkb_col(pg)).where(_Z.zone_id == zone_id, cond)).first()
    return None if row is None else row_zone(row._mapping, row.wkb)


def list_zones(
    conn: Connection,
    pg: bool,
    bbox: BBox | None,
    at: float | None,
    limit: int | None,
    offset: int,
    extra: Sequence[ColumnElement[bool]] = (),
) -> tuple[list[Zone], int]:
    """A page of current zones intersecting ``bbox``, in force at ``at`` and meeting the
    ``extra`` conditions (a CQL2 filter's), by id."""
    conds: list[ColumnElement[bool]] = [_Z.current == true(), *extra]
    if at is not None:
        conds.append(or_(_Z.valid_from.is_(None), _Z.valid_from <= at))
        conds.append(or_(_Z.valid_to.is_(None), _Z.valid_to >= at))
    if bbox is not None:
        conds += [
            _Z.max_lon >= bbox[0],
            _Z.max_lat >= bbox[1],
            _Z.min_lon <= bbox[2],
            _Z.min_lat <= bbox[3],
        ]
        if pg:
            conds.append(func.ST_Intersects(_Z.geom, _envelope(bbox)))
    base = select(*_ZONE_COLS, _wkb_col(pg)).where(and_(*conds)).order_by(_Z.zone_id)
    if pg or bbox is None:
        total = _count(conn, *conds)
        rows = conn.execute(base.limit(limit).offset(offset)).all()
        return [row_zone(r._mapping, r.wkb) for r in rows], total
    # SQLite has no spatial functions: the bbox columns narrow, shapely decides exactly
    rows = conn.execute(base).all()
    geoms = shapely.from_wkb([bytes(r.wkb) for r in rows])
    hit: Any = shapely.intersects(geoms, shapely.box(*bbox)) if rows else []
    matched = [r for r, h in zip(rows, hit, strict=True) if h]
    page = matched[offset:] if limit is None else matched[offset : offset + limit]
    return [row_zone(r._mapping, r.wkb) for r in page], len(matched)


def count_zones(conn: Connection) -> int:
    """How many zones are current."""
    return _count(conn, _Z.current == true())


def _count(conn: Connection, *conds: ColumnElement[bool]) -> int:
    return int(conn.execute(select(func.count()).select_from(_Z).where(*conds)).scalar() or 0)


def upsert_leads(
    conn: Connection, pg: bool, leads: Sequence[Lead], now: float, seq: int | None = None
) -> int:
    """Insert new leads; update open ones (keeping their workflow status); leave closed
    ones. Writes a ``lead.opened`` or ``lead.updated`` event for each lead that really
    changed, in this transaction; returns the highest event id written (0 if none).

    ``seq`` (broker mode): the stream sequence these versions were committed at; a lead
    stored from a higher one is left as it is (a stalled writer's older version never
    goes back over a newer one, migration 0019)."""
    if not leads:
        return 0
    last = {lead.id: lead for lead in leads}  # one statement may not touch a row twice
    # taken before reading the stored state, so two writers cannot both call a lead new
    ev.lock(conn, pg)
    stored: dict[str, Any] = {}
    ids = list(last)
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        found = select(
            LeadRow.id,
            LeadRow.ended_at,
            LeadRow.digest,
            LeadRow.status,
            LeadRow.procedure,
            LeadRow.details,
            LeadRow.source_seq,
        )
        stored.update((r.id, r) for r in conn.execute(found.where(LeadRow.id.in_(chunk))))
    if seq is not None:
        # read under the lock above, so no writer can store a newer version in between
        for lead_id, r in stored.items():
            if r.source_seq is not None and r.source_seq > seq and lead_id in last:
                del last[lead_id]
        if not last:
            return 0
    events: list[tuple[str, Lead, str | None]] = []
    for gone in [x for x in last.values() if "superseded_by" in x.details]:
        # an open lead a late record superseded (alerts/rejudge.py): one never stored
        # needs nothing; one nobody has worked goes, so an episode is never two leads;
        # one an inspector has worked keeps its facts, marked (and stays listed)
        prev = stored.get(gone.id)
        if prev is None or prev.ended_at is not None or not _untouched(prev):
            if prev is None or prev.ended_at is not None:
                del last[gone.id]
            continue
        del last[gone.id]
        conn.execute(delete(LeadRow).where(LeadRow.id == gone.id))
        events.append((ev.UPDATED, gone, prev.status))
    for lead in [x for x in last.values() if x.details.get("revisions")]:
        prev = stored.get(lead.id)
        if prev is not None and prev.status in _LEGAL and prev.ended_at is None:
            # a late record revised an episode whose Notice or Auto is out: its legal
            # facts stay as they were served; the revision is attached beside them
            del last[lead.id]
            details = {**(prev.details or {}), "late_revision": _revision_summary(lead)}
            conn.execute(update(LeadRow).where(LeadRow.id == lead.id).values(details=details))
            kept = get_lead(conn, lead.id, EVERY_AUTHORITY)
            if kept is not None:  # the event says what is stored: the served facts
                events.append((ev.UPDATED, kept, prev.status))
    if not last:
        return ev.append(conn, events, now)
    rows = [lead_row(lead, now) for lead in last.values()]
    for row, lead in zip(rows, last.values(), strict=True):
        row["digest"] = ev.digest(row)
        if seq is not None:
            row["source_seq"] = seq  # after the digest: the same facts are no new version
        prev = stored.get(lead.id)
        if lead.silence_id is not None:
            continue  # a silenced episode is stored and marked, never pushed
        if prev is None:
            events.append((ev.OPENED, lead, None))
        elif prev.ended_at is None and prev.digest != row["digest"]:
            events.append((ev.UPDATED, lead, prev.status))
    ins = (pg_insert if pg else sqlite_insert)(LeadRow)
    keep = {"id", "status"}  # the procedure columns are not in lead_row at all
    set_: dict[str, Any] = {c: ins.excluded[c] for c in rows[0] if c not in keep}
    # a real change is a new version (a client's If-Match then fails); a replay is not
    set_["version"] = case(
        (LeadRow.digest == ins.excluded.digest, LeadRow.version), else_=LeadRow.version + 1
    )
    stmt = ins.on_conflict_do_update(
        index_elements=["id"],
        set_=set_,
        # a lead an inspector closed keeps what it had, even if its episode goes on
        where=LeadRow.ended_at.is_(None) & (LeadRow.status != "closed"),
    )
    conn.execute(stmt, rows)
    return ev.append(conn, events, now)


#: states in which a lead's facts have been served on someone (a Notice or an Auto)
_LEGAL = frozenset({"notified", "infraction", "defence", "judged", "appeal"})


def _revision_summary(lead: Lead) -> dict[str, Any]:
    """What a late revision says of an episode whose served facts stay as they were."""
    j = lead.to_json()
    return {
        "revisions": lead.details.get("revisions"),
        "started_at": j["started_at"],
        "closest_t": j["closest_t"],
        "min_distance_m": j["min_distance_m"],
        "max_sog_kn": j["max_sog_kn"],
        "positions": lead.details.get("positions"),
        "evidence": j["evidence"],
    }


def _untouched(row: Any) -> bool:
    """A stored lead nobody has worked: still new, no procedure data entered."""
    return bool(row.status == "new" and not row.procedure)


def in_scope(column: Any, scope: Scope) -> list[ColumnElement[bool]]:
    """The SQL form of ``Scope.admits`` on an authority column (nothing when unlimited)."""
    return [] if scope.authority is None else [column == scope.authority]


def get_lead(conn: Connection, lead_id: str, scope: Scope) -> Lead | None:
    """One lead with its evidence; None when absent or outside ``scope``."""
    conds = [LeadRow.id == lead_id, *in_scope(LeadRow.authority, scope)]
    row = conn.execute(select(*_LEAD_COLS).where(*conds)).first()
    return None if row is None else row_lead(row._mapping)


def _lead_conds(pg: bool, q: LeadQuery, scope: Scope) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = in_scope(LeadRow.authority, scope)
    if q.rule is not None:
        conds.append(LeadRow.rule == q.rule)
    if q.zone_id is not None:
        conds.append(LeadRow.zone_id == q.zone_id)
    if q.mmsi is not None:
        conds.append(LeadRow.mmsi == q.mmsi)
    if q.status is not None:
        conds.append(LeadRow.status == q.status)
    if q.start is not None:
        conds.append(or_(LeadRow.ended_at.is_(None), LeadRow.ended_at >= q.start))
    if q.end is not None:
        conds.append(LeadRow.started_at <= q.end)
    if q.authority is not None:
        conds.append(LeadRow.authority == q.authority)
    if q.assignee is not None:
        # the expression migration 0017 indexes, rendered per store (models.py)
        conds.append(assigned_officer() == q.assignee)
    if not q.include_silenced:
        conds.append(LeadRow.silence_id.is_(None))
    if q.bbox is not None:
        if pg:
            conds.append(LeadRow.closest_geom.op("&&")(_envelope(q.bbox)))
        else:
            conds.append(LeadRow.closest_lon.between(q.bbox[0], q.bbox[2]))
            conds.append(LeadRow.closest_lat.between(q.bbox[1], q.bbox[3]))
    return conds


def list_leads(
    conn: Connection,
    pg: bool,
    q: LeadQuery,
    limit: int,
    offset: int,
    scope: Scope,
    extra: Sequence[ColumnElement[bool]] = (),
) -> tuple[list[Lead], int]:
    """A page of the leads in ``scope`` meeting ``extra`` too (a CQL2 filter's
    condition), newest first, and the total matched."""
    conds = [*_lead_conds(pg, q, scope), *extra]
    total = conn.execute(select(func.count()).select_from(LeadRow).where(*conds)).scalar()
    order: tuple[Any, ...] = (LeadRow.started_at.desc(), LeadRow.id)
    if q.sort == "due":
        # soonest pending deadline first; leads with none after them, newest first
        order = (LeadRow.due_on.is_(None), LeadRow.due_on, *order)
    rows = conn.execute(
        select(*_LEAD_COLS).where(*conds).order_by(*order).limit(limit).offset(offset)
    ).all()
    return [row_lead(r._mapping) for r in rows], int(total or 0)


def jurisdiction_zones(conn: Connection, pg: bool) -> list[Zone]:
    """The current jurisdiction zones (few: one per Capitania, Delegacia or Agência)."""
    rows = conn.execute(
        select(*_ZONE_COLS, _wkb_col(pg)).where(_Z.current == true(), _Z.kind == "jurisdiction")
    ).all()
    return [row_zone(r._mapping, r.wkb) for r in rows]
