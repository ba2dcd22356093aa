"""Per-vessel track state: last accepted fix, glitch test, stop timer.

Kept apart from the pipeline so the state a bus consumer must hold per MMSI is plain to
see, and small (a handful of slots; 100,000 vessels in tens of MB).
"""

from __future__ import annotations

import math
from typing import Any

from vigia.alerts.episodes import Episode, EpisodeConfig
from vigia.alerts.rules import NAV_AT_ANCHOR, NAV_MOORED, Approach, VesselMoment, propulsion
from vigia.ingest.records import Position, VesselInfo
from vigia.ingest.units import MS_PER_KN

KN = MS_PER_KN
_EARTH_R = 6_371_008.8

Hit = tuple[int, float]  # (zone index, distance to the reference geometry in metres)


class VesselState:
    """What the pipeline remembers of one vessel between fixes."""

    __slots__ = (
        "approaches",
        "closing",
        "episodes",
        "gaps",
        "ident",
        "last_lat",
        "last_lon",
        "last_t",
        "pending",
        "seen",
        "segs",
        "shared",
        "stop_t",
        "tl",
        "tracks",
        "visit",
    )

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
        # episodes the vessel's own fixes ended, held until no record within the
        # lateness bound can change them (then given out closed: alerts/arrival.py)
        self.closing: list[Episode] | None = None
        # its records within the lateness bound, and copies of this state (arrival.py)
        self.tl: Any = None
        # its latest fix whatever else was forgotten (t, lon, lat, sog, cog, status,
        # message type, source), and its silences waiting to be judged (alerts/gaps)
        self.seen: tuple[Any, ...] | None = None
        self.gaps: list[Any] | None = None
        # one MMSI, two ships (alerts/identity/segments.py): the segments' last fixes,
        # the states of segments other than the vessel's own, and overlaps seen
        self.tracks: list[Any] | None = None
        self.segs: dict[int, VesselState] | None = None
        self.shared: list[Any] | None = None
        # its static data's history and identity lead events (alerts/identity/static.py)
        self.ident: Any = None
        # its port visit in progress and those waiting for the bound (alerts/ports)
        self.visit: Any = None

    def __setstate__(self, state: Any) -> None:
        # a partition checkpointed before these slots existed: start them empty
        self.closing = None
        self.tl = None
        self.seen = None
        self.gaps = None
        self.tracks = None
        self.segs = None
        self.shared = None
        self.ident = None
        self.visit = None
        slots = state[1] if isinstance(state, tuple) else state
        for k, v in (slots or {}).items():
            setattr(self, k, v)

    @property
    def quiet(self) -> bool:
        """Nothing open, pending or held: what remains is the last fix and stop timer."""
        return (
            self.pending is None
            and self.episodes is None
            and self.approaches is None
            and self.closing is None
            and not self.gaps
            and not self.shared
            and not (self.ident is not None and self.ident.events)
            and self.visit is None
        )

    def reset(self) -> None:
        """Silent past the forget time: judged afresh from the next fix on (the same
        whether the expiry sweep forgot the vessel first or not)."""
        self.last_t = None
        self.last_lon = self.last_lat = 0.0
        self.stop_t = None
        self.approaches = None


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


def moment(
    vs: VesselState,
    pos: Position,
    info: VesselInfo | None,
    stopped: bool,
    sog: float | None,
    cfg: EpisodeConfig,
) -> VesselMoment:
    """What the rules judge of a vessel at one fix: its propulsion (from the AIS type
    or the status), speed, course and whether it is stopped or anchored."""
    ship_type = info.ship_type if info is not None else None
    sailing, basis, inferred = propulsion(ship_type, pos.nav_status)
    stopped_for = pos.t - vs.stop_t if (stopped and vs.stop_t is not None) else 0.0
    return VesselMoment(
        mmsi=pos.mmsi,
        t=pos.t,
        ship_type=ship_type,
        sailing=sailing,
        sog=sog,
        cog=pos.cog,
        heading=pos.heading,
        nav_status=pos.nav_status,
        stopped=stopped,
        anchored=stopped and (pos.nav_status == NAV_AT_ANCHOR or stopped_for >= cfg.anchor_dwell_s),
        stopped_for_s=stopped_for,
        propulsion_basis=basis,
        propulsion_inferred=inferred,
    )
