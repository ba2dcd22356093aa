"""The waters the nearest seat gets wrong: the islands', and Brazil's EEZ beyond every seat.

Nearest seat cannot be right for islands: Fernando de Noronha lies nearer Natal's seat
than Recife's, yet the Capitania dos Portos de Pernambuco answers for it, and Trindade or
São Pedro e São Paulo lie beyond every seat's reach. The bundled ``island_waters.json``
names each island group's office (docs/register-sources.md quotes its sources and says
which office is inferred); here a group's waters are the sea within its ``reach_nm`` of
its islands that is nearer them than any other Brazilian land: equidistance, the line
UNCLOS art. 15 draws where no treaty does. Distances are geodesic: each group is laid out
in metres in an azimuthal equidistant projection centred on it (pyproj), exact from the
centre and within metres at 200 NM for islands a few km across.

A point of Brazil's EEZ that no seat reaches goes to the office of the nearest stretch of
mainland coast, marked approximate; a point outside the EEZ to none, and the routing says
why. The EEZ is taken as the sea within 200 NM of Brazil's coast and islands (the Natural
Earth coast of zones/basemaps that the ballast 200 NM line is drawn from, measured with the
ballast's geodesic coast index) whose nearest land is Brazil's (equidistance, against the
ballast basemap's land of every country), with the 1981 Brazil-France lateral limit off
Amapá. The coast stands in for the baselines (Decreto 8.400/2015), as for the ballast line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry.base import BaseGeometry

from vigia.alerts.procedure.register import coast_office
from vigia.ingest.units import M_PER_NM
from vigia.zones.ballast import CoastIndex, ecef_km, get_assessor
from vigia.zones.basemap import brazil_territory, land_from_geometry

#: the EEZ's breadth from the baselines (Lei 8.617/1993 art. 6; UNCLOS art. 57)
EEZ_NM = 200.0
#: the territorial sea's (Lei 8.617/1993 art. 1): no river, lake or lagoon is farther from
#: its shores, so beyond it only the sea is left, and within it of an island group its
#: office is the one its sources name, not an equidistance of ours
TERRITORIAL_NM = 12.0
#: slack between the two coastlines compared for equidistance: the ballast basemap is
#: Natural Earth 10m, Brazil's territory the same simplified to 0.01 degree (about 1 km)
COAST_SLACK_NM = 3.0
#: the Brazil-France lateral limit (1981): a rhumb line at 41°30' from the mid-point of the
#: line closing the Baía do Oiapoque, whose ends are 04°30.50'N 051°38.20'W and
#: 04°27.45'N 051°30.85'W (Decreto 1.290/1994)
FRANCE_ORIGIN = ((-51.63667 - 51.51417) / 2, (4.50833 + 4.45750) / 2)
FRANCE_BEARING = 41.5
EEZ_BASIS = (
    "approximate: beyond every seat's reach, inside Brazil's EEZ: the office of the "
    "nearest stretch of mainland coast (alerts/procedure/waters.py), not an official limit"
)


@dataclass(frozen=True, eq=False)
class IslandGroup:
    """An island group of ``island_waters.json`` and its office."""

    id: str
    name: str
    authority: str
    inferred: bool  # no source names the office: docs/register-sources.md says why this one
    reach_nm: float
    sources: tuple[str, ...]
    land: BaseGeometry  # its islands, lon/lat
    land_m: BaseGeometry  # the same in metres, azimuthal equidistant about the group
    to_m: Transformer  # lon/lat to those metres
    waters: BaseGeometry  # lon/lat: the sea within reach_nm of the islands (geodesic)

    def distance_nm(self, lon: float, lat: float) -> float:
        """Geodesic distance from (lon, lat) to the group's islands (0 ashore)."""
        x, y = self.to_m.transform(lon, lat)
        return float(shapely.distance(self.land_m, shapely.Point(x, y))) / M_PER_NM

    def may_reach(self, lon: float, lat: float) -> bool:
        """A cheap test before the geodesic one: inside the waters' bounds, padded by a
        tenth of a degree so the polygon's chords never cut off a point in reach."""
        x0, y0, x1, y1 = self.waters.bounds
        return x0 - 0.1 <= lon <= x1 + 0.1 and y0 - 0.1 <= lat <= y1 + 0.1

    def routing(self, distance_nm: float) -> dict[str, Any]:
        """``details.routing`` of a lead in these waters, ``distance_nm`` from the islands."""
        return {
            "authority": self.authority,
            "area": self.id,
            # only the territorial sea of an office a source names is not our construction
            "approximate": self.inferred or distance_nm > TERRITORIAL_NM,
            "basis": (
                f"waters of {self.name}, {distance_nm:.1f} NM from its islands "
                f"(alerts/procedure/island_waters.json; office "
                f"{'inferred' if self.inferred else 'from its sources'})"
            ),
        }


def _text() -> str:
    return resources.files("vigia.alerts.procedure").joinpath("island_waters.json").read_text()


