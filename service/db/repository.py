"""``SqlRepository``: the one Repository implementation, on SQLite or PostGIS."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import InterfaceError, OperationalError

from vigia.ingest.records import Position, VesselInfo
from vigia.service.db import draft_models  # noqa: F401  (the drafts' tables on the metadata)
from vigia.service.db import positions as pos
from vigia.service.db import silences as sl
from vigia.service.db import zones_leads as zl
from vigia.service.db.admin_store import AdminStore
from vigia.service.db.archive_files import ArchiveGaps
from vigia.service.db.archive_read import ArchiveReader, merge_tracks
from vigia.service.db.codec import VESSEL_COLUMNS, row_position, row_vessel
from vigia.service.db.engine import migrate
from vigia.service.db.identity_history import StaticStore
from vigia.service.db.latest_store import LatestStore
from vigia.service.db.layers import LayerStore
from vigia.service.db.lead_store import LeadStore
from vigia.service.db.live_store import LiveStore
from vigia.service.db.models import IngestCounter, PositionRow, Vessel
from vigia.service.db.port_visits import PortVisitStore
from vigia.service.db.protocol import BBox, Scope
from vigia.service.db.register import RegisterStore
from vigia.service.db.zone_imports import ZoneImportStore
from vigia.service.errors import StoreUnavailableError
from vigia.zones.model import Zone, ZoneKind

_UNREACHABLE = (OperationalError, InterfaceError, psycopg.OperationalError)


# sqlite3 raises OperationalError for schema mistakes too; only these mean "try later"
_SQLITE_BUSY = ("locked", "busy", "unable to open", "disk i/o")


def _is_unavailable(exc: Exception) -> bool:
    if isinstance(exc, OperationalError) and "sqlite3" in type(exc.orig).__module__:
        return any(m in str(exc.orig).lower() for m in _SQLITE_BUSY)
    return True


_IN_BBOX = (
    "SELECT DISTINCT mmsi FROM positions WHERE t >= :start AND t <= :end AND {} "
    "ORDER BY mmsi LIMIT :limit"
)
_IN_BBOX_PG = text(_IN_BBOX.format(pos.box_condition(True)))
_IN_BBOX_SQLITE = text(_IN_BBOX.format(pos.box_condition(False)))


class SqlRepository(
    LiveStore,
    LatestStore,
    LayerStore,
    AdminStore,
    RegisterStore,
    ZoneImportStore,
    PortVisitStore,
    StaticStore,
    LeadStore,
):
    """Vessels, positions, zones, leads (with their event log), counters, keys, audits
    and webhooks in one SQL database."""

    def __init__(self, engine: Engine, archive: ArchiveReader | None = None) -> None:
        self._engine = engine
        # positions older than the hot window live there; reads see both as one
        self._archive = archive
        self._pg = engine.dialect.name == "postgresql"
        self._init_live()
        self._partitions = pos.PartitionManager(engine) if self._pg else None

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for health checks and tests)."""
        return self._engine

    @property
    def dialect(self) -> str:
        """``postgresql`` or ``sqlite``."""
        return self._engine.dialect.name

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """A transaction; a database that cannot be reached is a StoreUnavailableError."""
        try:
            with self._engine.connect() as conn:
                try:
                    with conn.begin():
                        yield conn
                except psycopg.OperationalError:
                    # raw COPY errors bypass SQLAlchemy: drop the broken connection
                    conn.invalidate()
                    raise
        except _UNREACHABLE as exc:
            if not _is_unavailable(exc):
                raise
            raise StoreUnavailableError(f"database unreachable: {exc}") from exc

    def _insert(self, table: Any) -> Any:
        return (pg_insert if self._pg else sqlite_insert)(table)

    # lifecycle
    def migrate(self) -> None:
        """Bring the schema up to date (Alembic); safe to run again."""
        try:
            migrate(self._engine)
        except _UNREACHABLE as exc:
            raise StoreUnavailableError(f"database unreachable: {exc}") from exc

    def ping(self) -> bool:
        """Whether the database answers."""
        try:
            with self._engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    def close(self) -> None:
        """Release connections."""
        self._engine.dispose()

    # vessels (their static data and its history: identity_history.py) and positions
    def add_positions(self, positions: Sequence[Position]) -> int:
        """Store a batch (positions without a usable location are skipped; a report
        already stored, same MMSI and time, is not stored twice); returns new rows."""
        batch = pos.storable_positions(positions)
        if not batch:
            return 0
        try:
            if self._partitions is not None:
                self._partitions.ensure([p.t for p in batch])
        except _UNREACHABLE as exc:
            raise StoreUnavailableError(f"database unreachable: {exc}") from exc
        with self._tx() as conn:
            if self._pg:
                written = pos.write_positions_pg(conn, batch)
            else:
                written = pos.write_positions_sqlite(conn, batch)
            # 0310: a sealed vessel that moves raises its lead with the positions
            last_id = sl.check_watch(conn, self._pg, batch)
        self._notify_positions(batch)
        self._notify_events(last_id)
        return written

    def get_vessel(self, mmsi: int) -> VesselInfo | None:
        """Latest static data of one vessel."""
        cols = [getattr(Vessel, c) for c in VESSEL_COLUMNS]
        with self._tx() as conn:
            row = conn.execute(select(*cols).where(Vessel.mmsi == mmsi)).first()
        return None if row is None else row_vessel(row._mapping)

    def vessels_static(self, mmsis: list[int]) -> list[VesselInfo]:
        """Static data of the known vessels among ``mmsis``, in chunks (SQLite caps the
        number of bound parameters)."""
        cols = [getattr(Vessel, c) for c in VESSEL_COLUMNS]
        out: list[VesselInfo] = []
        with self._tx() as conn:
            for i in range(0, len(mmsis), 5000):
                chunk = mmsis[i : i + 5000]
                rows = conn.execute(select(*cols).where(Vessel.mmsi.in_(chunk))).all()
                out.extend(row_vessel(r._mapping) for r in rows)
        return out

    @property
    def archive(self) -> ArchiveReader | None:
        """The archive behind the store's positions (None: the store alone)."""
        return self._archive

    def track(
        self,
        mmsi: int,
        start: float | None,
        end: float | None,
        *,
        limit: int | None = None,
        offset: int = 0,
        gaps: ArchiveGaps | None = None,
    ) -> list[Position]:
        """One vessel's positions between two Unix times (inclusive), oldest first; at
        most ``limit`` (all when None) after skipping ``offset``. The store and the
        archive are read as one: a page is cut from their merged order. Archived days
        that could not be read are named in ``gaps``."""
        if self._archive is None:
            return self._hot_track(mmsi, start, end, limit=limit, offset=offset)
        need = None if limit is None else offset + limit
        hot = self._hot_track(mmsi, start, end, limit=need, offset=0)
        cold = self._archive.track(mmsi, start, end, need, gaps)
        merged = merge_tracks(hot, cold)
        return merged[offset : None if need is None else need]

    def _hot_track(
        self, mmsi: int, start: float | None, end: float | None, *, limit: int | None, offset: int
    ) -> list[Position]:
        params: dict[str, Any] = {
            "mmsi": mmsi,
            "start": -1e18 if start is None else start,
            "end": 1e18 if end is None else end,
            "limit": limit,
            "offset": offset,
        }
        paged = limit is not None or offset > 0
        if paged and limit is None:
            params["limit"] = 2**62
        with self._tx() as conn:
            rows = conn.execute(pos.track_sql(paged), params).all()
        return [row_position(r._mapping) for r in rows]

    def vessels_in_bbox(
        self,
        bbox: BBox,
        start: float,
        end: float,
        limit: int,
        gaps: ArchiveGaps | None = None,
    ) -> list[int]:
        """MMSIs with a position inside ``bbox`` (inclusive) between two Unix times
        (inclusive), ascending, in the store or the archive (unread days named in
        ``gaps``); PostGIS prunes daily partitions on ``t`` and uses the GiST on ``geom``."""
        params: dict[str, Any] = {"start": start, "end": end, "limit": limit}
        params |= pos.box_params(bbox)
        with self._tx() as conn:
            rows = conn.execute(_IN_BBOX_PG if self._pg else _IN_BBOX_SQLITE, params).all()
        found = [int(r[0]) for r in rows]
        if self._archive is None:
            return found
        cold = self._archive.vessels_in_bbox(bbox, start, end, gaps)
        return sorted(set(found) | cold)[:limit]

    def count_positions(self) -> int:
        """How many positions the store holds (the archive's are not counted)."""
        with self._tx() as conn:
            n = conn.execute(select(func.count()).select_from(PositionRow)).scalar()
        return int(n or 0)

    # zones
    def put_zones(self, zones: Sequence[Zone]) -> list[Zone]:
        """Create or replace zones atomically; a changed zone gets a new version, an
        unchanged one keeps its version."""
        with self._tx() as conn:
            now = time.time()
            stored = zl.put_zones(conn, self._pg, zones, now)
            if any(z.kind is ZoneKind.JURISDICTION for z in zones):
                sl.reroute_leads(conn, self._pg, now)  # leads follow their new Capitania
            return stored

    def sync_register(self, fingerprint: str) -> int | None:
        """Re-route the leads not yet notified if the bundled register of offices is not
        the one they were routed by (see :func:`vigia.service.db.silences.sync_register`)."""
        with self._tx() as conn:
            return sl.sync_register(conn, self._pg, fingerprint, time.time())

    def seed_zones(self, zones: Sequence[Zone]) -> int:
        """Store ``zones`` if the store has no current zone, in one transaction under
        the zone writers' lock: of several processes starting together on an empty
        store, one seeds and the others find the zones there. Returns how many were
        stored (0 when the store already had zones)."""
        with self._tx() as conn:
            zl.lock_zones(conn, self._pg)
            if zl.count_zones(conn) > 0:
                return 0
            return len(zl.put_zones(conn, self._pg, zones, time.time()))

    def delete_zone(self, zone_id: str) -> bool:
        """Retire a zone (its versions stay for the leads that cite them)."""
        with self._tx() as conn:
            gone = zl.get_zone(conn, self._pg, zone_id, None)
            was = zl.delete_zone(conn, zone_id)
            if was and gone is not None and gone.kind is ZoneKind.JURISDICTION:
                sl.reroute_leads(conn, self._pg, time.time())
            return was

    def get_zone(self, zone_id: str, version: int | None = None) -> Zone | None:
        """The current (or a given, even retired) version of a zone."""
        with self._tx() as conn:
            return zl.get_zone(conn, self._pg, zone_id, version)

    def list_zones(
        self, bbox: BBox | None, at: float | None, limit: int | None, offset: int = 0
    ) -> tuple[list[Zone], int]:
        """Current zones intersecting ``bbox`` and in force at ``at``, by id."""
        with self._tx() as conn:
            return zl.list_zones(conn, self._pg, bbox, at, limit, offset)

    def count_zones(self) -> int:
        """How many current zones there are."""
        with self._tx() as conn:
            return zl.count_zones(conn)

    # silences and the watch-list
    def add_silence(self, silence: dict[str, Any], by: str, scope: Scope) -> int:
        """Store an inspector's silence as ``scope``'s; returns its id."""
        with self._tx() as conn:
            return sl.add_silence(conn, self._pg, silence, by, scope)

    def list_silences(self, scope: Scope) -> list[dict[str, Any]]:
        """The silences of ``scope``, newest first."""
        with self._tx() as conn:
            return sl.list_silences(conn, scope)

    def add_watch(self, entry: dict[str, Any], by: str, scope: Scope) -> int:
        """Put a detained or sealed vessel on the watch-list; returns the entry's id."""
        with self._tx() as conn:
            return sl.add_watch(conn, self._pg, entry, by, scope)

    def list_watch(self, scope: Scope) -> list[dict[str, Any]]:
        """The watch-list entries of ``scope``, newest first."""
        with self._tx() as conn:
            return sl.list_watch(conn, scope)

    def release_watch(self, entry_id: int, scope: Scope) -> bool:
        """Take a vessel off the watch-list; False if there is no such entry in scope."""
        with self._tx() as conn:
            return sl.release_watch(conn, entry_id, scope)

    # counters
    def save_counters(self, counters: dict[str, int]) -> None:
        """Persist ingest counters (the cumulative values replace the stored ones)."""
        if not counters:
            return
        ins = self._insert(IngestCounter)
        stmt = ins.on_conflict_do_update(
            index_elements=["name"], set_={"value": ins.excluded.value}
        )
        with self._tx() as conn:
            conn.execute(stmt, [{"name": k, "value": int(v)} for k, v in counters.items()])

    def load_counters(self) -> dict[str, int]:
        """The persisted ingest counters."""
        with self._tx() as conn:
            rows = conn.execute(select(IngestCounter.name, IngestCounter.value)).all()
        return {r.name: int(r.value) for r in rows}
