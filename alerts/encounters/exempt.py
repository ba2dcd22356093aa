"""Which meetings and which drifting are lawful work, and what makes drifting a lead.

A meeting is no lead (the reason is counted) when, at its mean position:

- ``anchorage``: an anchorage or port facility zone lies within 10 km (Global Fishing
  Watch's rule: ships meet lawfully at anchorages and berths);
- ``sts-area`` / ``bunkering-area``: it lies inside a zone whose ``properties.sts`` is
  ``authorised`` or ``bunkering`` (an area where ship-to-ship transfer or bunkering is
  authorised, of whatever kind the operator charts it as);
- ``platform-supply``: it lies within a platform's rule distance (500 m from its
  footprint) and one of the two is a support vessel (AIS type of SUPPORT_TYPES), on the
  zone's allow-list, or in the authorised-vessel register for that zone;
- ``tug``: one of the two is a tug or a towing vessel (types 31, 32, 52): tugs at work.

Drifting is a ``LOITER`` lead only far from shore (20 nm) and away from anchorages, and
only near something worth watching: a platform (10 km), a ballast line (within 5 nm of
50 or 200 nm from land), a lane (an access channel, 5 km), or a vessel that went silent
close by. A support vessel near a platform, or the installation itself (within the
installation radius of a platform), is not loitering.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.encounters.config import SUPPORT_TYPES, TUG_TYPES, EncounterConfig
from vigia.alerts.encounters.tracks import Info
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneKind

PORT_KINDS = frozenset({ZoneKind.ANCHORAGE, ZoneKind.PORT_FACILITY})
#: ``properties.sts`` values that make a zone an authorised area, and the reason counted
STS_AREAS = {"authorised": "sts-area", "bunkering": "bunkering-area"}


def _hits(index: ZoneIndex, lon: float, lat: float, margin: float) -> list[tuple[int, float]]:
    h = index.evaluate(np.array([lon]), np.array([lat]), margin_m=margin)
    return list(zip(h.zone.tolist(), h.distance_m.tolist(), strict=True))


def meeting_exemption(
    index: ZoneIndex,
    register: AuthorisedRegister,
    cfg: EncounterConfig,
    where: tuple[float, float, float],
    vessels: tuple[tuple[int, Info], tuple[int, Info]],
) -> str | None:
    """Why a meeting at ``where`` (lon, lat, t) is lawful work, or None."""
    lon, lat, t = where
    types = [info.ship_type for _, info in vessels]
    for z, d in _hits(index, lon, lat, cfg.anchorage_m):
        zone = index.zones[z]
        if not zone.in_force(t):
            continue
        sts = STS_AREAS.get(str(zone.properties.get("sts")))
        if sts is not None and d <= 0.0:
            return sts
        if zone.kind in PORT_KINDS and d <= cfg.anchorage_m:
            return "anchorage"
        if zone.kind is ZoneKind.PLATFORM and d <= float(index.threshold_m[z]):
            for (mmsi, _info), kind in zip(vessels, types, strict=True):
                if kind in SUPPORT_TYPES or mmsi in zone.allowed_mmsi:
                    return "platform-supply"
                if kind is not None and kind in zone.allowed_ship_types:
                    return "platform-supply"
                if register.allows(zone, mmsi, t):
                    return "platform-supply"
    if any(k in TUG_TYPES for k in types):
        return "tug"
    return None


def loiter_grounds(
    index: ZoneIndex,
    cfg: EncounterConfig,
    where: tuple[float, float, float],
    info: Info,
    installation_m: float,
    shore_nm: float,
) -> tuple[str | None, list[dict[str, Any]]]:
    """(why it is no lead, or None; what it drifted near) for drifting centred at
    ``where`` (lon, lat, t), ``shore_nm`` from land."""
    if shore_nm < cfg.loiter_shore_nm:
        return "near-shore", []
    lon, lat, t = where
    near: list[dict[str, Any]] = []
    margin = max(cfg.loiter_platform_m, cfg.loiter_lane_m, cfg.anchorage_m)
    for z, d in sorted(_hits(index, lon, lat, margin), key=lambda x: x[1]):
        zone = index.zones[z]
        if not zone.in_force(t):
            continue
        if zone.kind in PORT_KINDS and d <= cfg.anchorage_m:
            return "anchorage", []
        if zone.kind is ZoneKind.PLATFORM and d <= cfg.loiter_platform_m:
            if d <= installation_m:
                return "installation", []
            if info.ship_type in SUPPORT_TYPES:
                return "platform-supply", []
            near.append({"code": "platform", "zone_id": zone.id, "distance_m": round(d, 1)})
        elif zone.kind is ZoneKind.ACCESS_CHANNEL and d <= cfg.loiter_lane_m:
            near.append({"code": "lane", "zone_id": zone.id, "distance_m": round(d, 1)})
    for line in (50.0, 200.0):
        if abs(shore_nm - line) <= cfg.loiter_ballast_nm:
            near.append({"code": "ballast-line", "line_nm": line, "shore_nm": round(shore_nm, 1)})
    return None, near


def shore_nm(lon: float, lat: float) -> float:
    """Geodesic distance to land (nm) from the ballast basemap (loaded on first use)."""
    from vigia.zones.ballast import get_assessor

    return float(get_assessor().distance_nm(np.array([lon]), np.array([lat]))[0])
