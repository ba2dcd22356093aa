"""NORMAM-07 rule catalogue and the judgement of one position against one zone.

The judgement is pure: it takes what the pipeline knows of the vessel at that instant
(class, allow-list membership, whether it lies at anchor and for how long, the beach
approach so far) and says which rule, if any, the position breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

from vigia.alerts.bearings import GEOD
from vigia.zones.model import Zone, ZoneKind

CITATIONS: dict[str, str] = {
    "BATH-SAIL": "NORMAM-07/DPC 0211 b) 1)",
    "BATH-MOTOR": "NORMAM-07/DPC 0211 b) 2)",
    "BATH-APPROACH": "NORMAM-07/DPC 0211 b) 3)",
    "BATH-LAUNCH": "NORMAM-07/DPC 0211 e)",
    "SEC-MILITARY": "NORMAM-07/DPC 0212 a)",
    "SEC-PLANT": "NORMAM-07/DPC 0212 b)",
    "SEC-ANCHORAGE": "NORMAM-07/DPC 0212 c)",
    "SEC-CHANNEL": "NORMAM-07/DPC 0212 d)",
    "SEC-PORT": "NORMAM-07/DPC 0212 e)",
    "SEC-PLATFORM": "NORMAM-07/DPC 0212 f)",
    "SEC-NOTICE": "NORMAM-07/DPC 0212 g)",
    "SAR-DISTRESS": "NORMAM-07/DPC 0213 c)",
    "BW-EXCH-200": "NORMAM-20/DPC 2.3.1 a)",
    "BW-EXCH-50": "NORMAM-20/DPC 2.3.1 b)",
    # a detained or sealed vessel (lacre) that moves: it must stay out of traffic
    "PROC-SEAL": "NORMAM-07/DPC 0310",
    "ATON-DAMAGE": "NORMAM-07/DPC 0207",
    # investigative: AIS kept in operation at all times (SOLAS V/19.2.4.7, ships it
    # covers) and its carriage by the Brazilian rule (NORMAM-28/DHN cap. 2); docs/gaps.md
    "AIS-GAP": "SOLAS V/19.2.4.7; NORMAM-28/DHN cap. 2",
    # investigative: a state ship type (35, 55) claimed in AIS static data by a vessel
    # not on the register of state vessels, inside an area that type would exempt it
    # from; static data must be kept correct (IMO Res. A.1106(29), annex, 4 and 6)
    "ID-TYPE-CLAIM": "IMO Res. A.1106(29); NORMAM-07/DPC 0212 a)",
    # investigative: one MMSI sent by two ships at once (ITU-R M.585: an MMSI identifies
    # one station; IMO Res. A.1106(29) on the identity a ship transmits)
    "ID-MMSI-SHARED": "ITU-R M.585; IMO Res. A.1106(29)",
    # investigative (issue 37): a ship-to-ship meeting at sea where no transfer is
    # authorised; an oil cargo transfer between tankers must be notified to the coastal
    # state (MARPOL Annex I, reg. 42) and oil at sea is Lei 9.966/2000's (docs/encounters.md)
    "STS-ENCOUNTER": "MARPOL Annex I reg. 42; Lei 9.966/2000",
    # investigative: drifting for hours near platforms, ballast lines or lanes, or where
    # another vessel went silent (docs/encounters.md)
    "LOITER": "NORMAM-07/DPC 0212 f); NORMAM-20/DPC 2.3.1",
    # investigative: static data one ship could not explain changing under one MMSI
    # (an identity that returns, a valid IMO number that changes, name and call sign at
    # once): the identity a ship transmits must be its own (IMO Res. A.1106(29), 4 and 6)
    "ID-STATIC-CHANGE": "IMO Res. A.1106(29); ITU-R M.585",
    # investigative: the MMSI's MID and the call sign name different flags, Brazil's one
    # of them (ITU-R M.585 annex 1; ITU RR Appendix 42 call sign series)
    "ID-MID-FLAG": "ITU-R M.585; ITU RR Appendix 42",
    # investigative: three or more vessels jumping to one spot at once, positions no ship
    # could sail to (GNSS spoofing or jamming): the position a ship transmits (ITU-R
    # M.1371; IMO Res. A.1106(29)) and the IMO's guidance on GNSS interference
    "ID-INTERFERENCE": "ITU-R M.1371; IMO Res. A.1106(29); IMO MSC.1/Circ.1645 (GNSS interference)",
    # investigative: a track drawn as three or more laps of a near perfect circle,
    # positions generated rather than sailed (the position a ship must transmit truly)
    "ID-CIRCLE": "ITU-R M.1371; IMO Res. A.1106(29)",
    # investigative: a vessel reporting positions deep inside land, far from any river,
    # lake or port, for ten minutes or more (spoofed, simulated or a transponder ashore)
    "ID-ON-LAND": "ITU-R M.1371; IMO Res. A.1106(29)",
}

# the rule a position inside (or too close to) each kind of zone breaks
KIND_RULE: dict[ZoneKind, str] = {
    ZoneKind.MILITARY: "SEC-MILITARY",
    ZoneKind.POWER_PLANT: "SEC-PLANT",
    ZoneKind.ANCHORAGE: "SEC-ANCHORAGE",
    ZoneKind.ACCESS_CHANNEL: "SEC-CHANNEL",
    ZoneKind.PORT_FACILITY: "SEC-PORT",
    ZoneKind.PLATFORM: "SEC-PLATFORM",
    ZoneKind.SPECIAL_AREA: "SEC-NOTICE",
    ZoneKind.LAUNCH_AREA: "BATH-LAUNCH",
}

SAILING_SHIP_TYPE = 36
NAV_UNDER_WAY_ENGINE = 0
NAV_UNDER_WAY_SAILING = 8
NAV_AT_ANCHOR = 1
NAV_MOORED = 5


def citation(rule: str) -> str:
    """The article a rule code cites."""
    return CITATIONS[rule]


def propulsion(ship_type: int | None, nav_status: int | None) -> tuple[bool, str, bool]:
    """(sailing, basis, inferred) for one position: the 0211 b) bands go by propulsion.

    Status 8 is sail and status 0 is engine whatever the ship type (a yacht motoring
    in reports type 36 and status 0: it is a motor craft then). Only when the status
    says nothing of propulsion (class B sends none; 1, 5, 15 and the rest do not say) is
    ship type 36 taken to mean sail, and the lead says it was inferred. Anything else,
    unknown included, counts as motor (RULES.md, BATH-MOTOR).
    """
    if nav_status == NAV_UNDER_WAY_SAILING:
        return True, "nav_status 8 (under way sailing)", False
    if nav_status == NAV_UNDER_WAY_ENGINE:
        return False, "nav_status 0 (under way using engine)", False
    if ship_type == SAILING_SHIP_TYPE:
        said = "no navigational status" if nav_status is None else f"nav_status {nav_status}"
        return True, f"ship type 36 with {said}: sail inferred", True
    if ship_type is None:
        return False, "propulsion unknown: counted as motor", True
    return False, f"ship type {ship_type}: motor", False


def is_sailing(ship_type: int | None, nav_status: int | None) -> bool:
    """Sail (or oar) craft at this position (see :func:`propulsion`)."""
    return propulsion(ship_type, nav_status)[0]


def is_allowed(zone: Zone, mmsi: int, ship_type: int | None) -> bool:
    """Whether the zone's allow-list lets this vessel be inside."""
    if mmsi in zone.allowed_mmsi:
        return True
    return ship_type is not None and ship_type in zone.allowed_ship_types


