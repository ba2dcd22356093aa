"""Voyage screening: when and for how long a track was in water meeting 2.3.1 a) and b).

An analyst can audit an arrival before the ballast declaration comes in: from the AIS
track, the windows spent at least 200 nm (a) or 50 nm (b) from land in water at least
200 m deep. Two consecutive fixes both in such water count as one window when they are
at most ``max_gap_s`` apart; a longer AIS gap splits it, since nothing is known between.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from vigia.ingest.records import Position, iso_utc
from vigia.zones.ballast import BEYOND, ZONES, BallastAssessor
from vigia.zones.model import Zone, ZoneKind

DEFAULT_MAX_GAP_S = 3 * 3600.0


@dataclass(frozen=True, slots=True)
class WaterWindow:
    """A stretch of track continuously in qualifying water."""

    start: float
    end: float
    points: int

    @property
    def hours(self) -> float:
        """Its length in hours."""
        return (self.end - self.start) / 3600.0

    def to_json(self) -> dict[str, Any]:
        """Start, end (ISO UTC), hours and the number of AIS fixes."""
        return {
            "start": iso_utc(self.start),
            "end": iso_utc(self.end),
            "hours": round(self.hours, 2),
            "points": self.points,
        }


def windows(ts: NDArray[np.float64], ok: NDArray[np.bool_], max_gap_s: float) -> list[WaterWindow]:
    """Runs of consecutive qualifying fixes no more than ``max_gap_s`` apart."""
    out: list[WaterWindow] = []
    start = -1
    for i in range(len(ts)):
        if ok[i] and start >= 0 and ts[i] - ts[i - 1] <= max_gap_s:
            continue
        if start >= 0:
            out.append(WaterWindow(float(ts[start]), float(ts[i - 1]), i - start))
            start = -1
        if ok[i]:
            start = i
    if start >= 0:
        out.append(WaterWindow(float(ts[start]), float(ts[-1]), len(ts) - start))
    return out


@dataclass(slots=True)
class AssessedTrack:
    """A track's fixes with their ballast figures (time-ordered, positions known)."""

    positions: list[Position]
    t: NDArray[np.float64]
    lon: NDArray[np.float64]
    lat: NDArray[np.float64]
    distance_nm: NDArray[np.float64]
    depth_m: NDArray[np.float64]
    zone: NDArray[np.int8]
    meets_200: NDArray[np.bool_]
    meets_50: NDArray[np.bool_]

    def a_windows(self, max_gap_s: float = DEFAULT_MAX_GAP_S) -> list[WaterWindow]:
        """Windows in water meeting 2.3.1 a)."""
        return windows(self.t, self.meets_200, max_gap_s)

    def b_windows(self, max_gap_s: float = DEFAULT_MAX_GAP_S) -> list[WaterWindow]:
        """Windows in water meeting at least 2.3.1 b)."""
        return windows(self.t, self.meets_50, max_gap_s)


def assess_track(track: Sequence[Position], assessor: BallastAssessor) -> AssessedTrack:
    """Sort a track by time, drop fixes without a position, and assess every fix."""
    pos = sorted((p for p in track if p.lon is not None and p.lat is not None), key=lambda p: p.t)
    t = np.array([p.t for p in pos], dtype=np.float64)
    lon = np.array([p.lon for p in pos], dtype=np.float64)
    lat = np.array([p.lat for p in pos], dtype=np.float64)
    a = assessor.assess(lon, lat)
    return AssessedTrack(
        pos, t, lon, lat, a.distance_nm, a.depth_m, a.zone, a.meets_200, a.meets_50
    )


def _summary(ws: list[WaterWindow]) -> dict[str, Any]:
    return {
        "total_hours": round(sum(w.hours for w in ws), 2),
        "longest_hours": round(max((w.hours for w in ws), default=0.0), 2),
        "windows": [w.to_json() for w in ws],
    }


