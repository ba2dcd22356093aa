"""BW-APPLY: whether NORMAM-20 applies to a ship, from AIS, its track and its declaration.

Each exemption says its basis: confirmed from AIS, from the track, or taken on trust
from the declaration; claims the evidence contradicts are listed as refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vigia.alerts.ballast_declaration import Declaration
from vigia.alerts.ballast_screening import AssessedTrack
from vigia.ingest.records import VesselInfo, flag_mid, iso_utc

# Brazilian jurisdictional waters, approximated as within 200 nm of land inside this box
AJB_BOX = (-53.5, -35.8, -25.0, 7.6)


def _exempt(code: str, cite: str, basis: str, reason: str) -> dict[str, str]:
    return {"code": code, "citation": f"NORMAM-20/DPC {cite}", "basis": basis, "reason": reason}


def in_ajb(at: AssessedTrack) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Whether each fix is in Brazilian jurisdictional waters (approximation, see AJB_BOX)."""
    x0, y0, x1, y1 = AJB_BOX
    box = (at.lon >= x0) & (at.lon <= x1) & (at.lat >= y0) & (at.lat <= y1)
    return np.asarray(box & (at.distance_nm <= 200.0), dtype=np.bool_)


def applicability(
    decl: Declaration, vessel: VesselInfo | None, at: AssessedTrack, now: float
) -> dict[str, Any]:
    """BW-APPLY: exemptions confirmed from AIS/the track, taken on trust, or refused.
    ``now`` dates a certificate's check when no exchange is declared."""
    exempt: list[dict[str, str]] = []
    refused: list[str] = []
    st = vessel.ship_type if vessel else None
    length = vessel.length_m if vessel else None
    if st == 35:
        exempt.append(_exempt("a", "2.1.1 a)", "ais", "AIS ship type 35 (military operations)"))
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
    for code, cite, claimed, label in (
        ("d", "2.1.1 d)", brazilian, "Brazilian flag (MID 710)"),
        ("ait", "2.1.3 a)", decl.ait and not brazilian, "foreign flag with AIT"),
    ):
        if not claimed:
            continue
        if len(ajb) and ajb.all():
            reason = f"{label}; every one of {span} is in AJB"
            exempt.append(_exempt(code, cite, "track", reason))
        elif len(ajb):
            out = int((~ajb).sum())
            refused.append(f"{cite}: {label}, but {out} of {span} are outside AJB")
        elif decl.only_ajb or code == "ait":
            reason = f"{label}; operating only in AJB taken on trust (no AIS track)"
            exempt.append(_exempt(code, cite, "on_trust", reason))
    if decl.certificate_number:
        last = max((e.end.t for e in decl.exchanges), default=now)
        until = decl.certificate_valid_until
        if until is not None and until < last:
            refused.append(
                f"2.1.3.1: certificate {decl.certificate_number} expired {iso_utc(until)}"
            )
        else:
            reason = f"exemption certificate {decl.certificate_number} (not verified with DPC)"
            exempt.append(_exempt("certificate", "2.1.3.1", "on_trust", reason))
    if decl.installed_platform:
        exempt.append(_exempt("platform", "2.1.3.2 b)", "on_trust", "declared installed platform"))
    return {
        "rule": "BW-APPLY",
        "applies": not exempt,
        "exemptions": exempt,
        "exemptions_refused": refused,
        "declared_exceptions": list(decl.declared_exceptions),
        "note": "declared exceptions (BW-EXCEPT, 2.1.2) are recorded with the audit, not judged",
    }
