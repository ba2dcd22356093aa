"""The lead: one episode of one vessel breaking one rule (CONTRACT section 3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vigia.ingest.records import iso_utc


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

    def to_json(self) -> dict[str, Any]:
        """The lead JSON of CONTRACT section 3 (plus a few additive fields)."""
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
        }