def anchoring_prohibited(zone: Zone) -> bool:
    """Channels forbid anchoring to everyone unless the zone says otherwise."""
    return zone.anchoring_prohibited


def angle_diff(a: float, b: float) -> float:
    """Smallest absolute difference between two bearings, degrees in [0, 180]."""
    d = abs((a - b) % 360.0)
    return 360.0 - d if d > 180.0 else d


@dataclass(slots=True)
class VesselMoment:
    """What the pipeline knows of a vessel at one accepted position."""

    mmsi: int
    t: float
    ship_type: int | None
    sailing: bool
    sog: float | None
    cog: float | None
    heading: int | None
    nav_status: int | None
    stopped: bool  # at anchor/moored by status, or SOG near zero right now
    anchored: bool  # at anchor by status, or stopped for the anchoring dwell
    stopped_for_s: float  # how long it has been stopped (0 when moving)
    propulsion_basis: str = ""
    propulsion_inferred: bool = False


@dataclass(slots=True)
class Approach:
    """A vessel's visit inside one beach band: whether it stayed within 0211 b) 3), and
    its last fix in the band (the approach is judged between fixes too)."""

    clean: bool = True
    anchored: bool = False
    last_t: float | None = None
    last_lon: float = 0.0
    last_lat: float = 0.0
    # where it came to rest in the band (lon, lat), while it lies stopped there
    rest: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class ApproachPolicy:
    """Limits of the 0211 b) 3) exception."""

    max_sog_kn: float = 3.0
    course_tolerance_deg: float = 30.0
    # the speed made good in the band must beat the limit by this much before it counts:
    # 1 kn covers a few metres of GPS noise on fixes a minute apart
    made_good_margin_kn: float = 1.0
    # legs shorter than this are noise, not movement
    made_good_min_m: float = 25.0
    # a vessel "lying at anchor" (by its status, or under half a knot) that is this far
    # from where it came to rest is moving: a small craft's swing near a beach is a few
    # tens of metres, a GPS fix strays a few metres
    swing_m: float = 150.0


