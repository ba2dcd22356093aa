"""Which offices a place or a zone falls to, by the very routing leads follow
(:func:`vigia.alerts.procedure.routing.routing_for`): what a key limited to one
authority may silence or watch is decided by where that place's leads would go."""

from __future__ import annotations

from collections.abc import Sequence

import shapely

from vigia.alerts.procedure.routing import routing_for
from vigia.zones.model import Zone

#: at most this many points of a zone's outline are routed to find its offices
_OUTLINE_POINTS = 256


def office_at(lon: float, lat: float, zones: Sequence[Zone]) -> str | None:
    """The authority a lead (not a ballast one) closest at (lon, lat) is routed to."""
    found = routing_for("", lon, lat, None, zones)
    return found[0] if found else None


def offices_of(zone: Zone, zones: Sequence[Zone]) -> set[str]:
    """The authorities a zone's leads go to: the one the zone names, else those a point
    inside it and points of its outline are routed to (a zone across a jurisdiction's
    limit has leads for both offices; leads just outside its outline, a platform's
    500 m, route like its outline)."""
    if zone.authority:
        return {zone.authority}
    outline = shapely.get_coordinates(zone.geometry)
    step = max(1, len(outline) // _OUTLINE_POINTS)
    inside = shapely.get_coordinates(zone.geometry.representative_point())
    points = [*inside.tolist(), *outline[::step].tolist()]
    return {office for lon, lat in points if (office := office_at(lon, lat, zones)) is not None}