def _group(feature: dict[str, Any]) -> IslandGroup:
    p = feature["properties"]
    land = shapely.geometry.shape(feature["geometry"])
    centre = land.centroid
    aeqd = f"+proj=aeqd +lat_0={centre.y} +lon_0={centre.x} +datum=WGS84 +units=m"
    to_m = Transformer.from_crs("EPSG:4326", aeqd, always_xy=True)
    back = Transformer.from_crs(aeqd, "EPSG:4326", always_xy=True)
    land_m = shapely.transform(land, lambda xy: np.column_stack(to_m.transform(*xy.T)))
    reach_m = shapely.buffer(land_m, float(p["reach_nm"]) * M_PER_NM, quad_segs=32)
    waters = shapely.transform(reach_m, lambda xy: np.column_stack(back.transform(*xy.T)))
    shapely.prepare(waters)
    return IslandGroup(
        p["id"], p["name"], p["authority"], bool(p["inferred"]), float(p["reach_nm"]),
        tuple(p["sources"]), land, land_m, to_m, waters,
    )  # fmt: skip


@cache
def island_groups() -> tuple[IslandGroup, ...]:
    """Every island group of the bundled ``island_waters.json``."""
    return tuple(_group(f) for f in json.loads(_text())["features"])


@cache
def _mainland() -> CoastIndex:
    """Brazil's mainland coast (with its coastal islands): Brazil's territory without the
    island groups', whose waters are weighed group by group."""
    groups = island_groups()
    parts = [
        part
        for part in shapely.get_parts(brazil_territory())
        if not any(g.distance_nm(*_xy(part.representative_point())) < 30.0 for g in groups)
    ]
    name = "Brazil's territory without its oceanic islands (Natural Earth 10m)"
    return CoastIndex(land_from_geometry(name, shapely.MultiPolygon(parts)))


def _xy(point: shapely.Point) -> tuple[float, float]:
    return float(point.x), float(point.y)


def coast_nm(lon: float, lat: float) -> tuple[float, float, float]:
    """Geodesic distance (NM) from (lon, lat) to Brazil's mainland coast, and the coast's
    nearest point (lon, lat) to within the index's 3 km spacing (0 on Brazil's land)."""
    index = _mainland()
    lons, lats = np.array([lon]), np.array([lat])
    d = float(index.distance_nm(lons, lats)[0])
    _, i = index.tree.query(ecef_km(lons, lats)[0])
    x, y = index.lonlat[int(i)]
    return d, float(x), float(y)


def island_at(lon: float, lat: float) -> tuple[IslandGroup, float] | None:
    """The island group whose waters hold (lon, lat), and its distance (NM): within its
    reach and no farther from it than from any other Brazilian land."""
    near = [(g.distance_nm(lon, lat), g) for g in island_groups() if g.may_reach(lon, lat)]
    near = [(d, g) for d, g in near if d <= g.reach_nm]
    if not near:
        return None
    d, group = min(near, key=lambda t: (t[0], t[1].id))
    if coast_nm(lon, lat)[0] < d:
        return None  # the mainland's waters: its offices answer
    return group, d


def open_sea(lon: float, lat: float) -> bool:
    """Farther than the territorial sea's 12 NM from any land of the ballast basemap: no
    river, lake or lagoon, so no office of inland waters answers there."""
    d = get_assessor().distance_nm(np.array([lon]), np.array([lat]))
    return bool(d[0] > TERRITORIAL_NM)


def _france_side(lon: float, lat: float) -> bool:
    """Whether (lon, lat) lies left of the 1981 line, France's side: a rhumb line is
    straight in the Mercator projection, so a cross product there decides."""

    def mercator(x: float, y: float) -> tuple[float, float]:
        return math.radians(x), math.log(math.tan(math.pi / 4 + math.radians(y) / 2))

    x0, y0 = mercator(*FRANCE_ORIGIN)
    x, y = mercator(lon, lat)
    b = math.radians(FRANCE_BEARING)
    return math.sin(b) * (y - y0) - math.cos(b) * (x - x0) > 0


def beyond_reach(lon: float, lat: float) -> tuple[str | None, dict[str, Any]]:
    """For a point no seat reaches: the office of the nearest stretch of mainland coast
    when the point is in Brazil's EEZ, else no office and why not (``reason``)."""
    d_main, x, y = coast_nm(lon, lat)
    d_brazil = min([d_main] + [g.distance_nm(lon, lat) for g in island_groups()])
    if d_brazil > EEZ_NM:
        return _outside(f"{d_brazil:.0f} NM from Brazil's coast, beyond the EEZ's 200 NM")
    if lat > 0.0 and lon < -40.0:
        # off Amapá the treaty line decides: it gives Brazil more than equidistance would
        if _france_side(lon, lat):
            return _outside("on France's side of the 1981 Brazil-France lateral limit")
    else:
        # elsewhere the nearest coast (equidistance): Uruguay's is the only other one within
        # 200 NM, and the course of its 1972 line was not in the sources found
        d_any = float(get_assessor().distance_nm(np.array([lon]), np.array([lat]))[0])
        if d_brazil > d_any + COAST_SLACK_NM:
            return _outside(f"nearer a neighbour's coast ({d_any:.0f} NM) than Brazil's")
    office = coast_office(x, y)
    return office.name, {
        "authority": office.name,
        "approximate": True,
        "basis": EEZ_BASIS,
        "coast": [round(x, 3), round(y, 3)],
        "coast_nm": round(d_main, 1),
    }


def _outside(why: str) -> tuple[None, dict[str, Any]]:
    return None, {"authority": None, "approximate": True, "reason": f"outside Brazil's EEZ: {why}"}
