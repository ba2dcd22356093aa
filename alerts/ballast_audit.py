"""Audits of declared ballast-water exchanges against AIS (NORMAM-20 2.1 and 2.3.1).

For each declared exchange: whether the AIS track puts the ship at the declared
positions at the declared times, the distance to land and depth at start, end and the
worst point between, and the verdict. An exchange done under b) counts as a fallback only
if the voyage offered no a)-water long enough for the declared volume at the configured
pump rate. Applicability (BW-APPLY) states which exemptions were confirmed from AIS
and which were taken on trust from the declaration.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pyproj import Geod

from vigia.alerts.ballast_screening import AssessedTrack, WaterWindow, assess_track
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.ingest.errors import InputFormatError
from vigia.ingest.records import Position, VesselInfo, flag_mid, iso_utc
from vigia.ingest.units import M_PER_NM
from vigia.zones.ballast import ZONES, BallastAssessor

CITATION_A = "NORMAM-20/DPC 2.3.1 a)"
CITATION_B = "NORMAM-20/DPC 2.3.1 b)"
RETENTION = "kept at least five years (BW-RECORD, NORMAM-20/DPC 2.2.1.3 b)"
# Brazilian jurisdictional waters, approximated as within 200 nm of land inside this box
AJB_BOX = (-53.5, -35.8, -25.0, 7.6)
# pumped volumes per declared volume: D-1 flow-through and dilution pump three volumes
METHOD_FACTOR = {"sequential": 2.0, "flow-through": 3.0, "flow_through": 3.0, "dilution": 3.0}
MAX_EVIDENCE = 100
_GEOD = Geod(ellps="WGS84")


class AuditInputError(InputFormatError):
    """A declaration that cannot be audited (e.g. an exchange ending before it starts)."""

    code = "invalid-declaration"


# far above any ship's ballast capacity (a VLCC carries about 100,000 m3): larger is a typo
MAX_VOLUME_M3 = 1_000_000.0


@dataclass(frozen=True, slots=True)
class DeclaredPoint:
    """A declared time (Unix s) and position."""

    t: float
    lat: float
    lon: float


@dataclass(frozen=True, slots=True)
class DeclaredExchange:
    """One exchange as the ship declared it."""

    start: DeclaredPoint
    end: DeclaredPoint
    volume_m3: float | None = None
    method: str | None = None


@dataclass(frozen=True, slots=True)
class Declaration:
    """A ship's ballast declaration: its exchanges and what it claims about itself."""

    mmsi: int
    exchanges: tuple[DeclaredExchange, ...]
    state_ship: bool = False  # 2.1.1 a) state ship in non-commercial service
    ballast_capacity_m3: float | None = None  # for 2.1.1 b)
    sealed_tanks: bool = False  # 2.1.1 c)
    no_ballast_tanks: bool = False  # 2.1.1 c)
    only_ajb: bool = False  # 2.1.1 d) as claimed
    ait: bool = False  # 2.1.3 a) foreign ship with a temporary registration (AIT)
    certificate_number: str | None = None  # 2.1.3.1 exemption certificate
    certificate_valid_until: float | None = None
    installed_platform: bool = False  # 2.1.3.2 b)
    declared_exceptions: tuple[str, ...] = ()  # BW-EXCEPT: recorded, not judged


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """Tolerances and assumptions, quoted in every audit."""

    pump_rate_m3_h: float = 1000.0
    match_distance_nm: float = 5.0
    match_time_s: float = 1800.0
    max_gap_s: float = 3 * 3600.0


@dataclass(slots=True)
class AuditResult:
    """The audit document (JSON-ready) and the leads it raised."""

    document: dict[str, Any]
    leads: list[Lead] = field(default_factory=list)


def _exempt(code: str, cite: str, basis: str, reason: str) -> dict[str, str]:
    return {"code": code, "citation": f"NORMAM-20/DPC {cite}", "basis": basis, "reason": reason}


