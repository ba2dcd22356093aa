"""BW-APPLY (NORMAM-20 2.1.1, 2.1.3): which exemptions a ship's AIS data and track
confirm, which are only claimed, and which they refute.

An exemption is confirmed only by positive evidence: a warship's AIS type 35 backed by
the register of state vessels (issue 34: the type alone is the ship's own word), or a
track that covers the voyage. A Brazilian-flag ship seen only by coastal
receivers is not thereby shown to have stayed in AJB: its 2.1.1 d) is claimed, and the
audit's leads are raised with the claim attached for the inspector.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from vigia.alerts.ballast.declaration import Declaration
from vigia.alerts.ballast.screening import AssessedTrack
from vigia.alerts.identity.state_register import StateVessels
from vigia.ingest.records import VesselInfo, flag_mid, iso_utc
from vigia.zones.basemap import brazil_territory

# Brazilian jurisdictional waters (NORMAM-20 2.1.1 d)): the sea approximated as within
# 200 nm of land inside this box, plus the inland waters, taken as Brazil's territory
# (zones/basemaps/brazil_territory.geojson: rivers and lakes lie inside it), so a ship
# up the Amazon to Manaus, west of the box, is still in AJB
AJB_BOX = (-53.5, -35.8, -25.0, 7.6)
#: an exemption is "confirmed" only by positive evidence (AIS static data, or a track
#: that covers the voyage); anything else is "claimed" and shown with every verdict
_CONFIRMING = frozenset({"ais", "register", "track"})
#: 2.1.3.1 b): an exemption certificate is valid for five years at most
CERTIFICATE_MAX_S = 5 * 365.25 * 86_400
#: a track "covers the voyage" when it starts this long before the first declared
#: exchange and has no gap over AuditConfig.max_gap_s up to the last one: a ship seen
#: only on the shelf (coastal receivers) may have come from 600 nm out
VOYAGE_LOOKBACK_S = 24 * 3600.0
#: an installed production platform (2.1.3.2 b)) that moved farther than this left
#: its location
PLATFORM_MOVE_NM = 5.0


def _exempt(code: str, cite: str, basis: str, reason: str) -> dict[str, str]:
    status = "confirmed" if basis in _CONFIRMING else "claimed"
    return {
        "code": code,
        "citation": f"NORMAM-20/DPC {cite}",
        "basis": basis,
        "status": status,
        "reason": reason,
    }


def covers_voyage(decl: Declaration, at: AssessedTrack, max_gap_s: float) -> str | None:
    """None when the track covers the voyage of the declared exchanges, else why not."""
    if not len(at.t) or not decl.exchanges:
        return "no AIS track"
    first = min(e.start.t for e in decl.exchanges)
    last = max(e.end.t for e in decl.exchanges)
    if float(at.t[0]) > first - VOYAGE_LOOKBACK_S:
        return (
            f"the track starts less than {VOYAGE_LOOKBACK_S / 3600:.0f} h before the first exchange"
        )
    if float(at.t[-1]) < last:
        return "the track ends before the last exchange"
    t = at.t[(at.t >= first - VOYAGE_LOOKBACK_S) & (at.t <= last)]
    if len(t) > 1 and float(np.max(np.diff(t))) > max_gap_s:
        return f"the track has a gap over {max_gap_s / 3600:.0f} h"
    return None


def in_ajb(at: AssessedTrack) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Whether each fix is in Brazilian jurisdictional waters (approximation, see AJB_BOX)."""
    x0, y0, x1, y1 = AJB_BOX
    box = (at.lon >= x0) & (at.lon <= x1) & (at.lat >= y0) & (at.lat <= y1)
    sea = box & (at.distance_nm <= 200.0)
    if sea.all():
        return np.asarray(sea, dtype=np.bool_)
    inland = shapely.contains_xy(brazil_territory(), at.lon, at.lat)
    return np.asarray(sea | inland, dtype=np.bool_)


