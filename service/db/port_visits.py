"""Port visits in the store (issue 33), both dialects: one row per visit, written once
the lateness bound has passed its exit (``alerts.ports``), keyed by its stable id so a
rerun or a replayed spool stores it once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import JSON, Connection, Float, Index, Integer, Text, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, mapped_column

from vigia.alerts.ports.visits import PortVisit, Stop
from vigia.service.db.models import Base


class PortVisitRow(Base):
    """A vessel's visit to a port-facility or anchorage zone: entry to exit, its stops."""

    __tablename__ = "port_visits"
    __table_args__ = (Index("ix_port_visits_mmsi_arrival", "mmsi", "arrival_t"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    mmsi: Mapped[int] = mapped_column(Integer)
    zone_id: Mapped[str] = mapped_column(Text)
    zone_name: Mapped[str | None] = mapped_column(Text, nullable=True)
    zone_kind: Mapped[str] = mapped_column(Text)
    arrival_t: Mapped[float] = mapped_column(Float)
    arrival_lon: Mapped[float] = mapped_column(Float)
    arrival_lat: Mapped[float] = mapped_column(Float)
    departure_t: Mapped[float] = mapped_column(Float)
    departure_lon: Mapped[float] = mapped_column(Float)
    departure_lat: Mapped[float] = mapped_column(Float)
    #: [[start_t, end_t, lon, lat], ...]
    stops: Mapped[list[Any]] = mapped_column(JSON)


def _row(v: PortVisit) -> dict[str, Any]:
    return {
        "id": v.id, "mmsi": v.mmsi, "zone_id": v.zone_id, "zone_name": v.zone_name,
        "zone_kind": v.zone_kind, "arrival_t": v.arrival_t, "arrival_lon": v.arrival_lon,
        "arrival_lat": v.arrival_lat, "departure_t": v.departure_t,
        "departure_lon": v.departure_lon, "departure_lat": v.departure_lat,
        "stops": [[s.start_t, s.end_t, s.lon, s.lat] for s in v.stops],
    }  # fmt: skip


def _visit(r: Any) -> PortVisit:
    return PortVisit(
        int(r.mmsi), r.zone_id, r.zone_name, r.zone_kind, float(r.arrival_t),
        float(r.arrival_lon), float(r.arrival_lat), float(r.departure_t),
        float(r.departure_lon), float(r.departure_lat),
        tuple(Stop(float(a), float(b), float(x), float(y)) for a, b, x, y in r.stops or ()),
    )  # fmt: skip


class PortVisitStore:
    """Mixed into SqlRepository: needs ``_tx()`` and ``_pg``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]

    def add_port_visits(self, visits: Sequence[PortVisit]) -> int:
        """Store settled visits; one already stored (same id) is left as it is. Returns
        how many were new."""
        if not visits:
            return 0
        rows = list({v.id: _row(v) for v in visits}.values())
        ins = (pg_insert if self._pg else sqlite_insert)(PortVisitRow)
        with self._tx() as conn:
            got = conn.execute(ins.on_conflict_do_nothing(index_elements=["id"]), rows)
        return max(0, int(got.rowcount or 0))

    def port_visits(
        self,
        mmsi: int,
        start: float | None = None,
        end: float | None = None,
        limit: int = 1_000,
    ) -> list[PortVisit]:
        """The vessel's visits overlapping [start, end] (either open), oldest first."""
        q = select(*PortVisitRow.__table__.columns).where(PortVisitRow.mmsi == mmsi)
        if start is not None:
            q = q.where(PortVisitRow.departure_t >= start)
        if end is not None:
            q = q.where(PortVisitRow.arrival_t <= end)
        q = q.order_by(PortVisitRow.arrival_t, PortVisitRow.id).limit(limit)
        with self._tx() as conn:
            return [_visit(r) for r in conn.execute(q).all()]
