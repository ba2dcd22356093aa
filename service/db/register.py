"""Authorised-vessel register and vessel-registry reads, shared by both dialects (run
inside the caller's transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from vigia.alerts.authorised import Authorisation
from vigia.ingest.records import VesselInfo
from vigia.service.db.codec import VESSEL_COLUMNS, row_vessel
from vigia.service.db.models import AuthorisedVessel, Vessel

_A = AuthorisedVessel
_COLS = (_A.id, _A.mmsi, _A.zone_id, _A.operator, _A.valid_from, _A.valid_to, _A.note)


def _entry(r: Any) -> Authorisation:
    return Authorisation(
        mmsi=int(r.mmsi),
        zone_id=r.zone_id,
        operator=r.operator,
        valid_from=r.valid_from,
        valid_to=r.valid_to,
        note=r.note,
        id=int(r.id),
    )


def add(conn: Connection, entries: Sequence[Authorisation], now: float) -> list[Authorisation]:
    """Insert entries in one statement; returns them with their ids, in order."""
    if not entries:
        return []
    rows = [
        {
            "mmsi": e.mmsi,
            "zone_id": e.zone_id,
            "operator": e.operator,
            "valid_from": e.valid_from,
            "valid_to": e.valid_to,
            "note": e.note,
            "created_at": now,
        }
        for e in entries
    ]
    # one executemany; sort_by_parameter_order pairs each id with its row on both dialects
    ids = conn.execute(insert(_A).returning(_A.id, sort_by_parameter_order=True), rows).scalars()
    return [
        Authorisation(e.mmsi, e.zone_id, e.operator, e.valid_from, e.valid_to, e.note, int(i))
        for e, i in zip(entries, ids, strict=True)
    ]


def remove_many(conn: Connection, ids: Sequence[int]) -> None:
    """Delete the entries with these ids (undoing a batch import that failed half-way)."""
    if ids:
        conn.execute(delete(_A).where(_A.id.in_(ids)))


def list_all(conn: Connection) -> list[Authorisation]:
    """Every entry, by id."""
    return [_entry(r) for r in conn.execute(select(*_COLS).order_by(_A.id))]


def remove(conn: Connection, entry_id: int) -> bool:
    """Delete one entry; False if there is none with that id."""
    return bool(conn.execute(delete(_A).where(_A.id == entry_id)).rowcount)


def all_vessels(conn: Connection) -> list[VesselInfo]:
    """Every vessel's latest static data (the worker's registry at start)."""
    cols = [getattr(Vessel, c) for c in VESSEL_COLUMNS]
    return [row_vessel(r._mapping) for r in conn.execute(select(*cols))]
