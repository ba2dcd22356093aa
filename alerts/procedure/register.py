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

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

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


@lru_cache(maxsize=1)
def offices() -> tuple[Office, ...]:
    """Every office of the bundled register."""
    text = resources.files("vigia.alerts.procedure").joinpath("authorities.json").read_text()
    rows = json.loads(text)["offices"]
    return tuple(Office(**{**r, "sources": tuple(r["sources"])}) for r in rows)


def distance_nm(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in nautical miles (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * _EARTH_NM * math.asin(min(1.0, math.sqrt(h)))


def nearest_office(lon: float, lat: float) -> Office | None:
    """The office whose seat is nearest, within its reach (:data:`REACH_NM`, an Agência
    :data:`AGENCY_REACH_NM`); ties go to the Capitania over a Delegacia, then by name, so
    the answer never depends on file order."""
    rank = {"capitania": 0, "delegacia": 1, "agencia": 2}
    best: tuple[float, int, str] | None = None
    found: Office | None = None
    for o in offices():
        d = distance_nm(lon, lat, o.seat_lon, o.seat_lat)
        if d > (AGENCY_REACH_NM if o.kind == "agencia" else REACH_NM):
            continue
        key = (round(d, 6), rank.get(o.kind, 3), o.name)
        if best is None or key < best:
            best, found = key, o
    return found


def office_named(name: str) -> Office | None:
    """The register's office of that name."""
    return next((o for o in offices() if o.name == name), None)
