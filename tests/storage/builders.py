"""Record builders shared by the storage tests."""

from __future__ import annotations

from typing import Any

from vigia.alerts.lead import EvidencePoint, Lead
from vigia.ingest.records import Position

T0 = 1_764_000_000.0  # 2025-11-24, a real month for the partitions


def pos(mmsi: int, t: float, lon: float | None, lat: float | None, **kw: Any) -> Position:
    """A class A position report."""
    return Position(mmsi=mmsi, t=t, msg_type=1, lon=lon, lat=lat, **kw)


def lead(lead_id: str, **kw: Any) -> Lead:
    """A platform lead near Campos basin, with two evidence points."""
    base: dict[str, Any] = {
        "id": lead_id,
        "mmsi": 710_000_001,
        "rule": "SEC-PLATFORM",
        "citation": "NORMAM-07/DPC 0212 f)",
        "zone_id": "plat-p50",
        "zone_kind": "platform",
        "started_at": T0,
        "ended_at": None,
        "min_distance_m": 120.0,
        "max_sog_kn": 8.5,
        "closest_lon": -40.0,
        "closest_lat": -22.5,
        "closest_t": T0 + 60,
        "evidence": [
            EvidencePoint(T0, -40.01, -22.5, 8.5, 90.0, 0, 300.0),
            EvidencePoint(T0 + 60, -40.0, -22.5, 8.0, 91.0, 0, 120.0),
        ],
        "raw_sentences": ["!AIVDM,1,1,,A,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"],
        "vessel": {"name": "NAVIO", "ship_type": 70},
        "zone_version": 1,
    }
    base.update(kw)
    return Lead(**base)
