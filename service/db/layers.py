"""Queries behind the OGC API collections: a layer's extent, vessels' static data in
one round trip, and how many vessels a bbox holds (``numberMatched``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import func, select, true
from sqlalchemy.engine import Connection

from vigia.ingest.records import Position, VesselInfo
from vigia.service.db.codec import VESSEL_COLUMNS, row_position, row_vessel
from vigia.service.db.models import LeadRow, Vessel, VesselLatest, ZoneVersion
from vigia.service.db.protocol import BBox, Scope
from vigia.service.db.zones_leads import in_scope

Extent = tuple[BBox | None, tuple[float, float] | None]


def _bbox(row: Any) -> BBox | None:
    if row is None or any(v is None for v in row):
        return None
    return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))


class LayerStore:
    """Mixed into SqlRepository: needs ``_tx()``."""

    _tx: Callable[[], AbstractContextManager[Connection]]

    def layer_extent(self, layer: str, scope: Scope) -> Extent:
        """The bbox and time span of ``zones``, ``leads`` (those in ``scope``) or
        ``vessels`` (None: empty)."""
        row: Any
        with self._tx() as conn:
            if layer == "zones":
                z = ZoneVersion
                row = conn.execute(
                    select(func.min(z.min_lon), func.min(z.min_lat), func.max(z.max_lon),
                           func.max(z.max_lat)).where(z.current == true())
                ).first()  # fmt: skip
                return _bbox(row), None
            if layer == "leads":
                ld = LeadRow
                row = conn.execute(
                    select(func.min(ld.closest_lon), func.min(ld.closest_lat),
                           func.max(ld.closest_lon), func.max(ld.closest_lat),
                           func.min(ld.started_at), func.max(func.coalesce(ld.ended_at,
                                                                           ld.started_at)))
                    .where(*in_scope(ld.authority, scope))
                ).first()  # fmt: skip
            else:
                v = VesselLatest
                row = conn.execute(
                    select(func.min(v.lon), func.min(v.lat), func.max(v.lon), func.max(v.lat),
                           func.min(v.t), func.max(v.t))
                ).first()  # fmt: skip
        if row is None or row[4] is None:
            return None, None
        return _bbox(row[:4]), (float(row[4]), float(row[5]))

    def vessels_by_mmsi(self, mmsis: Sequence[int]) -> dict[int, VesselInfo]:
        """Static data of these vessels (those known)."""
        if not mmsis:
            return {}
        cols = [getattr(Vessel, c) for c in VESSEL_COLUMNS]
        with self._tx() as conn:
            rows = conn.execute(select(*cols).where(Vessel.mmsi.in_(list(mmsis)))).all()
        return {int(r.mmsi): row_vessel(r._mapping) for r in rows}

    def count_latest(self, bbox: BBox | None) -> int:
        """How many vessels have a latest position (inside ``bbox``)."""
        v = VesselLatest
        q = select(func.count()).select_from(v)
        if bbox is not None:
            q = q.where(v.lon.between(bbox[0], bbox[2]), v.lat.between(bbox[1], bbox[3]))
        with self._tx() as conn:
            return int(conn.execute(q).scalar() or 0)

    def latest_between(
        self,
        bbox: BBox | None,
        start: float | None,
        end: float | None,
        limit: int,
        offset: int = 0,
    ) -> tuple[list[Position], int]:
        """The latest positions taken between ``start`` and ``end`` (inclusive, None:
        open) inside ``bbox``, by MMSI, and how many there are in all."""
        v = VesselLatest
        conds: list[Any] = []
        if bbox is not None:
            conds += [v.lon.between(bbox[0], bbox[2]), v.lat.between(bbox[1], bbox[3])]
        if start is not None:
            conds.append(v.t >= start)
        if end is not None:
            conds.append(v.t <= end)
        cols = [c for c in v.__table__.columns if c.name != "geom"]
        page = select(*cols).where(*conds).order_by(v.mmsi).limit(limit).offset(offset)
        with self._tx() as conn:
            rows = conn.execute(page).all()
            total = conn.execute(select(func.count()).select_from(v).where(*conds)).scalar()
        return [row_position(r._mapping) for r in rows], int(total or 0)

    def latest_position(self, mmsi: int) -> Position | None:
        """One vessel's latest position."""
        cols = [c for c in VesselLatest.__table__.columns if c.name != "geom"]
        with self._tx() as conn:
            row = conn.execute(select(*cols).where(VesselLatest.mmsi == mmsi)).first()
        return None if row is None else row_position(row._mapping)