def approach_ok(
    m: VesselMoment,
    approach: Approach,
    bearing_to_beach: float | None,
    policy: ApproachPolicy,
    made_good: tuple[float, float] | None = None,
    at: tuple[float, float] | None = None,
) -> bool:
    """Judge one in-band position under 0211 b) 3) and update the visit's state.

    Inside the band a vessel keeps the exception while it comes in slowly and roughly
    perpendicular to the baseline (course within tolerance of the bearing to the nearest
    baseline point), lies stopped after such an approach, or, having anchored, leaves the
    same way. Anything else spoils the whole visit until it leaves the band. "Lies
    stopped" is judged where it is (``at``, lon/lat), not only by its status and speed: a
    stale "at anchor" status at 2 knots, or a drift under half a knot, that takes it
    ``swing_m`` from where it came to rest is movement, judged by its direction.
    """
    if not approach.clean:
        return False
    if made_good is not None:
        # (metres surely covered inside the band since the last fix, seconds taken): a
        # boat that ran in fast and stopped between two fixes never shows speed in band
        leg_m, dt = made_good
        if leg_m >= policy.made_good_min_m and leg_m > (
            (policy.max_sog_kn + policy.made_good_margin_kn) * (1852.0 / 3600.0) * dt
        ):
            approach.clean = False
            return False
    if m.stopped:
        if at is not None and not _lies_still(approach, at, bearing_to_beach, policy):
            approach.clean = False
            return False
        approach.anchored = True
        return True
    approach.rest = None
    if m.sog is None or m.sog > policy.max_sog_kn:
        approach.clean = False
        return False
    course = m.cog if m.cog is not None else m.heading
    if course is None or bearing_to_beach is None:
        # slow, with no course to judge (or sitting on the baseline): benefit of the doubt
        return True
    if angle_diff(course, bearing_to_beach) <= policy.course_tolerance_deg:
        return True
    if approach.anchored and angle_diff(course, bearing_to_beach + 180.0) <= (
        policy.course_tolerance_deg
    ):
        return True
    approach.clean = False
    return False


def _lies_still(approach: Approach, at: tuple[float, float], bearing_to_beach: float | None,
                policy: ApproachPolicy) -> bool:  # fmt: skip
    """Whether a vessel stopped by its status or speed still lies where it came to rest
    in the band, or has moved from there straight in (or, once anchored, straight out)."""
    rest = getattr(approach, "rest", None)  # a visit checkpointed before has none
    if rest is None:
        approach.rest = at
        return True
    way, _, moved = GEOD.inv(rest[0], rest[1], at[0], at[1])
    if moved <= policy.swing_m:
        return True
    approach.rest = at  # it moved: the next swing is measured from here
    if bearing_to_beach is None:
        return True  # sitting on the baseline: no direction to judge
    tol = policy.course_tolerance_deg
    return angle_diff(way, bearing_to_beach) <= tol or (
        approach.anchored and angle_diff(way, bearing_to_beach + 180.0) <= tol
    )


def area_rule(zone: Zone, m: VesselMoment, allowed: bool) -> str | None:
    """The rule a position inside (or near) a non-beach zone breaks, if any.

    Distance is the caller's concern; this decides on who the vessel is and what it does.
    """
    if zone.kind is ZoneKind.JURISDICTION or zone.kind is ZoneKind.BATHER_BEACH:
        return None
    rule = KIND_RULE[zone.kind]
    if zone.kind is ZoneKind.LAUNCH_AREA:
        limit = zone.max_dwell_min
        if allowed or limit is None or not m.stopped:
            return None
        return rule if m.stopped_for_s > limit * 60.0 else None
    if m.anchored and anchoring_prohibited(zone):
        # anchoring in a channel is forbidden even to ships allowed to transit it
        return rule
    return None if allowed else rule
