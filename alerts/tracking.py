"""Per-vessel track state: last accepted fix, glitch test, stop timer.

Kept apart from the pipeline so the state a bus consumer must hold per MMSI is plain to
see, and small (a handful of slots; 100,000 vessels in tens of MB).
"""

from __future__ import annotations

import math

from vigia.alerts.episodes import Episode, EpisodeConfig
from vigia.alerts.rules import NAV_AT_ANCHOR, NAV_MOORED, Approach
from vigia.ingest.records import Position, VesselInfo
from vigia.ingest.units import MS_PER_KN

KN = MS_PER_KN
_EARTH_R = 6_371_008.8

Hit = tuple[int, float]  # (zone index, distance to the reference geometry in metres)


class VesselState:
    """What the pipeline remembers of one vessel between fixes."""

    __slots__ = (
        "approaches", "episodes", "era", "last_lat", "last_lon", "last_t", "pending", "stop_t",
    )  # fmt: skip

    def __init__(self) -> None:
        self.last_t: float | None = None
        self.last_lon = 0.0
        self.last_lat = 0.0
        # a fix near a zone waits here for its successor (glitch look-ahead), with what
        # was known of the vessel when it came (it is judged with that)
        self.pending: tuple[Position, list[Hit], VesselInfo | None] | None = None
        self.stop_t: float | None = None
        self.episodes: dict[tuple[str, int], Episode] | None = None
        self.approaches: dict[int, Approach] | None = None
        self.era = 0  # which of the stream's clocks (EraClocks) this vessel's time runs on


class EraClocks:
    """The stream's clocks, one per era: the latest time of the records of each run of
    times no more than ``gap_s`` apart.

    A vessel's silence is measured on the clock of its own era. One clock for the whole
    stream (the latest time seen) made verdicts depend on other vessels' records: after
    an archive of 2024, the vessels of a 2021 archive replayed next looked silent for three
    years between any two of their fixes, so their look-ahead fixes were settled unchecked,
    their episodes closed after every batch and their stop timers forgotten. A live feed
    has one era; only a jump of more than ``gap_s`` starts another."""

    __slots__ = ("clocks", "gap_s")

    def __init__(self, gap_s: float) -> None:
        self.gap_s = gap_s
        self.clocks: list[float] = []

    def note(self, t: float, era: int) -> int:
        """The era of a record at ``t`` of a vessel last in ``era``, its clock advanced."""
        clocks = self.clocks
        if era < len(clocks):
            c = clocks[era]
            if abs(t - c) < self.gap_s:
                if t > c:
                    clocks[era] = t
                return era
        for i, c in enumerate(clocks):
            if abs(t - c) < self.gap_s:
                if t > c:
                    clocks[i] = t
                return i
        clocks.append(t)
        return len(clocks) - 1

    def advance(self, now: float) -> None:
        """Move the clock of the era ``now`` falls in (a live feed's wall time) to it."""
        for i, c in enumerate(self.clocks):
            if now > c and now - c < self.gap_s:
                self.clocks[i] = now

    def of(self, vs: VesselState) -> float:
        """The clock of the vessel's era (-inf before its first record)."""
        return self.clocks[vs.era] if vs.era < len(self.clocks) else -math.inf


def metres(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance (haversine): plenty for telling glitches from sailing."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (
        math.sin((p2 - p1) / 2) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    )
    return 2 * _EARTH_R * math.asin(min(1.0, math.sqrt(a)))


def _impossible(lon1: float, lat1: float, t1: float, p: Position, cfg: EpisodeConfig) -> bool:
    assert p.lon is not None and p.lat is not None
    d = metres(lon1, lat1, p.lon, p.lat)
    dt = max(abs(p.t - t1), 1.0)
    return d > cfg.glitch_min_jump_m and d > cfg.glitch_speed_kn * KN * dt


def is_glitch(vs: VesselState, q: Position, nxt: Position, cfg: EpisodeConfig) -> bool:
    """A fix impossibly far from both the previous accepted fix and the next one."""
    if vs.last_t is None:
        return False
    assert q.lon is not None and q.lat is not None
    return _impossible(vs.last_lon, vs.last_lat, vs.last_t, q, cfg) and _impossible(
        q.lon, q.lat, q.t, nxt, cfg
    )


def update_stop_timer(vs: VesselState, pos: Position, cfg: EpisodeConfig) -> bool:
    """Start or reset the stop timer; returns whether the vessel is stopped now.

    Stopped: SOG at or below the anchoring speed, or an at-anchor/moored status that
    the SOG does not contradict (stale statuses are common on moving ships).
    """
    sog = pos.sog
    by_status = pos.nav_status in (NAV_AT_ANCHOR, NAV_MOORED) and (
        sog is None or sog <= cfg.status_moving_kn
    )
    if by_status or (sog is not None and sog <= cfg.anchor_sog_kn):
        if vs.stop_t is None:
            vs.stop_t = pos.t
        return True
    vs.stop_t = None
    return False
