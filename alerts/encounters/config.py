"""Tunables of the encounter and loitering rules (docs/encounters.md gives each reason)."""

from __future__ import annotations

from dataclasses import dataclass

#: AIS ship types (ITU-R M.1371-5, table 53) of vessels whose work puts them beside
#: another ship for hours: towing (31, 32), dredging or underwater operations (33, the
#: type offshore supply and ROV vessels most often send), diving (34), tug (52), port
#: tender (53), anti-pollution (54)
SUPPORT_TYPES = frozenset({31, 32, 33, 34, 52, 53, 54})
#: of those, the ones whose work is towing or assisting another ship anywhere at sea
TUG_TYPES = frozenset({31, 32, 52})


@dataclass(frozen=True, slots=True)
class EncounterConfig:
    """Global Fishing Watch's encounter and loitering rules, as Vigia applies them."""

    #: off: no track kept, no pair looked for (the benchmark's baseline)
    enabled: bool = True
    #: GFW resamples tracks to 10 minutes ...
    slot_s: float = 600.0
    #: ... and never interpolates across a silence longer than 1 hour
    max_gap_s: float = 3_600.0
    #: GFW: within 500 m ...
    near_m: float = 500.0
    #: ... both below 2 knots ...
    max_sog_kn: float = 2.0
    #: ... for at least 2 hours (first to last adjacent slot)
    min_duration_s: float = 7_200.0
    #: ... at least 10 km from a coastal anchorage (here: an anchorage or port zone)
    anchorage_m: float = 10_000.0
    #: a provisional (open) lead once a meeting has lasted this long, so a patrol can go
    provisional_s: float = 1_800.0
    #: loitering: slow (every slot below max_sog_kn) for at least this long ...
    loiter_s: float = 14_400.0
    #: ... at least this far from shore (GFW's loitering events: 20 nm) ...
    loiter_shore_nm: float = 20.0
    #: ... and near something: a platform within this distance ...
    loiter_platform_m: float = 10_000.0
    #: ... a ballast line (50 or 200 nm from land) within this many nm ...
    loiter_ballast_nm: float = 5.0
    #: ... a lane (an access channel zone) within this distance ...
    loiter_lane_m: float = 5_000.0
    #: ... or a vessel that went silent (over max_gap_s) within this distance of it
    dark_partner_m: float = 2_000.0
    #: H3 resolution of the pairing grid: cells about 1.2 km across, so every vessel
    #: within near_m of another lies in its cell or the ring around it
    h3_res: int = 7
    #: evidence points kept per vessel
    max_evidence: int = 50