def in_ajb(at: AssessedTrack) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Whether each fix is in Brazilian jurisdictional waters (approximation, see AJB_BOX)."""
    x0, y0, x1, y1 = AJB_BOX
    box = (at.lon >= x0) & (at.lon <= x1) & (at.lat >= y0) & (at.lat <= y1)
    return np.asarray(box & (at.distance_nm <= 200.0), dtype=np.bool_)


def applicability(
    decl: Declaration, vessel: VesselInfo | None, at: AssessedTrack
) -> dict[str, Any]:
    """BW-APPLY: exemptions confirmed from AIS/the track, taken on trust, or refused."""
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
        last = max((e.end.t for e in decl.exchanges), default=time.time())
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


def _match(at: AssessedTrack, p: DeclaredPoint, cfg: AuditConfig) -> dict[str, Any]:
    """Where the track puts the ship at a declared time, and how far that is from the claim."""
    near = np.flatnonzero(np.abs(at.t - p.t) <= cfg.match_time_s)
    if not len(near):
        return {"matched": False, "reason": "no AIS fix within the time tolerance"}
    before = near[at.t[near] <= p.t]
    after = near[at.t[near] >= p.t]
    if len(before) and len(after):
        i, j = int(before[-1]), int(after[0])
        f = 0.0 if at.t[j] == at.t[i] else (p.t - at.t[i]) / (at.t[j] - at.t[i])
        lon = float(at.lon[i] + f * (at.lon[j] - at.lon[i]))
        lat = float(at.lat[i] + f * (at.lat[j] - at.lat[i]))
        how = "interpolated between the fixes around the declared time"
    else:
        k = int(near[np.argmin(np.abs(at.t[near] - p.t))])
        lon, lat = float(at.lon[k]), float(at.lat[k])
        how = f"nearest fix, {abs(at.t[k] - p.t) / 60:.0f} min from the declared time"
    _, _, metres = _GEOD.inv(lon, lat, p.lon, p.lat)
    off = float(metres) / M_PER_NM
    ok = off <= cfg.match_distance_nm
    res = {"matched": ok, "ais_lon": lon, "ais_lat": lat, "offset_nm": round(off, 2), "how": how}
    if not ok:
        res["reason"] = f"AIS puts the ship {off:.1f} nm from the declared position"
    return res


def _figure(lon: float, lat: float, t: float, d: float, z: float, zone: int) -> dict[str, Any]:
    return {
        "t": iso_utc(t),
        "lon": lon,
        "lat": lat,
        "distance_to_land_nm": round(d, 2),
        "depth_m": None if np.isnan(z) else round(z, 1),
        "zone": ZONES[zone],
    }


def needed_hours(ex: DeclaredExchange, cfg: AuditConfig) -> tuple[float, str]:
    """Time the exchange needs, and the assumption behind it."""
    if ex.volume_m3 is None:
        hours = max(0.0, (ex.end.t - ex.start.t) / 3600)
        return hours, "no volume declared: the declared duration is taken as the time needed"
    method = (ex.method or "").strip().lower()
    factor = METHOD_FACTOR.get(method, 3.0)
    hours = ex.volume_m3 * factor / cfg.pump_rate_m3_h
    why = (
        f"{ex.volume_m3:g} m3 x {factor:g} volumes pumped ({method or 'method unknown'}) "
        f"at {cfg.pump_rate_m3_h:g} m3/h"
    )
    return hours, why


def _lead(
    rule: str, decl: Declaration, ex: DeclaredExchange, seg: dict[str, Any], vessel: dict[str, Any]
) -> Lead:
    worst = seg["worst"]
    ev: list[EvidencePoint] = seg["evidence"]
    sogs = [e.sog for e in ev if e.sog is not None]
    key = EvidencePoint(
        seg["worst_t"],
        worst["lon"],
        worst["lat"],
        None,
        None,
        None,
        worst["distance_to_land_nm"] * M_PER_NM,
    )
    return build_lead(
        mmsi=decl.mmsi,
        rule=rule,
        zone=None,
        started_at=ex.start.t,
        ended_at=ex.end.t,
        key_point=key,
        points=ev,
        cap=MAX_EVIDENCE,
        vessel=vessel,
        max_sog_kn=max(sogs) if sogs else None,
        details={"exchange": seg["summary"], "basemap": seg["basemap"]},
    )


def _evidence(at: AssessedTrack, lo: float, hi: float) -> list[EvidencePoint]:
    out = []
    for i in np.flatnonzero((at.t >= lo) & (at.t <= hi)):
        p = at.positions[int(i)]
        d = float(at.distance_nm[i]) * M_PER_NM
        out.append(
            EvidencePoint(p.t, float(at.lon[i]), float(at.lat[i]), p.sog, p.cog, p.nav_status, d)
        )
    return out


def audit_exchange(
    k: int,
    ex: DeclaredExchange,
    at: AssessedTrack,
    a_windows: list[WaterWindow],
    assessor: BallastAssessor,
    cfg: AuditConfig,
) -> dict[str, Any]:
    """Verdict and figures for one exchange (the lead rules it breaks under ``rules``)."""
    if ex.end.t < ex.start.t:
        raise AuditInputError(f"exchange {k}: its end is before its start")
    if ex.volume_m3 is not None and not 0 < ex.volume_m3 <= MAX_VOLUME_M3:
        raise AuditInputError(
            f"exchange {k}: volume_m3 must be above 0 and at most {MAX_VOLUME_M3:g} m3"
        )
    match = {"start": _match(at, ex.start, cfg), "end": _match(at, ex.end, cfg)}
    between = np.flatnonzero((at.t > ex.start.t) & (at.t < ex.end.t))
    lons = np.concatenate([[ex.start.lon], at.lon[between], [ex.end.lon]])
    lats = np.concatenate([[ex.start.lat], at.lat[between], [ex.end.lat]])
    ts = np.concatenate([[ex.start.t], at.t[between], [ex.end.t]])
    a = assessor.assess(lons, lats)
    figs = [
        _figure(lons[i], lats[i], ts[i], a.distance_nm[i], a.depth_m[i], int(a.zone[i]))
        for i in range(len(lons))
    ]
    w = int(np.argmin(a.distance_nm))
    s = int(np.argmin(np.nan_to_num(a.depth_m, nan=-1e9)))
    hours, why = needed_hours(ex, cfg)
    long_enough = [x for x in a_windows if x.hours >= hours]
    opportunity = {
        "needed_hours": round(hours, 2),
        "assumption": why,
        "a_water_windows": [x.to_json() for x in a_windows],
        "a_water_long_enough": bool(long_enough),
    }
    reasons: list[str] = []
    rules: list[str] = []
    if not (match["start"]["matched"] and match["end"]["matched"]):
        verdict = "unverified"
        reasons += [f"{key}: {m['reason']}" for key, m in match.items() if not m["matched"]]
    elif a.meets_200.all():
        verdict = "compliant"
        reasons.append("start, end and every AIS fix between meet 200 nm and 200 m")
    elif a.meets_50.all() and not long_enough:
        verdict = "compliant_fallback"
        reasons.append(
            f"meets 50 nm and 200 m throughout; the voyage offered no a)-water for {hours:.1f} h"
        )
    else:
        verdict = "noncompliant"
        if not a.meets_50.all():
            rules.append("BW-EXCH-50")
            reasons.append("not even 50 nm from land and 200 m deep throughout")
        if long_enough:
            rules.append("BW-EXCH-200")
            reasons.append(
                f"a)-water was available for {long_enough[0].hours:.1f} h "
                f"from {iso_utc(long_enough[0].start)}, needed {hours:.1f} h"
            )
    summary = {
        "index": k,
        "declared": {
            "start": {"time": iso_utc(ex.start.t), "lat": ex.start.lat, "lon": ex.start.lon},
            "end": {"time": iso_utc(ex.end.t), "lat": ex.end.lat, "lon": ex.end.lon},
            "volume_m3": ex.volume_m3,
            "method": ex.method,
        },
        "verdict": verdict,
        "reasons": reasons,
        "start": figs[0],
        "end": figs[-1],
        "worst": figs[w],
        "shallowest": figs[s],
        "points_assessed": len(figs),
        "track_match": {
            **match,
            "tolerance": {"distance_nm": cfg.match_distance_nm, "time_s": cfg.match_time_s},
        },
        "a_water_opportunity": opportunity,
        "leads": rules,
    }
    margin = cfg.match_time_s
    return {
        "summary": summary,
        "worst": figs[w],
        "worst_t": float(ts[w]),
        "basemap": assessor.basemap.names,
        "evidence": _evidence(at, ex.start.t - margin, ex.end.t + margin),
    }


def audit(
    decl: Declaration,
    track: Sequence[Position],
    vessel: VesselInfo | None,
    assessor: BallastAssessor,
    cfg: AuditConfig | None = None,
) -> AuditResult:
    """Audit every declared exchange; leads only for ships the rule applies to."""
    cfg = cfg or AuditConfig()
    at = assess_track(track, assessor)
    appl = applicability(decl, vessel, at)
    a_ws = at.a_windows(cfg.max_gap_s)
    vjson = vessel_json(decl.mmsi, vessel)
    exchanges, leads = [], []
    for k, ex in enumerate(decl.exchanges):
        seg = audit_exchange(k, ex, at, a_ws, assessor, cfg)
        exchanges.append(seg["summary"])
        if appl["applies"]:
            leads += [_lead(r, decl, ex, seg, vjson) for r in seg["summary"]["leads"]]
    doc = {
        "mmsi": decl.mmsi,
        "vessel": vjson,
        "audited_at": iso_utc(round(time.time())),
        "basemap": assessor.basemap.names,
        "track_points": len(at.t),
        "applicability": appl,
        "exchanges": exchanges,
        "leads": [ld.to_json() for ld in leads],
        "assumptions": {
            "pump_rate_m3_h": cfg.pump_rate_m3_h,
            "volumes_pumped_per_method": {**METHOD_FACTOR, "unknown": 3.0},
            "track_match_tolerance": {
                "distance_nm": cfg.match_distance_nm,
                "time_s": cfg.match_time_s,
            },
            "max_ais_gap_s": cfg.max_gap_s,
            "ajb": f"within 200 nm of land inside lon/lat box {list(AJB_BOX)} (approximation)",
        },
        "record": {"rule": "BW-RECORD", "retention": RETENTION},
    }
    return AuditResult(doc, leads)