def screen_voyage(
    mmsi: int,
    track: Sequence[Position],
    assessor: BallastAssessor,
    *,
    arrival_t: float | None = None,
    max_gap_s: float = DEFAULT_MAX_GAP_S,
) -> dict[str, Any]:
    """Before arrival (the last fix, or ``arrival_t``): time in a)- and b)-water."""
    before = [p for p in track if arrival_t is None or p.t <= arrival_t]
    at = assess_track(before, assessor)
    base: dict[str, Any] = {"mmsi": mmsi, "points": len(at.t), "basemap": assessor.basemap.names}
    if not len(at.t):
        return {**base, "from": None, "arrival": None, "came_from_beyond_200nm": False}
    beyond = np.flatnonzero(at.zone == BEYOND)
    a_ws, b_ws = at.a_windows(max_gap_s), at.b_windows(max_gap_s)
    last = len(at.t) - 1
    return {
        **base,
        "from": iso_utc(float(at.t[0])),
        "arrival": iso_utc(float(at.t[last])),
        "arrival_position": {
            "lon": float(at.lon[last]),
            "lat": float(at.lat[last]),
            "distance_to_land_nm": round(float(at.distance_nm[last]), 2),
            "zone": ZONES[int(at.zone[last])],
        },
        "came_from_beyond_200nm": bool(len(beyond)),
        "last_beyond_200nm": iso_utc(float(at.t[beyond[-1]])) if len(beyond) else None,
        "a_water": _summary(a_ws),
        "b_water": _summary(b_ws),
        "last_a_water": a_ws[-1].to_json() if a_ws else None,
        "max_gap_s": max_gap_s,
        "note": (
            "a_water: at least 200 nm from land and 200 m deep (NORMAM-20 2.3.1 a); "
            "b_water: at least 50 nm and 200 m deep (2.3.1 b), a_water included; "
            f"fixes more than {max_gap_s / 3600:g} h apart split a window"
        ),
    }


PORT_KINDS = frozenset({ZoneKind.PORT_FACILITY, ZoneKind.ANCHORAGE})


def arrivals(at: AssessedTrack, zones: Sequence[Zone]) -> list[tuple[int, Zone]]:
    """Fixes where the ship enters a port zone having been beyond 200 nm since its last one."""
    ports = [z for z in zones if z.kind in PORT_KINDS]
    inside = np.full(len(at.t), -1, dtype=np.intp)
    for k, z in enumerate(ports):
        hit = np.asarray(shapely.contains_xy(z.geometry, at.lon, at.lat), dtype=bool)
        inside[hit & (inside < 0)] = k
    out: list[tuple[int, Zone]] = []
    was_beyond = in_port = False
    for i in range(len(at.t)):  # a small state machine over one ship's fixes
        was_beyond = was_beyond or at.zone[i] == BEYOND
        if inside[i] >= 0:
            if not in_port and was_beyond:
                out.append((i, ports[inside[i]]))
                was_beyond = False
            in_port = True
        else:
            in_port = False
    return out


def screen_arrivals(
    mmsi: int,
    track: Sequence[Position],
    zones: Sequence[Zone],
    assessor: BallastAssessor,
    *,
    max_gap_s: float = DEFAULT_MAX_GAP_S,
) -> list[dict[str, Any]]:
    """Each arrival at a port zone from beyond 200 nm, screened since the previous one."""
    return [
        doc for _, doc in screen_arrivals_between(mmsi, track, zones, assessor, max_gap_s=max_gap_s)
    ]


def screen_arrivals_between(
    mmsi: int,
    track: Sequence[Position],
    zones: Sequence[Zone],
    assessor: BallastAssessor,
    start: float | None = None,
    end: float | None = None,
    *,
    max_gap_s: float = DEFAULT_MAX_GAP_S,
) -> list[tuple[float, dict[str, Any]]]:
    """Arrivals from beyond 200 nm at a time in [start, end], each as (Unix time, screening
    of the leg since the previous arrival); legs outside the window are not screened."""
    at = assess_track(track, assessor)
    out = []
    since = 0
    for i, zone in arrivals(at, zones):
        t = float(at.t[i])
        if (start is None or t >= start) and (end is None or t <= end):
            leg = at.positions[since : i + 1]
            screening = screen_voyage(mmsi, leg, assessor, max_gap_s=max_gap_s)
            out.append((t, {"port_zone_id": zone.id, "arrived_at": iso_utc(t), **screening}))
        since = i + 1
    return out
