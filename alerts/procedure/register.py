"""The bundled register of the Maritime Authority's offices and the approximate
jurisdiction derived from it, used until official jurisdiction zones are loaded.

The approximate jurisdiction of an office is the set of sea points nearer to its seat
than to any other seat (the Voronoi cell of the seats, measured on the sphere), cut at
:data:`REACH_NM` from the seat, which covers the EEZ's 200 NM from any coastal seat, and
at :data:`AGENCY_REACH_NM` from an Agência's (its waters are a few municipalities'). A
lead it routes says so (``details["routing"]["approximate"]``). Overlap rule for loaded
zones: see :func:`vigia.alerts.procedure.routing.zone_at`.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: the farthest a seat's approximate jurisdiction reaches (EEZ 200 NM plus the distance
#: of a seat city behind the coast)
REACH_NM = 260.0
#: how far an Agência's approximate jurisdiction reaches: an Agência answers for the
#: waters of a few municipalities around its seat (the NPCP of its Capitania lists them),
#: the territorial sea's 12 NM plus the seat's distance from the water; farther out the
#: Capitania or Delegacia above it does (a fix off the Campos basin is Macaé's, not the
#: Agência's in São João da Barra)
AGENCY_REACH_NM = 20.0
_EARTH_NM = 3440.065
BASIS = (
    "approximate jurisdiction: nearest office seat of the bundled register "
    "(alerts/procedure/authorities.json), not an official limit"
)


@dataclass(frozen=True, slots=True)
class Office:
    """One Capitania, Delegacia or Agência of the register."""

    name: str
    kind: str
    seat_municipality: str
    seat_state: str
    seat_lon: float
    seat_lat: float
    naval_district: int
    sources: tuple[str, ...]


def _text() -> str:
    return resources.files("vigia.alerts.procedure").joinpath("authorities.json").read_text()


@lru_cache(maxsize=1)
def offices() -> tuple[Office, ...]:
    """Every office of the bundled register."""
    rows = json.loads(_text())["offices"]
    return tuple(Office(**{**r, "sources": tuple(r["sources"])}) for r in rows)


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """SHA-256 of the bundled register: a store notes the one its leads were routed by,
    and routes them again when a new version of Vigia ships another."""
    return hashlib.sha256(_text().encode()).hexdigest()


def distance_nm(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in nautical miles (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * _EARTH_NM * math.asin(min(1.0, math.sqrt(h)))


def nearest_office(lon: float, lat: float) -> Office | None:
    """The office whose seat is nearest, within its reach (:data:`REACH_NM`, an Agência
    :data:`AGENCY_REACH_NM`); ties go to the Capitania over a Delegacia, then by name, so
    the answer never depends on file order. Every seat at once with numpy: re-routing a
    store's leads asks this tens of thousands of times."""
    rows = offices()
    lon_r, lat_r, cos_lat, reach, tiebreak = _seats(rows)
    p1, l1 = math.radians(lat), math.radians(lon)
    h = np.sin((lat_r - p1) / 2) ** 2 + math.cos(p1) * cos_lat * np.sin((lon_r - l1) / 2) ** 2
    d = 2 * _EARTH_NM * np.arcsin(np.minimum(1.0, np.sqrt(h)))
    ok = np.flatnonzero(d <= reach)
    if ok.size == 0:
        return None
    best = ok[np.lexsort((tiebreak[ok], np.round(d[ok], 6)))[0]]
    return rows[int(best)]


_SEATS: list[Any] = [None, None]  # (the offices they were made from, their arrays)


def _seats(rows: tuple[Office, ...]) -> tuple[NDArray[np.float64], ...]:
    """Seat latitudes and longitudes in radians, cos(latitude), each office's reach, and
    its rank among ties (Capitania, Delegacia, Agência, then by name)."""
    if _SEATS[0] is not rows:
        rank = {"capitania": 0, "delegacia": 1, "agencia": 2}
        order = sorted(range(len(rows)), key=lambda i: (rank.get(rows[i].kind, 3), rows[i].name))
        tiebreak = np.empty(len(rows))
        tiebreak[order] = np.arange(len(rows))
        lat_r = np.radians([o.seat_lat for o in rows])
        arrays = (
            np.radians([o.seat_lon for o in rows]),
            lat_r,
            np.cos(lat_r),
            np.array([AGENCY_REACH_NM if o.kind == "agencia" else REACH_NM for o in rows]),
            tiebreak,
        )
        _SEATS[:] = [rows, arrays]
    out: tuple[NDArray[np.float64], ...] = _SEATS[1]
    return out


def office_named(name: str) -> Office | None:
    """The register's office of that name."""
    return next((o for o in offices() if o.name == name), None)
