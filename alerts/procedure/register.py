"""The bundled register of the Maritime Authority's offices and the approximate
jurisdiction derived from it, used until official jurisdiction zones are loaded.

The approximate jurisdiction of an office is the set of sea points nearer to its seat
than to any other seat (the Voronoi cell of the seats, measured on the sphere), cut at
:data:`REACH_NM` from the seat and at :data:`AGENCY_REACH_NM` from an Agência's (its
waters are a few municipalities'); the open sea never goes to an office of inland
waters. The islands' waters and the EEZ beyond every reach are
:mod:`vigia.alerts.procedure.waters`'. A lead it routes says so
(``details["routing"]["approximate"]``). Overlap rule for loaded zones: see
:func:`vigia.alerts.procedure.routing.zone_at`.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal, NamedTuple

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
    #: the Capitania a Delegacia or Agência answers to, whose Capitão dos Portos decides
    #: the appeals against its judgments (NORMAM-07 0305 b) II); ``parent_basis`` says
    #: whether a source names it or it is inferred (docs/register-sources.md)
    parent: str | None = None
    parent_basis: str | None = None
    #: where and when the public is received, as a public source gives them (the Notice
    #: names them, NORMAM-07 Anexo 3-A); None where no source was found
    address: str | None = None
    address_source: str | None = None
    hours: str | None = None
    hours_source: str | None = None

    @property
    def fluvial(self) -> bool:
        """Whether it is an office of inland waters (a Capitania, Delegacia or Agência
        Fluvial): its waters are rivers and lakes, never the open sea."""
        return "Fluvial" in self.name


def _text(name: str = "authorities.json") -> str:
    return resources.files("vigia.alerts.procedure").joinpath(name).read_text()


@lru_cache(maxsize=1)
def offices() -> tuple[Office, ...]:
    """Every office of the bundled register."""
    rows = json.loads(_text())["offices"]
    return tuple(Office(**{**r, "sources": tuple(r["sources"])}) for r in rows)


#: the rules that route by the register, beside its data: a change to them routes the
#: store's leads again like a new register does (2: the islands' waters, the EEZ beyond
#: every seat, no office of inland waters for the open sea)
RULES = "2"


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """SHA-256 of the bundled register, its islands' waters and :data:`RULES`: a store
    notes the one its leads were routed by, and routes them again when a new version of
    Vigia ships another."""
    text = "\0".join([_text(), _text("island_waters.json"), RULES])
    return hashlib.sha256(text.encode()).hexdigest()


def distance_nm(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in nautical miles (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * _EARTH_NM * math.asin(min(1.0, math.sqrt(h)))


def nearest_office(lon: float, lat: float, *, sea: bool = False) -> Office | None:
    """The office whose seat is nearest, within its reach (:data:`REACH_NM`, an Agência
    :data:`AGENCY_REACH_NM`); ties go to the Capitania over a Delegacia, then by name, so
    the answer never depends on file order. With ``sea``, the offices of inland waters
    are left out (:attr:`Office.fluvial`). Every seat at once with numpy: re-routing a
    store's leads asks this tens of thousands of times."""
    return _nearest(lon, lat, "sea_reach" if sea else "reach")


def coast_office(lon: float, lat: float) -> Office:
    """The Capitania or Delegacia of the sea (no Agência, whose waters are a few
    municipalities', nor an office of inland waters) whose seat is nearest (lon, lat),
    however far: the office of a stretch of coast, for its waters beyond every reach."""
    found = _nearest(lon, lat, "coast_reach")
    if found is None:  # the register has Capitanias of the sea: only a broken one has none
        raise LookupError("the register has no Capitania or Delegacia of the sea")
    return found


def _nearest(
    lon: float, lat: float, which: Literal["reach", "sea_reach", "coast_reach"]
) -> Office | None:
    """The office of the nearest seat within the reach ``which`` of :class:`_Seats`."""
    rows = offices()
    s = _seats(rows)
    p1, l1 = math.radians(lat), math.radians(lon)
    h = np.sin((s.lat_r - p1) / 2) ** 2 + math.cos(p1) * s.cos_lat * np.sin((s.lon_r - l1) / 2) ** 2
    d = 2 * _EARTH_NM * np.arcsin(np.minimum(1.0, np.sqrt(h)))
    ok = np.flatnonzero(d <= getattr(s, which))
    if ok.size == 0:
        return None
    best = ok[np.lexsort((s.tiebreak[ok], np.round(d[ok], 6)))[0]]
    return rows[int(best)]


class _Seats(NamedTuple):
    """Every seat's figures, in the register's order."""

    lon_r: NDArray[np.float64]  # longitude, radians
    lat_r: NDArray[np.float64]
    cos_lat: NDArray[np.float64]
    reach: NDArray[np.float64]  # NM; -1 leaves the office out
    tiebreak: NDArray[np.float64]  # rank among ties: Capitania, Delegacia, Agência, name
    sea_reach: NDArray[np.float64]  # at sea: none for an office of inland waters
    coast_reach: NDArray[np.float64]  # as a coast's office: a Capitania or Delegacia of the sea


_SEATS: list[Any] = [None, None]  # (the offices they were made from, their _Seats)


def _seats(rows: tuple[Office, ...]) -> _Seats:
    """The seats' figures of ``rows``, kept while the register is the same."""
    if _SEATS[0] is not rows:
        rank = {"capitania": 0, "delegacia": 1, "agencia": 2}
        order = sorted(range(len(rows)), key=lambda i: (rank.get(rows[i].kind, 3), rows[i].name))
        tiebreak = np.empty(len(rows))
        tiebreak[order] = np.arange(len(rows))
        lat_r = np.radians([o.seat_lat for o in rows])
        reach = np.array([AGENCY_REACH_NM if o.kind == "agencia" else REACH_NM for o in rows])
        inland = np.array([o.fluvial for o in rows], dtype=bool)
        coast = np.array([o.kind != "agencia" and not o.fluvial for o in rows], dtype=bool)
        arrays = _Seats(
            np.radians([o.seat_lon for o in rows]),
            lat_r,
            np.cos(lat_r),
            reach,
            tiebreak,
            np.where(inland, -1.0, reach),
            np.where(coast, np.inf, -1.0),
        )
        _SEATS[:] = [rows, arrays]
    out: _Seats = _SEATS[1]
    return out


def office_named(name: str) -> Office | None:
    """The register's office of that name."""
    return next((o for o in offices() if o.name == name), None)


def appeal_office(name: str) -> Office | None:
    """The office whose head decides the first LESTA appeal against a judgment of
    ``name``: a Delegacia's or Agência's Capitania (NORMAM-07 0305 b) II: "os
    conseqüentes pedidos de recursos caberão ao respectivo Capitão dos Portos"), a
    Capitania itself (its Capitão dos Portos decides what his designated officer
    judged); None for a name the register does not hold."""
    office = office_named(name)
    if office is None or office.parent is None:
        return office
    return office_named(office.parent)