def applicability(
    decl: Declaration,
    vessel: VesselInfo | None,
    at: AssessedTrack,
    now: float,
    max_gap_s: float = 3 * 3600.0,
    state: StateVessels | None = None,
) -> dict[str, Any]:
    """``now`` dates a certificate's check when no exchange is declared.

    BW-APPLY: exemptions confirmed from AIS/the track, claimed (on trust, or a track
    that does not cover the voyage), or refused. A flag or rig exemption the track only
    fails to contradict is claimed and does not silence the audit's leads; they are
    raised with the claim attached. ``state``: the register of state vessels (none given:
    an empty one), which alone turns an AIS type 35 into an exemption."""
    exempt: list[dict[str, str]] = []
    refused: list[str] = []
    st = vessel.ship_type if vessel else None
    length = vessel.length_m if vessel else None
    first_t = min((e.start.t for e in decl.exchanges), default=now)
    entry = (state or StateVessels()).entry(decl.mmsi, first_t)
    if st == 35 and entry is not None:
        reason = (
            f"AIS ship type 35 and the register of state vessels ({entry.kind}: {entry.source})"
        )
        exempt.append(_exempt("a", "2.1.1 a)", "register", reason))
    elif st == 35 and not decl.state_ship:
        # the claim the register does not back is judged like any ship (issue 34)
        refused.append(
            "2.1.1 a): AIS ship type 35 claimed, but not on the register of state vessels"
        )
    elif decl.state_ship:
        exempt.append(_exempt("a", "2.1.1 a)", "on_trust", "declared state ship, non-commercial"))
    if st in (37, 51):
        kind = "pleasure craft" if st == 37 else "search and rescue craft"
        if length is None or length > 50:
            refused.append(f"2.1.1 b): {kind} but AIS length {length} m is unknown or over 50 m")
        elif decl.ballast_capacity_m3 is not None and decl.ballast_capacity_m3 > 8:
            refused.append(f"2.1.1 b): declared ballast {decl.ballast_capacity_m3} m3 is over 8")
        else:
            exempt.append(
                _exempt(
                    "b",
                    "2.1.1 b)",
                    "ais_and_trust",
                    f"AIS: {kind}, {length} m long; ballast of 8 m3 or less taken on trust",
                )
            )
    if decl.sealed_tanks or decl.no_ballast_tanks:
        what = "sealed permanent ballast" if decl.sealed_tanks else "not built to carry ballast"
        exempt.append(_exempt("c", "2.1.1 c)", "on_trust", f"declared {what}"))
    ajb = in_ajb(at)
    span = f"{len(ajb)} AIS fixes" + (
        f" from {iso_utc(float(at.t[0]))} to {iso_utc(float(at.t[-1]))}" if len(ajb) else ""
    )
    brazilian = flag_mid(decl.mmsi) == 710
    gap = covers_voyage(decl, at, max_gap_s)
    non_silencing: list[dict[str, str]] = []
    for code, cite, claimed, label in (
        ("d", "2.1.1 d)", brazilian, "Brazilian flag (MID 710)"),
        ("ait", "2.1.3 a)", decl.ait and not brazilian, "foreign flag with AIT"),
        ("rig", "2.1.3.2 c)", decl.drilling_rig, "drilling rig moving between locations"),
    ):
        if not claimed:
            continue
        if len(ajb) and ajb.all() and gap is None:
            reason = f"{label}; every one of {span} is in AJB and the track covers the voyage"
            exempt.append(_exempt(code, cite, "track", reason))
        elif len(ajb) and ajb.all():
            reason = f"{label}; every one of {span} is in AJB, but {gap}: not confirmed"
            non_silencing.append(_exempt(code, cite, "track_partial", reason))
        elif len(ajb):
            out = int((~ajb).sum())
            refused.append(f"{cite}: {label}, but {out} of {span} are outside AJB")
        elif decl.only_ajb or code == "ait":
            reason = f"{label}; operating only in AJB taken on trust (no AIS track)"
            exempt.append(_exempt(code, cite, "on_trust", reason))
    if decl.certificate_number:
        last = max((e.end.t for e in decl.exchanges), default=now)
        until = decl.certificate_valid_until
        issued = decl.certificate_issued_at
        if issued is not None:
            five = issued + CERTIFICATE_MAX_S
            until = five if until is None else min(until, five)
        if until is not None and until < last:
            refused.append(
                f"2.1.3.1: certificate {decl.certificate_number} expired {iso_utc(until)}"
                + (" (five years at most, 2.1.3.1 b))" if issued is not None else "")
            )
        else:
            reason = f"exemption certificate {decl.certificate_number} (not verified with DPC)"
            exempt.append(_exempt("certificate", "2.1.3.1", "on_trust", reason))
    if decl.installed_platform:
        moved = _moved_nm(at)
        if moved > PLATFORM_MOVE_NM:
            refused.append(
                f"2.1.3.2 b): declared installed platform, but the track moved {moved:.1f} nm"
            )
        else:
            exempt.append(
                _exempt("platform", "2.1.3.2 b)", "on_trust", "declared installed platform")
            )
    return {
        "rule": "BW-APPLY",
        "applies": not exempt,
        "exemptions": exempt + non_silencing,
        "exemptions_refused": refused,
        "declared_exceptions": list(decl.declared_exceptions),
        "note": "declared exceptions (BW-EXCEPT, 2.1.2) are recorded with the audit, not judged",
    }


def _moved_nm(at: AssessedTrack) -> float:
    """Farthest any fix lies from the first one, in nautical miles (equirectangular:
    plenty at a few miles)."""
    if len(at.t) < 2:
        return 0.0
    k = np.cos(np.radians(float(at.lat[0])))
    dx = (at.lon - float(at.lon[0])) * k
    dy = at.lat - float(at.lat[0])
    return float(np.max(np.hypot(dx, dy))) * 60.0
