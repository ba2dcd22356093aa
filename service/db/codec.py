"""Conversions between domain records (Zone, Lead, Position, VesselInfo) and table rows."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from vigia.alerts.lead import EvidencePoint, Lead
from vigia.ingest.records import Position, VesselInfo
from vigia.ingest.units import valid_lonlat
from vigia.zones.model import Zone, ZoneKind

POSITION_COLUMNS = (
    "mmsi",
    "t",
    "msg_type",
    "lon",
    "lat",
    "sog",
    "cog",
    "heading",
    "nav_status",
    "accuracy",
    "source",
)
VESSEL_COLUMNS = (
    "mmsi",
    "name",
    "callsign",
    "imo",
    "ship_type",
    "length_m",
    "beam_m",
    "destination",
    "updated_at",
    "extra",
)


def storable(p: Position) -> bool:
    """Whether a position has a usable location (AIS "not available" ones are not kept)."""
    return valid_lonlat(p.lon, p.lat) and math.isfinite(p.t)


def position_row(p: Position) -> dict[str, Any]:
    """The ``positions`` row of a position."""
    return {
        "mmsi": p.mmsi,
        "t": p.t,
        "msg_type": p.msg_type,
        "lon": p.lon,
        "lat": p.lat,
        "sog": p.sog,
        "cog": p.cog,
        "heading": p.heading,
        "nav_status": p.nav_status,
        "accuracy": p.accuracy,
        "source": p.source,
    }


def row_position(r: Mapping[Any, Any]) -> Position:
    """A position from a ``positions`` or ``vessel_latest`` row."""
    acc = r["accuracy"]
    return Position(
        mmsi=int(r["mmsi"]),
        t=float(r["t"]),
        msg_type=int(r["msg_type"]),
        lon=float(r["lon"]),
        lat=float(r["lat"]),
        sog=r["sog"],
        cog=r["cog"],
        heading=r["heading"],
        nav_status=r["nav_status"],
        accuracy=None if acc is None else bool(acc),
        source=r["source"] or "",
    )


def vessel_row(v: VesselInfo) -> dict[str, Any]:
    """The ``vessels`` row of a vessel."""
    return {
        "mmsi": v.mmsi,
        "name": v.name,
        "callsign": v.callsign,
        "imo": v.imo,
        "ship_type": v.ship_type,
        "length_m": v.length_m,
        "beam_m": v.beam_m,
        "destination": v.destination,
        "updated_at": v.updated_at,
        "extra": dict(v.extra),
    }


def row_vessel(r: Mapping[Any, Any]) -> VesselInfo:
    """A vessel from its row."""
    return VesselInfo(
        mmsi=int(r["mmsi"]),
        name=r["name"],
        callsign=r["callsign"],
        imo=r["imo"],
        ship_type=r["ship_type"],
        length_m=r["length_m"],
        beam_m=r["beam_m"],
        destination=r["destination"],
        updated_at=r["updated_at"],
        extra=dict(r["extra"] or {}),
    )


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat()


def _epoch(dt: datetime | None) -> float | None:
    return None if dt is None else dt.timestamp()


def zone_properties(z: Zone) -> dict[str, Any]:
    """Every attribute of a zone but its geometry, as JSON."""
    return {
        "name": z.name,
        "distance_m": z.distance_m,
        "valid_from": _iso(z.valid_from),
        "valid_to": _iso(z.valid_to),
        "allowed_mmsi": sorted(z.allowed_mmsi),
        "allowed_ship_types": sorted(z.allowed_ship_types),
        "anchoring_prohibited": z.anchoring_prohibited,
        "max_dwell_min": z.max_dwell_min,
        "authority": z.authority,
        "notice": z.notice,
        "source": z.source,
        "properties": z.properties,
    }


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


def _dt(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def row_zone(r: Mapping[Any, Any], wkb: bytes) -> Zone:
    """A zone from its version row and WKB geometry."""
    p = r["properties"]
    return Zone(
        id=r["zone_id"],
        kind=ZoneKind(r["kind"]),
        geometry=geometry_from_wkb(wkb),
        name=p.get("name"),
        distance_m=p.get("distance_m"),
        valid_from=_dt(p.get("valid_from")),
        valid_to=_dt(p.get("valid_to")),
        allowed_mmsi=frozenset(p.get("allowed_mmsi", ())),
        allowed_ship_types=frozenset(p.get("allowed_ship_types", ())),
        anchoring_prohibited=bool(p.get("anchoring_prohibited", False)),
        max_dwell_min=p.get("max_dwell_min"),
        authority=p.get("authority"),
        notice=p.get("notice"),
        source=p.get("source"),
        version=int(r["version"]),
        properties=dict(p.get("properties") or {}),
    )


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
    )
