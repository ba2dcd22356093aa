"""Before leads are stored: routing by jurisdiction and inspectors' silences; after
positions are stored: the 0310 watch-list. All inside the caller's transaction, so a
lead and the positions or decisions behind it commit together."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.jurisdiction import office_at, offices_of
from vigia.alerts.procedure.routing import REROUTABLE, rerouted, routed, routing_for
from vigia.alerts.procedure.silencing import Silence, WatchEntry, breaches, silence_for
from vigia.ingest.records import Position
from vigia.service.db import events as ev
from vigia.service.db import zones_leads as zl
from vigia.service.db.models import LeadRow, SilenceRow, StoreNote, Vessel, WatchRow
from vigia.service.db.protocol import EVERY_AUTHORITY, Scope
from vigia.service.errors import PermissionDeniedError, RequestInvalidError

_S, _W = SilenceRow, WatchRow


def _silences(conn: Connection, since: float) -> list[Silence]:
    rows = conn.execute(select(*_S.__table__.columns).where(_S.until >= since)).all()
    return [
        Silence(r.id, r.mmsi, r.zone_id, r.starts_at, r.until, r.reason, r.authority) for r in rows
    ]


def _destinations(conn: Connection, mmsis: set[int]) -> dict[int, str | None]:
    if not mmsis:
        return {}
    rows = conn.execute(select(Vessel.mmsi, Vessel.destination).where(Vessel.mmsi.in_(mmsis)))
    return {int(r.mmsi): r.destination for r in rows}


def prepare_leads(conn: Connection, pg: bool, leads: Sequence[Lead]) -> list[Lead]:
    """The leads with their authority (when they had none) and silence filled in."""
    if not leads:
        return []
    silences = _silences(conn, min(lead.started_at for lead in leads))
    zones = []
    if any(lead.authority is None for lead in leads):
        zones = zl.jurisdiction_zones(conn, pg)
    dest = (
        _destinations(
            conn, {x.mmsi for x in leads if x.authority is None and x.rule.startswith("BW-")}
        )
        if zones
        else {}
    )
    out: list[Lead] = []
    for lead in leads:
        changes: dict[str, Any] = {}
        if lead.authority is None:
            lead = routed(lead, dest.get(lead.mmsi), zones)
        hit = silence_for(lead, silences)
        if hit is not None:
            changes["silence_id"] = hit.id
        out.append(replace(lead, **changes) if changes else lead)
    return out


#: the ``store_notes`` row naming the register the leads were routed by
REGISTER_NOTE = "register_fingerprint"


def reroute_leads(conn: Connection, pg: bool, now: float) -> int:
    """After jurisdiction zones changed: route again every routed lead still before any
    Notice or Auto, and every one no rule had routed (alerts.procedure.routing.rerouted),
    each move a ``lead.updated`` event in this transaction. Returns how many leads
    changed hands."""
    zones = zl.jurisdiction_zones(conn, pg)
    rows = conn.execute(
        select(
            LeadRow.id, LeadRow.rule, LeadRow.mmsi, LeadRow.closest_lon, LeadRow.closest_lat,
            LeadRow.authority, LeadRow.details,
        ).where(LeadRow.status.in_(REROUTABLE), LeadRow.silence_id.is_(None))
    ).all()  # fmt: skip
    bw = {r.mmsi for r in rows if r.rule.startswith("BW-")}
    dest = _destinations(conn, bw) if bw else {}
    moved: list[tuple[str, Lead, str | None]] = []
    for r in rows:
        routing = (r.details or {}).get("routing")
        if not isinstance(routing, dict) and r.authority is not None:
            continue  # its own zone named its authority: it never moves
        # from the light columns first: most leads stay where they are, and loading
        # each whole (evidence included) took 29 s over 20,000 leads on SQLite
        now_routed = routing_for(r.rule, r.closest_lon, r.closest_lat, dest.get(r.mmsi), zones)
        if now_routed == (r.authority, routing):
            continue
        lead = zl.get_lead(conn, r.id, EVERY_AUTHORITY)
        if lead is None:
            continue
        fresh = rerouted(lead, dest.get(lead.mmsi), zones)
        if fresh is None:
            continue
        values = {
            "authority": fresh.authority,
            "details": fresh.details,
            "updated_at": now,
            "version": LeadRow.version + 1,  # an If-Match taken before the move fails
        }
        conn.execute(update(LeadRow).where(LeadRow.id == r.id).values(**values))
        moved.append((ev.UPDATED, fresh, lead.status))
    ev.append(conn, moved, now)
    return len(moved)


def sync_register(conn: Connection, pg: bool, fingerprint: str, now: float) -> int | None:
    """When the bundled register of offices differs from the one the store's leads were
    routed by (``fingerprint``, noted in ``store_notes``): route again every lead not yet
    notified (:func:`reroute_leads`) and note the new one. Returns how many leads changed
    hands, or None when the register is the one already noted. Under the zone writers'
    lock, so processes starting together re-route once."""
    zl.lock_zones(conn, pg)
    noted = conn.execute(
        select(StoreNote.value).where(StoreNote.name == REGISTER_NOTE)
    ).scalar_one_or_none()
    if noted == fingerprint:
        return None
    moved = reroute_leads(conn, pg, now)
    if noted is None:
        conn.execute(insert(StoreNote).values(name=REGISTER_NOTE, value=fingerprint))
    else:
        conn.execute(
            update(StoreNote).where(StoreNote.name == REGISTER_NOTE).values(value=fingerprint)
        )
    return moved


def _within_jurisdiction(offices: set[str], scope: Scope, what: str) -> None:
    """Refuse a limited scope's ``what`` aimed where leads go to other offices only."""
    if scope.authority is not None and offices and scope.authority not in offices:
        raise PermissionDeniedError(
            f"{what} lies in the jurisdiction of {', '.join(sorted(offices))}, "
            f"not of {scope.authority!r}"
        )


