"""Authorised-vessel register and vessel-registry reads, shared by both dialects (run
inside the caller's transaction)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from vigia.alerts.authorised import Authorisation
from vigia.ingest.records import VesselInfo
from vigia.service.db.codec import VESSEL_COLUMNS, row_vessel
from vigia.service.db.models import AuthorisedVessel, Vessel

#: register rows per transaction in a bulk import
REGISTER_BATCH = 2_000

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


class RegisterStore:
    """Mixed into SqlRepository (needs ``_tx()``): the authorised-vessel register
    (0212 f)) and the worker's vessel registry at start."""

    _tx: Callable[[], AbstractContextManager[Connection]]

    def add_authorisations(
        self, entries: Sequence[Authorisation], batch: int = REGISTER_BATCH
    ) -> list[Authorisation]:
        """Add register entries, all or none; returns them with their ids.

        A large import is written in transactions of ``batch`` rows so that it never holds
        the database's write lock for long (on SQLite the worker would wait on "database
        is locked" for the whole import); if a batch fails, those already written are
        deleted again before the error is raised.
        """
        now = time.time()
        out: list[Authorisation] = []
        try:
            for i in range(0, len(entries), max(1, batch)):
                with self._tx() as conn:
                    out += add(conn, entries[i : i + batch], now)
        except BaseException:
            written = [e.id for e in out if e.id is not None]
            for i in range(0, len(written), max(1, batch)):
                with self._tx() as conn:
                    remove_many(conn, written[i : i + batch])
            raise
        return out

    def list_authorisations(self) -> list[Authorisation]:
        """Every register entry, oldest first."""
        with self._tx() as conn:
            return list_all(conn)

    def delete_authorisation(self, entry_id: int) -> bool:
        """Remove one register entry; False if there is none with that id."""
        with self._tx() as conn:
            return remove(conn, entry_id)

    def all_vessels(self) -> list[VesselInfo]:
        """Every vessel's latest static data."""
        with self._tx() as conn:
            return all_vessels(conn)
