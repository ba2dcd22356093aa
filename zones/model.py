"""The zone as every stage sees it: validated properties and a WGS84 geometry."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from shapely.geometry.base import BaseGeometry

from vigia.ingest.errors import VigiaError


class ZoneKind(StrEnum):
    """Kinds of zone (docs/contract.md, section 1)."""

    BATHER_BEACH = "bather_beach"
    MILITARY = "military"
    PLATFORM = "platform"
    ANCHORAGE = "anchorage"
    ACCESS_CHANNEL = "access_channel"
    PORT_FACILITY = "port_facility"
    POWER_PLANT = "power_plant"
    SPECIAL_AREA = "special_area"
    LAUNCH_AREA = "launch_area"
    JURISDICTION = "jurisdiction"


class ZoneError(VigiaError):
    """A zone or zone file is invalid; names the file, the feature and the reason."""

    code = "invalid-zone"

    def __init__(self, reason: str, *, file: str | None = None, feature: str | None = None):
        self.reason = reason
        self.file = file
        self.feature = feature
        where = ", ".join(
            p
            for p in (f"file {file}" if file else "", f"feature {feature}" if feature else "")
            if p
        )
        super().__init__(f"{where}: {reason}" if where else reason)


@dataclass(frozen=True, slots=True)
class Zone:
    """One validated zone. ``geometry`` is WGS84 lon/lat, the reference geometry
    (platform point, military footprint, beach baseline, or the area polygon)."""

    id: str
    kind: ZoneKind
    geometry: BaseGeometry
    name: str | None = None
    distance_m: float | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    allowed_mmsi: frozenset[int] = frozenset()
    allowed_ship_types: frozenset[int] = frozenset()
    anchoring_prohibited: bool = False
    max_dwell_min: float | None = None
    authority: str | None = None
    notice: str | None = None
    source: str | None = None
    version: int = 1
    properties: dict[str, Any] = field(default_factory=dict)

    def authority_at(self, distance_m: float) -> str | None:
        """The Capitania a position at ``distance_m`` from this zone falls under: only a
        jurisdiction polygon the position lies inside routes it (PROC-AUTHORITY)."""
        if self.kind is ZoneKind.JURISDICTION and distance_m <= 0.0:
            return self.authority
        return None

    @property
    def offset_m(self) -> float:
        """How far the rule's reference lies beyond the charted geometry, in metres: a
        platform's ``footprint_m`` (the hull around its charted point) or a beach's
        ``baseline_offset_m`` (the surf line seaward of the chart coastline). Distances
        are measured from the charted geometry grown by this much."""
        if self.kind is ZoneKind.PLATFORM:
            return float(self.properties.get("footprint_m") or 0.0)
        if self.kind is ZoneKind.BATHER_BEACH:
            return float(self.properties.get("baseline_offset_m") or 0.0)
        return 0.0

    def in_force(self, t: float) -> bool:
        """Whether the zone applies at Unix time ``t``: inside its validity window, if
        any, and its recurring periods (``recurrence``, see :mod:`zones.recurrence`)."""
        if self.valid_from is not None and t < self.valid_from.timestamp():
            return False
        if self.valid_to is not None and t > self.valid_to.timestamp():
            return False
        rec = self.properties.get("recurrence")
        if rec is None:
            return True
        from vigia.zones.recurrence import matches

        return matches(rec, t)
