"""Routing a lead to its competent authority (NORMAM-07 0305, 0403; NORMAM-20 2.1.2).

A lead goes to the Capitania, Delegacia or Agência whose jurisdiction zone contains its
closest point. A ballast lead goes to the authority of the destination port (NORMAM-20
2.1.2: exceptions are reported to the Agent of the Maritime Authority with jurisdiction
over the port of destination) when the vessel's AIS destination names a port that a
jurisdiction zone lists in its ``ports`` property (names or UN/LOCODEs such as
``BRSSZ``); otherwise by its closest point like any other lead.

A jurisdiction zone may also carry ``seat_state`` (two-letter code) and
``seat_municipality``: the calendar its working-day deadlines follow.

Where no loaded zone claims a lead, the bundled rules do, in this order: an island
group's waters (:func:`vigia.alerts.procedure.waters.island_at`), the nearest seat of the
register (never an office of inland waters on the open sea), and beyond every seat the
EEZ's nearest stretch of coast; outside the EEZ, no office, and ``details.routing`` says
why.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import shapely

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.register import BASIS as REGISTER_BASIS
from vigia.alerts.procedure.register import nearest_office
from vigia.alerts.procedure.waters import beyond_reach, island_at, open_sea
from vigia.zones.model import Zone, ZoneKind


def _compact(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in folded.upper() if ch.isalnum())


def destination_port(destination: str | None) -> str | None:
    """The port an AIS destination names, compacted (``"BR SSZ"`` -> ``"BRSSZ"``); for
    the common ``FROM>TO`` form, the part after the last ``>``."""
    if not destination:
        return None
    text = destination[:120].rsplit(">", 1)[-1]
    port = _compact(text)
    return port or None


def jurisdictions(zones: Sequence[Zone]) -> list[Zone]:
    """The zones that route leads: jurisdiction kind with an authority."""
    return [z for z in zones if z.kind is ZoneKind.JURISDICTION and z.authority]


def zone_at(lon: float, lat: float, zones: Sequence[Zone]) -> Zone | None:
    """The jurisdiction zone covering a point.

    Overlap rule: where zones overlap, the smallest zone wins (a Delegacia's or an
    Agência's area carved out of its Capitania's is the more specific one, as 0305
    gives the CP, DL or AG of the place); equal areas fall back to the zone id only so
    the answer is stable."""
    point = shapely.Point(lon, lat)
    # inside the polygon is distance 0: Zone.authority_at is the one authority rule
    hits = [z for z in zones if z.geometry.covers(point) and z.authority_at(0.0)]
    return min(hits, key=lambda z: (z.geometry.area, z.id)) if hits else None


def zone_for_port(destination: str | None, zones: Sequence[Zone]) -> Zone | None:
    """The jurisdiction zone that lists the AIS destination among its ports."""
    port = destination_port(destination)
    if port is None:
        return None
    for zone in sorted(jurisdictions(zones), key=lambda z: z.id):
        ports = zone.properties.get("ports") or []
        if isinstance(ports, list) and any(_compact(str(p)) == port for p in ports):
            return zone
    return None


def route(
    rule: str, lon: float, lat: float, destination: str | None, zones: Sequence[Zone]
) -> Zone | None:
    """The jurisdiction zone a lead belongs to (None when no loaded zone claims it)."""
    if rule.startswith("BW-"):
        by_port = zone_for_port(destination, zones)
        if by_port is not None:
            return by_port
    return zone_at(lon, lat, zones)


#: a jurisdiction zone whose sea Vigia drew (its ``sea`` property says how)
ZONE_SEA_BASIS = (
    "jurisdiction zone built from the NPCP's municipalities: their land as listed, the sea "
    "drawn by Vigia from their coast, not an official limit"
)
#: the register's nearest seat, on the open sea where an office of inland waters was nearer
SEA_BASIS = (
    "approximate jurisdiction: nearest seat of an office of the sea in the bundled register "
    "(beyond 12 NM of land no office of inland waters answers), not an official limit"
)


def routing_for(
    rule: str, lon: float, lat: float, destination: str | None, zones: Sequence[Zone]
) -> tuple[str | None, dict[str, Any]]:
    """The authority a lead of ``rule`` closest at (lon, lat) is routed to, and the
    ``details.routing`` that says how: the loaded jurisdiction zone that claims it, else
    the bundled rules (module docstring), marked approximate beyond an office's sourced
    waters; outside Brazil's EEZ the authority is None and ``reason`` says why."""
    zone = route(rule, lon, lat, destination, zones)
    if zone is not None:
        # marked as routed, so the lead follows when jurisdictions change (reroute)
        how: dict[str, Any] = {"authority": zone.authority, "zone_id": zone.id,
                               "approximate": False}  # fmt: skip
        drawn = zone.properties.get("sea")
        if isinstance(drawn, str) and drawn:
            # scripts/build_jurisdictions.py: the land is the NPCP's municipalities, the
            # sea a construction of Vigia's from their coast, not a published limit
            how.update(approximate=True, basis=f"{ZONE_SEA_BASIS}: {drawn}")
        return zone.authority, how
    island = island_at(lon, lat)
    if island is not None:
        group, distance = island
        return group.authority, group.routing(distance)
    office, basis = nearest_office(lon, lat), REGISTER_BASIS
    if office is not None and office.fluvial and open_sea(lon, lat):
        office, basis = nearest_office(lon, lat, sea=True), SEA_BASIS
    if office is None:
        return beyond_reach(lon, lat)
    return office.name, {"authority": office.name, "approximate": True, "basis": basis}


def routed(lead: Lead, destination: str | None, zones: Sequence[Zone]) -> Lead:
    """The lead with its authority filled in when it had none (:func:`routing_for`); one
    outside Brazil's EEZ keeps none, with ``details.routing`` saying why. Pure, so
    single-process mode, the bus workers and the tests route alike."""
    if lead.authority is not None:
        return lead
    authority, routing = routing_for(
        lead.rule, lead.closest_lon, lead.closest_lat, destination, zones
    )
    return replace(lead, authority=authority, details={**lead.details, "routing": routing})


#: before a Notice or an Auto names an authority, a lead may still change hands
REROUTABLE = ("new", "triaged")


def rerouted(lead: Lead, destination: str | None, zones: Sequence[Zone]) -> Lead | None:
    """The lead routed afresh after the jurisdiction zones changed, or None when it stays:
    only a lead that was routed (``details.routing``), or that no rule routed before (no
    authority), and is still before any Notice or Auto moves; one whose own zone named
    its authority, or already notified, never does."""
    routing = lead.details.get("routing")
    if lead.status not in REROUTABLE:
        return None
    if not isinstance(routing, dict) and lead.authority is not None:
        return None
    bare = {k: v for k, v in lead.details.items() if k != "routing"}
    fresh = routed(replace(lead, authority=None, details=bare), destination, zones)
    if fresh.authority == lead.authority and fresh.details.get("routing") == routing:
        return None
    return fresh
