"""Conversions between domain records (Zone, Lead, Position, VesselInfo) and table rows."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from vigia.alerts.lead import EvidencePoint, Lead
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.records import Position, VesselInfo, field_names
from vigia.ingest.units import valid_lonlat
from vigia.zones.catalogue import zone_from_properties, zone_to_feature
from vigia.zones.model import Zone

# rows are the records' own fields (raw sentences are kept only as a lead's evidence)
# raw sentences and signal extras travel with a position but are not stored with it
POSITION_COLUMNS = field_names(Position, frozenset({"raw", "extras"}))
VESSEL_COLUMNS = field_names(VesselInfo)


def storable(p: Position) -> bool:
    """Whether a position has a usable location (AIS "not available" ones are not kept)
    and a sender with a station's identity (ingest skips the others already; the store
    holds the same rule for whatever else writes to it)."""
    return valid_lonlat(p.lon, p.lat) and math.isfinite(p.t) and is_valid_mmsi(p.mmsi)


def position_row(p: Position) -> dict[str, Any]:
    """The ``positions`` row of a position."""
    return {n: getattr(p, n) for n in POSITION_COLUMNS}


def row_position(r: Mapping[Any, Any]) -> Position:
    """A position from a ``positions`` or ``vessel_latest`` row."""
    p = Position(**{n: r[n] for n in POSITION_COLUMNS})
    # SQLite hands booleans back as integers and NULL text as None
    p.accuracy = None if p.accuracy is None else bool(p.accuracy)
    p.source = p.source or ""
    return p


def vessel_row(v: VesselInfo) -> dict[str, Any]:
    """The ``vessels`` row of a vessel."""
    row = {n: getattr(v, n) for n in VESSEL_COLUMNS}
    row["extra"] = dict(v.extra)
    return row


def row_vessel(r: Mapping[Any, Any]) -> VesselInfo:
    """A vessel from its row."""
    v = VesselInfo(**{n: r[n] for n in VESSEL_COLUMNS})
    v.extra = dict(v.extra or {})
    return v


def zone_properties(z: Zone) -> dict[str, Any]:
    """Every attribute of a zone but its geometry and version: the contract's Feature
    properties (the same JSON a zone file holds; the row keeps the version)."""
    props: dict[str, Any] = zone_to_feature(z)["properties"]
    props.pop("version", None)
    return props


def _epoch(dt: datetime | None) -> float | None:
    return None if dt is None else dt.timestamp()


def zone_row(z: Zone, version: int, now: float) -> dict[str, Any]:
    """The ``zone_versions`` row of a zone version (geometry handled by the caller)."""
    min_lon, min_lat, max_lon, max_lat = z.geometry.bounds
    return {
        "zone_id": z.id,
        "version": version,
        "kind": str(z.kind),
        "name": z.name,
        "properties": zone_properties(z),
        "min_lon": min_lon,
        "min_lat": min_lat,
        "max_lon": max_lon,
        "max_lat": max_lat,
        "valid_from": _epoch(z.valid_from),
        "valid_to": _epoch(z.valid_to),
        "retired": False,
        "current": True,
        "created_at": now,
    }


def row_zone(r: Mapping[Any, Any], wkb: bytes) -> Zone:
    """A zone from its version row and WKB geometry (stored zones were validated when
    they were written; the geometry is not checked again on every read)."""
    props = {**r["properties"], "id": r["zone_id"], "kind": r["kind"]}
    return zone_from_properties(props, geometry_from_wkb(wkb), version=int(r["version"]))


def geometry_wkb(g: BaseGeometry) -> bytes:
    """ISO WKB of a geometry."""
    out: bytes = shapely.to_wkb(g)
    return out


def geometry_from_wkb(data: bytes | memoryview) -> BaseGeometry:
    """A shapely geometry from WKB bytes."""
    geom: BaseGeometry = shapely.from_wkb(bytes(data))
    return geom


def _evidence_json(e: EvidencePoint) -> dict[str, Any]:
    # raw floats (not the contract's ISO text) so a stored lead reads back identical
    return {
        "t": e.t,
        "lon": e.lon,
        "lat": e.lat,
        "sog": e.sog,
        "cog": e.cog,
        "nav_status": e.nav_status,
        "distance_m": e.distance_m,
    }


def lead_row(lead: Lead, now: float) -> dict[str, Any]:
    """The ``leads`` row of a lead."""
    return {
        "id": lead.id,
        "mmsi": lead.mmsi,
        "rule": lead.rule,
        "citation": lead.citation,
        "zone_id": lead.zone_id,
        "zone_kind": lead.zone_kind,
        "zone_version": lead.zone_version,
        "started_at": lead.started_at,
        "ended_at": lead.ended_at,
        "min_distance_m": lead.min_distance_m,
        "max_sog_kn": lead.max_sog_kn,
        "closest_lon": lead.closest_lon,
        "closest_lat": lead.closest_lat,
        "closest_t": lead.closest_t,
        "evidence": [_evidence_json(e) for e in lead.evidence],
        "raw_sentences": list(lead.raw_sentences),
        "vessel": dict(lead.vessel),
        "authority": lead.authority,
        "status": lead.status,
        "details": dict(lead.details),
        "silence_id": lead.silence_id,
        "updated_at": now,
    }


def row_lead(r: Mapping[Any, Any]) -> Lead:
    """A lead from its row."""
    return Lead(
        id=r["id"],
        mmsi=int(r["mmsi"]),
        rule=r["rule"],
        citation=r["citation"],
        zone_id=r["zone_id"],
        zone_kind=r["zone_kind"],
        started_at=float(r["started_at"]),
        ended_at=r["ended_at"],
        min_distance_m=float(r["min_distance_m"]),
        max_sog_kn=r["max_sog_kn"],
        closest_lon=float(r["closest_lon"]),
        closest_lat=float(r["closest_lat"]),
        closest_t=float(r["closest_t"]),
        evidence=[EvidencePoint(**e) for e in r["evidence"]],
        raw_sentences=list(r["raw_sentences"]),
        vessel=dict(r["vessel"]),
        authority=r["authority"],
        status=r["status"],
        zone_version=r["zone_version"],
        details=dict(r["details"]),
        procedure=dict(r["procedure"] or {}),
        due_on=r["due_on"],
        silence_id=r["silence_id"],
        version=int(r["version"]),
    )