def add_silence(conn: Connection, pg: bool, silence: dict[str, Any], by: str, scope: Scope) -> int:
    """Store a silence as ``scope``'s (it hides only that authority's leads, or any
    authority's when unlimited); returns its id. A limited scope silences only a zone
    whose leads may be its own: one its routing cannot place (not loaded) is refused."""
    zone_id = silence.get("zone_id")
    if zone_id is not None and scope.authority is not None:
        zone = zl.get_zone(conn, pg, zone_id, None)
        if zone is None:
            raise RequestInvalidError(f"no zone {zone_id!r} to silence")
        offices = offices_of(zone, zl.jurisdiction_zones(conn, pg))
        _within_jurisdiction(offices, scope, f"zone {zone_id!r}")
    row = {**silence, "authority": scope.authority, "created_by": by, "created_at": time.time()}
    return int(conn.execute(insert(_S).values(**row).returning(_S.id)).scalar_one())


def list_silences(conn: Connection, scope: Scope) -> list[dict[str, Any]]:
    """The silences of ``scope``, newest first."""
    rows = conn.execute(
        select(*_S.__table__.columns)
        .where(*zl.in_scope(_S.authority, scope))
        .order_by(_S.id.desc())
    ).all()
    return [dict(r._mapping) for r in rows]


def add_watch(conn: Connection, pg: bool, entry: dict[str, Any], by: str, scope: Scope) -> int:
    """Put a vessel on the watch-list; returns the entry's id. A limited scope writes
    only its own authority's entries (one naming none becomes its own)."""
    authority = entry.get("authority") or scope.authority
    if not scope.admits(authority):
        raise PermissionDeniedError(f"this key keeps only {scope.authority!r}'s watch-list")
    if scope.authority is not None:
        # its PROC-SEAL lead is raised where the vessel is held: that office's case
        office = office_at(entry["lon"], entry["lat"], zl.jurisdiction_zones(conn, pg))
        offices = set() if office is None else {office}
        _within_jurisdiction(offices, scope, "the place where the vessel is held")
    row = {**entry, "authority": authority, "created_by": by, "created_at": time.time()}
    row["active"] = True
    return int(conn.execute(insert(_W).values(**row).returning(_W.id)).scalar_one())


def list_watch(conn: Connection, scope: Scope) -> list[dict[str, Any]]:
    """The watch-list entries of ``scope``, newest first."""
    rows = conn.execute(
        select(*_W.__table__.columns)
        .where(*zl.in_scope(_W.authority, scope))
        .order_by(_W.id.desc())
    ).all()
    return [dict(r._mapping) for r in rows]


def release_watch(conn: Connection, entry_id: int, scope: Scope) -> bool:
    """Take a vessel off the watch-list (it was released); False if no such entry in
    ``scope``."""
    res = conn.execute(
        update(_W).where(_W.id == entry_id, *zl.in_scope(_W.authority, scope)).values(active=False)
    )
    return bool(res.rowcount)


def check_watch(conn: Connection, pg: bool, positions: Sequence[Position]) -> int:
    """Raise a lead for each watched vessel that moved beyond its radius in
    ``positions``; the entry is then spent (one lead per detention). Returns the last
    lead event id written (0 if none)."""
    rows = conn.execute(select(*_W.__table__.columns).where(_W.active)).all()
    if not rows:
        return 0
    entries = [
        WatchEntry(r.id, r.mmsi, r.lon, r.lat, r.radius_m, r.reason, r.authority) for r in rows
    ]
    leads = breaches(entries, positions)
    if not leads:
        return 0
    last_id = zl.upsert_leads(conn, pg, prepare_leads(conn, pg, leads), time.time())
    spent = [int(lead.details["watch_id"]) for lead in leads]
    conn.execute(update(_W).where(_W.id.in_(spent)).values(active=False))
    return last_id
