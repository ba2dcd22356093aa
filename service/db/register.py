"""The registers an admin keeps (authorised vessels, 0212 f); state vessels, issue 34)
and vessel-registry reads, shared by both dialects (run inside the caller's transaction).
Both registers are stored the same way: a table of entries with ids, written in bounded
batches, listed by id, deleted one by one."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, delete, exists, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from vigia.alerts.authorised import Authorisation
from vigia.alerts.identity.state_register import StateVessel, when
from vigia.ingest.records import VesselInfo
from vigia.service.db.codec import VESSEL_COLUMNS, row_vessel
from vigia.service.db.models import AuthorisedVessel, StateVesselRow, StoreNote, Vessel

#: register rows per transaction in a bulk import
REGISTER_BATCH = 2_000
#: the ``store_notes`` row saying the bundled state vessels were offered to this store
STATE_SEED_NOTE = "state_vessels_seeded"

E = TypeVar("E", Authorisation, StateVessel)


@dataclass(frozen=True)
class Table(Generic[E]):
    """How one register's entries are stored: its model, an entry's row (without id and
    creation time) and the entry of a row."""

    model: Any
    row: Callable[[E], dict[str, Any]]
    entry: Callable[[Any], E]

    def add(self, conn: Connection, entries: Sequence[E], now: float) -> list[E]:
        """Insert entries in one statement; returns them with their ids, in order."""
        if not entries:
            return []
        rows = [{**self.row(e), "created_at": now} for e in entries]
        # one executemany; sort_by_parameter_order pairs each id with its row on both dialects
        m = self.model
        ids = conn.execute(insert(m).returning(m.id, sort_by_parameter_order=True), rows).scalars()
        return [dataclasses.replace(e, id=int(i)) for e, i in zip(entries, ids, strict=True)]

    def remove_many(self, conn: Connection, ids: Sequence[int]) -> None:
        """Delete the entries with these ids (undoing a batch import that failed half-way)."""
        if ids:
            conn.execute(delete(self.model).where(self.model.id.in_(ids)))

    def list_all(self, conn: Connection) -> list[E]:
        """Every entry, by id."""
        return [self.entry(r) for r in conn.execute(select(self.model).order_by(self.model.id))]

    def remove(self, conn: Connection, entry_id: int) -> bool:
        """Delete one entry; False if there is none with that id."""
        return bool(conn.execute(delete(self.model).where(self.model.id == entry_id)).rowcount)


def _authorisation(r: Any) -> Authorisation:
    return Authorisation(
        int(r.mmsi), r.zone_id, r.operator, r.valid_from, r.valid_to, r.note, id=int(r.id)
    )


def _fields(e: Authorisation | StateVessel) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(e).items() if k != "id"}


def _state_row(e: StateVessel) -> dict[str, Any]:
    row = _fields(e)
    for k in ("valid_from", "valid_to"):
        row[k] = None if row[k] is None else row[k].timestamp()
    return row


def _state_vessel(r: Any) -> StateVessel:
    return StateVessel(
        int(r.mmsi),
        r.name,
        r.kind,
        r.source,
        when(r.valid_from),
        when(r.valid_to),
        r.note,
        int(r.id),
    )


AUTHORISED: Table[Authorisation] = Table(AuthorisedVessel, _fields, _authorisation)
STATE: Table[StateVessel] = Table(StateVesselRow, _state_row, _state_vessel)


def claim_state_seed(conn: Connection, pg: bool) -> bool:
    """Note that the bundled state vessels were offered to this store; False if that was
    noted before (by an earlier start, or a process starting at the same moment), so an
    admin's edits, deleting every entry included, are never undone by a restart."""
    ins = (pg_insert if pg else sqlite_insert)(StoreNote).values(name=STATE_SEED_NOTE, value="1")
    claim = ins.on_conflict_do_nothing(index_elements=["name"]).returning(StoreNote.name)
    return conn.execute(claim).first() is not None


