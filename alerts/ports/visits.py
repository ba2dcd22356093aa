"""Port visits after Global Fishing Watch's published rule (issue 33, docs/gaps.md).

A vessel *enters* a port when a fix comes within ``entry_m`` (3 km) of a port-facility or
anchorage zone and *exits* at its first fix beyond ``exit_m`` (4 km) of that zone: the
1 km between the two is GFW's hysteresis, so a ship swinging at anchor on the 3 km line
makes one visit, not many. Inside a visit a *stop* begins at a fix below ``stop_kn``
(0.2 kn) and ends at the first fix above ``go_kn`` (0.5 kn), again a hysteresis. A visit
runs from its entry fix to its exit fix, with its stops and its duration.

A visit belongs to one zone. A fix beyond ``exit_m`` of the visit's zone ends it even if
it lies near another port zone; when that fix is within ``entry_m`` of another one it
opens the next visit at once (a ship moving from the anchorage to the quay makes two
visits, each with its own times, rather than one that would hide the anchorage wait).

Pure domain: the pipeline feeds each vessel's fixes in time order (``alerts.ports.stage``)
and gives a visit out once the lateness bound has passed its exit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PortVisitConfig:
    """GFW's figures (docs/gaps.md, "Port visits")."""

    #: off: no visit tracked, the gap rule falls back to its distance test
    enabled: bool = True
    entry_m: float = 3_000.0
    exit_m: float = 4_000.0
    stop_kn: float = 0.2
    go_kn: float = 0.5


@dataclass(frozen=True, slots=True)
class Stop:
    """A stop inside a visit: from its first fix below ``stop_kn`` to its first fix
    above ``go_kn`` (or the visit's exit, when the vessel never reported moving)."""

    start_t: float
    end_t: float
    lon: float
    lat: float

    def to_json(self) -> dict[str, Any]:
        from vigia.ingest.records import iso_utc

        return {
            "start": iso_utc(self.start_t),
            "end": iso_utc(self.end_t),
            "duration_s": round(self.end_t - self.start_t, 1),
            "lon": self.lon,
            "lat": self.lat,
        }


@dataclass(frozen=True, slots=True)
class PortVisit:
    """One visit of one vessel to one port or anchorage zone."""

    mmsi: int
    zone_id: str
    zone_name: str | None
    zone_kind: str
    arrival_t: float
    arrival_lon: float
    arrival_lat: float
    departure_t: float
    departure_lon: float
    departure_lat: float
    stops: tuple[Stop, ...] = field(default=())

    @property
    def id(self) -> str:
        """Stable: the same records give the same id (a rerun stores it once)."""
        return f"pv-{self.mmsi}-{self.zone_id}-{round(self.arrival_t * 1000)}"

    @property
    def duration_s(self) -> float:
        return self.departure_t - self.arrival_t

    def to_json(self) -> dict[str, Any]:
        from vigia.ingest.records import iso_utc

        return {
            "id": self.id,
            "mmsi": self.mmsi,
            "zone_id": self.zone_id,
            "zone_name": self.zone_name,
            "zone_kind": self.zone_kind,
            "arrival": iso_utc(self.arrival_t),
            "departure": iso_utc(self.departure_t),
            "duration_s": round(self.duration_s, 1),
            "arrival_position": {"lon": self.arrival_lon, "lat": self.arrival_lat},
            "departure_position": {"lon": self.departure_lon, "lat": self.departure_lat},
            "stops": [s.to_json() for s in self.stops],
        }


class VisitState:
    """A vessel's visit in progress (``zone`` None: in none) and the visits its fixes
    ended that the lateness bound has not passed yet."""

    __slots__ = ("arrival", "done", "stop_from", "stops", "zone")

    def __init__(self) -> None:
        self.zone: int | None = None
        self.arrival: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.stops: list[Stop] = []
        self.stop_from: tuple[float, float, float] | None = None
        self.done: list[tuple[int, PortVisit]] = []

    def clone(self) -> VisitState:
        c = VisitState()
        c.zone, c.arrival, c.stop_from = self.zone, self.arrival, self.stop_from
        c.stops, c.done = list(self.stops), list(self.done)
        return c

    @property
    def idle(self) -> bool:
        """In no visit and nothing waiting: the vessel need not keep this state."""
        return self.zone is None and not self.done

    @property
    def arrival_t(self) -> float:
        return self.arrival[0]


#: what ``step`` needs to know of a zone: id, name, kind (a ZoneIndex position's)
ZoneNames = Any


def step(
    st: VisitState,
    cfg: PortVisitConfig,
    mmsi: int,
    fix: tuple[float, float, float, float | None],
    near: dict[int, float],
    zones: ZoneNames,
) -> PortVisit | None:
    """One fix ``(t, lon, lat, sog)`` of the vessel, in time order, with the distances
    (m) to the port zones within ``exit_m`` (zone index -> distance). Returns the visit
    this fix ended, if any (also kept in ``st.done`` until the bound passes it)."""
    t, lon, lat, sog = fix
    ended = None
    if st.zone is not None and near.get(st.zone, math.inf) > cfg.exit_m:
        ended = _close(st, mmsi, t, lon, lat, zones)
    if st.zone is None:
        entry = [(d, zones[z].id, z) for z, d in near.items() if d <= cfg.entry_m]
        if not entry:
            return ended
        # the nearest zone, ties by id: the same whatever order the index lists them
        st.zone = min(entry)[2]
        st.arrival = (t, lon, lat)
        st.stops, st.stop_from = [], None
    if sog is not None:
        if st.stop_from is None and sog < cfg.stop_kn:
            st.stop_from = (t, lon, lat)
        elif st.stop_from is not None and sog > cfg.go_kn:
            t0, x, y = st.stop_from
            st.stops.append(Stop(t0, t, x, y))
            st.stop_from = None
    return ended


def _close(
    st: VisitState, mmsi: int, t: float, lon: float, lat: float, zones: ZoneNames
) -> PortVisit:
    assert st.zone is not None
    if st.stop_from is not None:  # never reported moving again: the stop ends at the exit
        t0, x, y = st.stop_from
        st.stops.append(Stop(t0, t, x, y))
    zone = zones[st.zone]
    visit = PortVisit(
        mmsi, zone.id, zone.name, str(zone.kind.value), st.arrival[0], st.arrival[1],
        st.arrival[2], t, lon, lat, tuple(st.stops),
    )  # fmt: skip
    st.done.append((st.zone, visit))
    st.zone, st.stops, st.stop_from = None, [], None
    return visit
