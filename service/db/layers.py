"""Queries behind the OGC API collections: a layer's extent, vessels' static data in
one round trip, how many vessels a bbox holds (``numberMatched``), and each collection's
items under a CQL2 filter over the columns its queryables name (``LAYER_FIELDS``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, true
from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.ingest.records import Position, VesselInfo
from vigia.service.db import lead_pages, sqlite_spatial
from vigia.service.db import zones_leads as zl
from vigia.service.db.codec import VESSEL_COLUMNS, row_position, row_vessel
from vigia.service.db.cql_sql import Cql2, Field, to_condition
from vigia.service.db.models import (
    LeadRow,
    Vessel,
    VesselLatest,
    ZoneVersion,
    assigned_officer,
)
from vigia.service.db.protocol import BBox, LeadKey, LeadPage, LeadQuery, Scope
from vigia.service.db.zones_leads import in_scope
from vigia.zones.model import Zone

Extent = tuple[BBox | None, tuple[float, float] | None]
Interval = tuple[float | None, float | None]
_L, _V, _Z = LeadRow, VesselLatest, ZoneVersion
_ZONE_BOX = (_Z.min_lon, _Z.min_lat, _Z.max_lon, _Z.max_lat)
_LEAD_BOX = (_L.closest_lon, _L.closest_lat, _L.closest_lon, _L.closest_lat)


def _static(column: Any) -> Any:
    # a vessel's static data beside its latest position, correlated on the MMSI
    return select(column).where(Vessel.mmsi == _V.mmsi).scalar_subquery()


#: the columns behind each collection's queryables (routes/queryables.py lists the same)
LAYER_FIELDS: dict[str, dict[str, Field]] = {
    "zones": {
        "geometry": Field("geometry", _Z.geom, _ZONE_BOX, wkb=_Z.geom),
        "id": Field("string", _Z.zone_id),
        "kind": Field("string", _Z.kind),
        "name": Field("string", _Z.name),
        "version": Field("number", _Z.version),
        "valid_from": Field("datetime", _Z.valid_from),
        "valid_to": Field("datetime", _Z.valid_to),
    },
    "leads": {
        "geometry": Field("geometry", _L.closest_geom, _LEAD_BOX),
        "started_at": Field("datetime", _L.started_at),
        "ended_at": Field("datetime", _L.ended_at),
        "closest_t": Field("datetime", _L.closest_t),
        "rule": Field("string", _L.rule),
        "status": Field("string", _L.status),
        "mmsi": Field("number", _L.mmsi),
        "zone_id": Field("string", _L.zone_id),
        "authority": Field("string", _L.authority),
        "min_distance_m": Field("number", _L.min_distance_m),
        "max_sog_kn": Field("number", _L.max_sog_kn),
        # the expression migration 0017 indexes: `assignee = 'X'` reads that index
        "assignee": Field("string", assigned_officer()),
    },
    "vessels": {
        "geometry": Field("geometry", _V.geom, (_V.lon, _V.lat, _V.lon, _V.lat)),
        "t": Field("datetime", _V.t),
        "mmsi": Field("number", _V.mmsi),
        "sog": Field("number", _V.sog),
        "cog": Field("number", _V.cog),
        "heading": Field("number", _V.heading),
        "nav_status": Field("number", _V.nav_status),
        "name": Field("string", _static(Vessel.name)),
        "ship_type": Field("number", _static(Vessel.ship_type)),
    },
}


def _bbox(row: Any) -> BBox | None:
    if row is None or any(v is None for v in row):
        return None
    return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))


class LayerStore:
    """Mixed into SqlRepository: needs ``_tx()``."""

    _tx: Callable[[], AbstractContextManager[Connection]]
    _pg: bool

    def _filter(self, layer: str, cql: Cql2 | None) -> list[ColumnElement[bool]]:
        """A CQL2 filter as conditions on ``layer``'s columns (raised before any SQL runs
        when it names what the layer does not have)."""
        return [] if cql is None else [to_condition(cql, LAYER_FIELDS[layer], self._pg)]

    def _prepare(self, conn: Connection) -> None:
        if not self._pg:
            sqlite_spatial.register(conn)

    def filtered_leads(
        self, query: LeadQuery, cql: Cql2 | None, limit: int, offset: int = 0, *, scope: Scope
    ) -> tuple[list[Lead], int]:
        """A page of the leads in ``scope`` matching ``query`` and the CQL2 filter."""
        extra = self._filter("leads", cql)
        with self._tx() as conn:
            self._prepare(conn)
            return zl.list_leads(conn, self._pg, query, limit, offset, scope, extra)

    def page_leads(
        self,
        query: LeadQuery,
        limit: int,
        *,
        scope: Scope,
        after: LeadKey | None = None,
        offset: int = 0,
        cql: Cql2 | None = None,
    ) -> LeadPage:
        """A page of the leads in ``scope`` matching ``query`` and the CQL2 filter, after
        the key ``after`` (or ``offset`` leads in), with a count marked exact or not
        (``lead_pages.py``)."""
        extra = self._filter("leads", cql)
        cache = self.__dict__.setdefault("_lead_counts", {})
        with self._tx() as conn:
            self._prepare(conn)
            return lead_pages.page_leads(
                conn,
                self._pg,
                query,
                limit,
                scope,
                after=after,
                offset=offset,
                extra=extra,
                cache=cache,
            )

    def filtered_zones(
        self, bbox: BBox | None, interval: Interval | None, cql: Cql2 | None, limit: int,
        offset: int = 0,
    ) -> tuple[list[Zone], int]:  # fmt: skip
        """A page of the current zones meeting ``bbox``, in force at some moment of
        ``interval`` and matching the CQL2 filter, by id, and how many match."""
        extra = self._filter("zones", cql)
        if interval is not None:
            start, end = interval
            if end is not None:
                extra.append(or_(_Z.valid_from.is_(None), _Z.valid_from <= end))
            if start is not None:
                extra.append(or_(_Z.valid_to.is_(None), _Z.valid_to >= start))
        with self._tx() as conn:
            self._prepare(conn)
            return zl.list_zones(conn, self._pg, bbox, None, limit, offset, extra)

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
        cql: Cql2 | None = None,
    ) -> tuple[list[Position], int]:
        """The latest positions taken between ``start`` and ``end`` (inclusive, None:
        open) inside ``bbox`` and matching the CQL2 filter, by MMSI, and how many there
        are in all."""
        v = VesselLatest
        conds: list[Any] = self._filter("vessels", cql)
        if bbox is not None:
            conds += [v.lon.between(bbox[0], bbox[2]), v.lat.between(bbox[1], bbox[3])]
        if start is not None:
            conds.append(v.t >= start)
        if end is not None:
            conds.append(v.t <= end)
        cols = [c for c in v.__table__.columns if c.name != "geom"]
        page = select(*cols).where(*conds).order_by(v.mmsi).limit(limit).offset(offset)
        with self._tx() as conn:
            self._prepare(conn)
            rows = conn.execute(page).all()
            total = conn.execute(select(func.count()).select_from(v).where(*conds)).scalar()
        return [row_position(r._mapping) for r in rows], int(total or 0)

    def latest_position(self, mmsi: int) -> Position | None:
        """One vessel's latest position."""
        cols = [c for c in VesselLatest.__table__.columns if c.name != "geom"]
        with self._tx() as conn:
            row = conn.execute(select(*cols).where(VesselLatest.mmsi == mmsi)).first()
        return None if row is None else row_position(row._mapping)