def has_entries(conn: Connection, table: Table[Any]) -> bool:
    """Whether the register holds any entry."""
    return bool(conn.execute(select(exists().where(table.model.id.isnot(None)))).scalar())


def all_vessels(conn: Connection) -> list[VesselInfo]:
    """Every vessel's latest static data (the worker's registry at start)."""
    cols = [getattr(Vessel, c) for c in VESSEL_COLUMNS]
    return [row_vessel(r._mapping) for r in conn.execute(select(*cols))]


class RegisterStore:
    """Mixed into SqlRepository (needs ``_tx()`` and ``_pg``): the authorised-vessel
    register (0212 f)), the register of state vessels (issue 34) and the worker's vessel
    registry at start."""

    _tx: Callable[[], AbstractContextManager[Connection]]
    _pg: bool

    def _add(self, table: Table[E], entries: Sequence[E], batch: int) -> list[E]:
        """Add register entries, all or none; returns them with their ids.

        A large import is written in transactions of ``batch`` rows so that it never holds
        the database's write lock for long (on SQLite the worker would wait on "database
        is locked" for the whole import); if a batch fails, those already written are
        deleted again before the error is raised.
        """
        now = time.time()
        out: list[E] = []
        try:
            for i in range(0, len(entries), max(1, batch)):
                with self._tx() as conn:
                    out += table.add(conn, entries[i : i + batch], now)
        except BaseException:
            written = [e.id for e in out if e.id is not None]
            for i in range(0, len(written), max(1, batch)):
                with self._tx() as conn:
                    table.remove_many(conn, written[i : i + batch])
            raise
        return out

    def _list(self, table: Table[E]) -> list[E]:
        with self._tx() as conn:
            return table.list_all(conn)

    def _delete(self, table: Table[Any], entry_id: int) -> bool:
        with self._tx() as conn:
            return table.remove(conn, entry_id)

    def add_authorisations(
        self, entries: Sequence[Authorisation], batch: int = REGISTER_BATCH
    ) -> list[Authorisation]:
        """Add authorised-vessel entries, all or none (see :meth:`_add`)."""
        return self._add(AUTHORISED, entries, batch)

    def list_authorisations(self) -> list[Authorisation]:
        """Every register entry, oldest first."""
        return self._list(AUTHORISED)

    def delete_authorisation(self, entry_id: int) -> bool:
        """Remove one register entry; False if there is none with that id."""
        return self._delete(AUTHORISED, entry_id)

    def add_state_vessels(
        self, entries: Sequence[StateVessel], batch: int = REGISTER_BATCH
    ) -> list[StateVessel]:
        """Add entries to the register of state vessels, all or none, each with its
        source (see :meth:`_add`); returns them with their ids."""
        return self._add(STATE, entries, batch)

    def list_state_vessels(self) -> list[StateVessel]:
        """Every entry of the register of state vessels, oldest first (expired ones
        too: they still explain old leads)."""
        return self._list(STATE)

    def delete_state_vessel(self, entry_id: int) -> bool:
        """Remove one entry of the register of state vessels; False if there is none
        with that id."""
        return self._delete(STATE, entry_id)

    def seed_state_vessels(self, entries: Sequence[StateVessel]) -> int:
        """Store the bundled state vessels in a store that never had them offered and
        holds none, in one transaction; returns how many were stored (0 afterwards, so an
        admin's edits are kept across restarts and new versions)."""
        if not entries:  # nothing bundled: the offer stays open for a version that has some
            return 0
        with self._tx() as conn:
            if not claim_state_seed(conn, self._pg) or has_entries(conn, STATE):
                return 0
            return len(STATE.add(conn, entries, time.time()))

    def all_vessels(self) -> list[VesselInfo]:
        """Every vessel's latest static data."""
        with self._tx() as conn:
            return all_vessels(conn)
