"""Inspectors' silences and the NORMAM-07 0310 watch-list: pure decisions, no storage.

A silence covers a vessel, a zone, or a vessel in a zone, from an optional start until a
time, with a reason; one made for an authority covers only the leads routed to it. It
is judged on the *position's* time (the lead's first position), never on the clock, so
replaying reviewed data does not raise the same leads again. A silenced lead is still
stored, marked, and never pushed.

A watch-list entry holds a detained or sealed vessel (0310, "lacre": the vessel stays
out of traffic) at a position; any AIS report farther than ``radius_m`` from it raises a
lead at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vigia.alerts.lead import EvidencePoint, Lead, build_lead
from vigia.ingest.records import Position

SEAL_RULE = "PROC-SEAL"
EVIDENCE_CAP = 500
_EARTH_M = 6_371_008.8


@dataclass(frozen=True, slots=True)
class Silence:
    """An inspector's silence."""

    id: int
    mmsi: int | None
    zone_id: str | None
    starts_at: float | None
    until: float
    reason: str
    #: a silence made by a key limited to one authority hides only that authority's
    #: leads (None: any authority's)
    authority: str | None = None

    def covers(
        self, mmsi: int, zone_id: str | None, t: float, authority: str | None = None
    ) -> bool:
        """Whether a lead of ``mmsi`` in ``zone_id`` first seen at ``t``, routed to
        ``authority``, is silenced."""
        if self.authority is not None and self.authority != authority:
            return False
        if self.mmsi is not None and self.mmsi != mmsi:
            return False
        if self.zone_id is not None and self.zone_id != zone_id:
            return False
        return (self.starts_at is None or self.starts_at <= t) and t <= self.until


#: leads no silence may hide: a life in danger (SAR-DISTRESS, NORMAM-07 0213 c)) and a
#: sealed or detained vessel that moves (PROC-SEAL, 0310)
NEVER_SILENCED = frozenset({"SAR-DISTRESS", "PROC-SEAL"})


def silence_for(lead: Lead, silences: Sequence[Silence]) -> Silence | None:
    """The silence (lowest id) covering ``lead`` on its first position's time."""
    if lead.rule in NEVER_SILENCED:
        return None
    hits = [
        s for s in silences if s.covers(lead.mmsi, lead.zone_id, lead.started_at, lead.authority)
    ]
    return min(hits, key=lambda s: s.id) if hits else None


@dataclass(frozen=True, slots=True)
class WatchEntry:
    """A detained or sealed vessel held at a position."""

    id: int
    mmsi: int
    lon: float
    lat: float
    radius_m: float
    reason: str
    authority: str | None = None


def distance_m(lon0: float, lat0: float, lons: np.ndarray, lats: np.ndarray) -> np.ndarray:
    """Great-circle distances in metres from one point to many (haversine)."""
    p0, l0 = np.radians(lat0), np.radians(lon0)
    p, lam = np.radians(lats), np.radians(lons)
    a = np.sin((p - p0) / 2) ** 2 + np.cos(p0) * np.cos(p) * np.sin((lam - l0) / 2) ** 2
    result: np.ndarray = 2 * _EARTH_M * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    return result


def breaches(entries: Sequence[WatchEntry], positions: Sequence[Position]) -> list[Lead]:
    """One lead per entry whose vessel reported beyond its radius in ``positions``:
    the first such report, with the farthest one as the closest-point field's evidence."""
    out: list[Lead] = []
    by_mmsi: dict[int, list[Position]] = {}
    for p in positions:
        if p.lon is not None and p.lat is not None:
            by_mmsi.setdefault(p.mmsi, []).append(p)
    for entry in entries:
        track = sorted(by_mmsi.get(entry.mmsi, ()), key=lambda p: p.t)
        if not track:
            continue
        lons = np.array([p.lon for p in track], dtype=float)
        lats = np.array([p.lat for p in track], dtype=float)
        d = distance_m(entry.lon, entry.lat, lons, lats)
        beyond = np.flatnonzero(d > entry.radius_m)
        if beyond.size == 0:
            continue
        first = int(beyond[0])
        points = [
            EvidencePoint(
                p.t, float(lons[i]), float(lats[i]), p.sog, p.cog, p.nav_status, float(d[i])
            )
            for i, p in enumerate(track)
        ]
        hit = track[first]
        sogs = [e.sog for e in points[first:] if e.sog is not None]
        out.append(
            build_lead(
                mmsi=entry.mmsi,
                rule=SEAL_RULE,
                zone=None,
                started_at=hit.t,
                ended_at=hit.t,
                key_point=points[first],
                points=points[first:],
                cap=EVIDENCE_CAP,
                vessel={},
                max_sog_kn=max(sogs) if sogs else None,
                raw_sentences=hit.raw,
                authority=entry.authority,
                details={
                    "watch_id": entry.id,
                    "held_at": {"lon": entry.lon, "lat": entry.lat},
                    "radius_m": entry.radius_m,
                    "reason": entry.reason,
                },
            )
        )
    return out
