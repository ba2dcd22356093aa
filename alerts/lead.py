"""The lead: one episode of one vessel breaking one rule (docs/contract.md, section 3).

Every lead is built here, by :func:`build_lead`, whatever raised it (a zone episode, a
distress beacon, a ballast audit): one id scheme, one vessel mapping, one evidence thinning.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vigia.alerts.procedure.workflow import regime_of
from vigia.alerts.rules import citation
from vigia.ingest.records import Position, VesselInfo, flag_mid, iso_utc
from vigia.zones.model import Zone


@dataclass(slots=True, frozen=True)
class EvidencePoint:
    """One position kept as evidence of an episode."""

    t: float
    lon: float
    lat: float
    sog: float | None
    cog: float | None
    nav_status: int | None
    distance_m: float | None = None

    @classmethod
    def of(cls, p: Position, distance_m: float | None, lon: float, lat: float) -> EvidencePoint:
        """The evidence of position ``p`` at ``lon``/``lat`` (checked by the caller: a
        position's own may be None) and ``distance_m`` from what it broke."""
        return cls(p.t, lon, lat, p.sog, p.cog, p.nav_status, distance_m)

    def to_json(self) -> dict[str, Any]:
        """The contract's evidence item."""
        return {
            "t": iso_utc(self.t),
            "lon": self.lon,
            "lat": self.lat,
            "sog": self.sog,
            "cog": self.cog,
            "nav_status": self.nav_status,
            "distance_m": None if self.distance_m is None else round(self.distance_m, 1),
        }


@dataclass(slots=True)
class Lead:
    """An infraction lead; ``to_json`` gives the contract's JSON object."""

    id: str
    mmsi: int
    rule: str
    citation: str
    zone_id: str | None
    zone_kind: str | None
    started_at: float
    ended_at: float | None
    min_distance_m: float
    max_sog_kn: float | None
    closest_lon: float
    closest_lat: float
    closest_t: float
    evidence: list[EvidencePoint]
    raw_sentences: list[str] = field(default_factory=list)
    vessel: dict[str, Any] = field(default_factory=dict)
    authority: str | None = None
    status: str = "new"
    zone_version: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    #: what inspectors entered through the procedure (alerts/procedure/workflow.py); empty at first
    procedure: dict[str, Any] = field(default_factory=dict)
    due_on: str | None = None  # the soonest pending deadline, ISO date
    #: the inspector's silence it was raised in (stored and marked, never pushed)
    silence_id: int | None = None
    #: the store's count of changes to the record (the HTTP ETag); 0 before it is stored
    version: int = 0

    def to_json(self) -> dict[str, Any]:
        """The lead JSON of docs/contract.md section 3 (plus a few additive fields)."""
        return {
            "id": self.id,
            "mmsi": self.mmsi,
            "vessel": self.vessel,
            "rule": self.rule,
            "citation": self.citation,
            "zone_id": self.zone_id,
            "zone_kind": self.zone_kind,
            "zone_version": self.zone_version,
            "started_at": iso_utc(self.started_at),
            "ended_at": None if self.ended_at is None else iso_utc(self.ended_at),
            "min_distance_m": round(self.min_distance_m, 1),
            "max_sog_kn": self.max_sog_kn,
            "closest_point": {
                "type": "Point",
                "coordinates": [self.closest_lon, self.closest_lat],
            },
            "closest_t": iso_utc(self.closest_t),
            "evidence": [e.to_json() for e in self.evidence],
            "raw_sentences": list(self.raw_sentences),
            "authority": self.authority,
            "status": self.status,
            "details": self.details,
            "regime": regime_of(self.rule, self.procedure),
            "procedure": self.procedure,
            "due": self.due_on,
            "silenced": self.silence_id is not None,
        }


def lead_id(mmsi: int, rule: str, zone_id: str | None, started_at: float) -> str:
    """Stable lead id: the same vessel, rule, zone (none for distress and ballast leads)
    and start always give the same id, so a replay upserts instead of duplicating."""
    key = f"{mmsi}|{rule}|{zone_id or ''}|{started_at:.3f}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def thin(
    points: Sequence[EvidencePoint], keep: EvidencePoint | None, cap: int
) -> list[EvidencePoint]:
    """At most ``cap`` points evenly spread over ``points`` (time-ordered), keeping the
    first, the last and ``keep`` (the point the lead is about)."""
    if len(points) <= cap:
        return list(points)
    cap = max(cap, 3)
    n = len(points)
    step = (n - 1) / (cap - 1)
    picked = {round(i * step) for i in range(cap)}
    out = [points[i] for i in sorted(picked)]
    if keep is not None and keep not in out:
        # make room for the key point by dropping the sample nearest to it in time
        j = min(range(1, len(out) - 1), key=lambda i: abs(out[i].t - keep.t))
        out[j] = keep
        out.sort(key=lambda e: e.t)
    return out


def vessel_json(mmsi: int | None, info: VesselInfo | None) -> dict[str, Any]:
    """The lead's ``vessel`` object from what the registry knows (nulls where unknown)."""
    return {
        "name": info.name if info else None,
        "ship_type": info.ship_type if info else None,
        "length_m": info.length_m if info else None,
        "flag_mid": flag_mid(mmsi) if mmsi is not None else None,
    }


def build_lead(
    *,
    mmsi: int,
    rule: str,
    zone: Zone | None,
    started_at: float,
    ended_at: float | None,
    key_point: EvidencePoint,
    points: Sequence[EvidencePoint],
    cap: int,
    vessel: dict[str, Any],
    max_sog_kn: float | None,
    raw_sentences: Sequence[str] = (),
    authority: str | None = None,
    details: dict[str, Any] | None = None,
) -> Lead:
    """The one way to make a lead. ``key_point`` is the position the lead is about (the
    closest approach, a beacon's latest fix, an exchange's worst point); its distance is
    the lead's ``min_distance_m``. ``points`` (time-ordered) are thinned to ``cap``."""
    return Lead(
        id=lead_id(mmsi, rule, zone.id if zone else None, started_at),
        mmsi=mmsi,
        rule=rule,
        citation=citation(rule),
        zone_id=zone.id if zone else None,
        zone_kind=str(zone.kind) if zone else None,
        started_at=started_at,
        ended_at=ended_at,
        min_distance_m=key_point.distance_m or 0.0,
        max_sog_kn=max_sog_kn,
        closest_lon=key_point.lon,
        closest_lat=key_point.lat,
        closest_t=key_point.t,
        # a key point that is no fix (a declared position) is not slipped into the evidence
        evidence=thin(points, key_point if key_point in points else None, cap),
        raw_sentences=list(raw_sentences),
        vessel=vessel,
        authority=authority,
        zone_version=zone.version if zone else None,
        details=details or {},
    )
